// Chat (ChatService): the rooms the page shows, each followed while it is on screen
// (its newest page of history, then WatchChat after the last message read, which the
// client reopens after a dropped stream), every message and amendment (an edit, a
// delete) applied as it comes; the player's messages sent with a client id kept until
// the service took them, so a message sent again after a failure is kept once; the
// quick phrases in the page's language; direct messages from friends counted unread
// until their conversation is opened.
//
// Moderation: the player mutes another (their messages go from this page's rooms at
// once, and the service leaves them out after a reload) and unmutes them from the list
// of muted players; reports another's message with a reason; and is told, in the
// chat box, when a moderator muted or banned their own chat (the CHAT_MUTED or
// CHAT_BANNED refusal's until_ms and note, and the "chat_sanction" event), and of a
// warning (the "chat_warning" event's note).
import {
  type ChatMessage,
  ChatMode,
  type ChatRoomRef,
  type GameView,
  GameStatus,
  type PlayerEvent,
  type TrancaClient,
  RoomKind,
  TrancaError,
  newRequestId,
} from '../../../src/index.js';
import { type Lang, tr } from '../i18n/index.js';
import { type ChatRoomState, type ChatSanction, type State, getState, update } from '../store.js';
import { savedSession, service, t } from './service.js';

/** The newest messages read when a room opens, and the most a room keeps on screen. */
const HISTORY = 50;
const KEPT = 200;
/** A message may be edited or deleted by its author within this long (the service's window). */
export const EDIT_WINDOW_MS = 5 * 60_000;

/** A room's key in the store. */
export const roomKey = (room: ChatRoomRef): string => `${room.kind}:${room.id}`;

/** What a table's players may write there: nothing, quick phrases, or free text too. */
export type TableChat = 'off' | 'phrases' | 'free';

/** The table's chat mode, as the service decides it (TableOptions.chat; unspecified: phrases only at a rated table of four). */
export function tableChatMode(view: GameView): TableChat {
  switch (view.table?.chat ?? ChatMode.UNSPECIFIED) {
    case ChatMode.OFF:
      return 'off';
    case ChatMode.PHRASES:
      return 'phrases';
    case ChatMode.FREE:
      return 'free';
    default:
      return view.table?.competitive && view.players === 4 ? 'phrases' : 'free';
  }
}

/** Whether the spectators' room is held from this seat: a rated table's players, until the match is over. */
export const spectatorsHeld = (view: GameView): boolean =>
  view.seat >= 0 && Boolean(view.table?.competitive) && view.status !== GameStatus.FINISHED;

/** The token a room is read and written with: the seat's at a table, the session's elsewhere. */
export function roomToken(room: ChatRoomRef): string {
  if (room.kind === RoomKind.TABLE || room.kind === RoomKind.SPECTATORS) return getState().seated?.token ?? '';
  return savedSession()?.accessToken ?? '';
}

const EMPTY: ChatRoomState = { messages: [], status: 'loading', refusal: null, sending: false };

function setRoom(key: string, patch: Partial<ChatRoomState> | ((r: ChatRoomState) => Partial<ChatRoomState>)): void {
  update((s) => {
    const room = s.chat[key] ?? EMPTY;
    const next = typeof patch === 'function' ? patch(room) : patch;
    return { chat: { ...s.chat, [key]: { ...room, ...next } } };
  });
}

/** A refusal in the page's words where they say more than the service's (RATE_LIMITED: wait a moment; a sanction: until when, and why). */
function refusalOf(err: unknown): { reason: string; message: string } {
  if (err instanceof TrancaError) {
    const reason = err.reason || err.codeName;
    if (reason === 'RATE_LIMITED') return { reason, message: t('chatTooFast') };
    const sanction = sanctionOf(err);
    if (sanction) {
      keepSanction(sanction);
      return { reason, message: sanctionWords(getState().lang, sanction) };
    }
    return { reason, message: err.localized?.message ?? err.rawMessage };
  }
  return { reason: 'ERROR', message: String((err as Error)?.message ?? err) };
}

/** Messages with one more message or amendment applied: a new message in its place, an edit's text, a delete. */
export function applyMessage(messages: readonly ChatMessage[], m: ChatMessage): ChatMessage[] {
  if (m.kind === 'edit' || m.kind === 'delete') {
    return messages.map((old) =>
      old.id !== m.targetId
        ? old
        : m.kind === 'edit'
          ? { ...old, text: m.text, filtered: m.filtered, editedAtMs: m.createdAtMs || BigInt(Date.now()) }
          : { ...old, text: '', deleted: true },
    );
  }
  if (messages.some((old) => old.id === m.id)) return [...messages];
  const next = [...messages, m];
  next.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return next.slice(-KEPT);
}

function apply(key: string, m: ChatMessage): void {
  setRoom(key, (r) => ({ messages: applyMessage(r.messages, m) }));
}

interface Followed {
  room: ChatRoomRef;
  token: string;
  stop: AbortController;
}

const followed = new Map<string, Followed>();

const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Reads a room's newest messages, then follows it until `stop`; a refusal is shown, and tried again later. */
async function follow(room: ChatRoomRef, token: string, stop: AbortController): Promise<void> {
  const key = roomKey(room);
  for (let failures = 0; !stop.signal.aborted; ) {
    const client = service().withToken(token);
    try {
      const page = await client.listChatMessages(room, { pageSize: HISTORY });
      if (stop.signal.aborted) return;
      let after = 0n;
      for (const m of page.messages) if (m.id > after) after = m.id;
      setRoom(key, (r) => ({
        status: 'open',
        refusal: r.status === 'refused' ? null : r.refusal,
        messages: page.messages.reduce(applyMessage, r.messages.filter((m) => m.id > after)),
      }));
      for await (const m of client.watchChat(room, after, { signal: stop.signal })) {
        failures = 0;
        apply(key, m);
      }
    } catch (err) {
      if (stop.signal.aborted) return;
      failures += 1;
      setRoom(key, { status: 'refused', refusal: refusalOf(err) });
    }
    await pause(Math.min(60_000, 1000 * 2 ** Math.min(failures, 6)), stop.signal);
  }
}

/**
 * Follows a room from now on (a component calls it as the room comes on screen); the
 * function it returns stops following it. The same room with the same token is
 * followed once.
 */
export function followRoom(room: ChatRoomRef): () => void {
  const key = roomKey(room);
  const token = roomToken(room);
  const now = followed.get(key);
  if (now && now.token === token && !now.stop.signal.aborted) return () => unfollow(key, now);
  now?.stop.abort();
  if (!token) return () => undefined;
  const mine = { room, token, stop: new AbortController() };
  followed.set(key, mine);
  setRoom(key, { ...EMPTY });
  void follow(room, token, mine.stop);
  return () => unfollow(key, mine);
}

function unfollow(key: string, mine: Followed): void {
  if (followed.get(key) !== mine) return;
  mine.stop.abort();
  followed.delete(key);
}

/** Closes every chat stream as the page goes (a reload, a tab closed). */
export function stopChat(): void {
  for (const f of followed.values()) f.stop.abort();
  followed.clear();
}

// ----- writing -----------------------------------------------------------------------------

/** The client message id of a text not yet taken by the service, by room: sent again with the same text, it is the same message. */
const pending = new Map<string, { text: string; id: string }>();

/**
 * Sends free text or a quick phrase to a room; the message shows at once (and once, when
 * the stream brings it too). Whether the service took it: a refused or failed text stays
 * in its box, and sent again carries the same client id.
 */
export async function sendChat(room: ChatRoomRef, what: { text?: string; phrase?: string }): Promise<boolean> {
  const key = roomKey(room);
  const token = roomToken(room);
  if (!token || getState().chat[key]?.sending) return false;
  const text = what.text?.trim() ?? '';
  const draft = `${what.phrase ? `phrase:${what.phrase}` : `text:${text}`}`;
  let id = pending.get(key);
  if (!id || id.text !== draft) {
    id = { text: draft, id: newRequestId() };
    pending.set(key, id);
  }
  setRoom(key, { sending: true, refusal: null });
  try {
    const sent = await service()
      .withToken(token)
      .sendChatMessage(room, { ...(what.phrase ? { phrase: what.phrase } : { text }), clientMessageId: id.id });
    pending.delete(key);
    setRoom(key, (r) => ({ messages: applyMessage(r.messages, sent), sending: false }));
    if (getState().chatSanction) liftSanction(); // taken: whatever sanction the page knew of is over
    return true;
  } catch (err) {
    // A refusal kept nothing: the next try is a new message. A failure may have: the same id.
    if (err instanceof TrancaError && !err.transient) pending.delete(key);
    setRoom(key, { sending: false, refusal: refusalOf(err) });
    return false;
  }
}

/** Changes the text of one of the player's messages (within the window); shown at once. */
export async function editChat(room: ChatRoomRef, messageId: bigint, text: string): Promise<boolean> {
  const key = roomKey(room);
  const token = roomToken(room);
  if (!token || !text.trim()) return false;
  setRoom(key, { refusal: null });
  try {
    const amendment = await service().withToken(token).editChatMessage(room, messageId, text.trim());
    apply(key, amendment);
    return true;
  } catch (err) {
    setRoom(key, { refusal: refusalOf(err) });
    return false;
  }
}

/** Deletes one of the player's messages (within the window); shown at once. */
export async function deleteChat(room: ChatRoomRef, messageId: bigint): Promise<void> {
  const key = roomKey(room);
  const token = roomToken(room);
  if (!token) return;
  setRoom(key, { refusal: null });
  try {
    apply(key, await service().withToken(token).deleteChatMessage(room, messageId));
  } catch (err) {
    setRoom(key, { refusal: refusalOf(err) });
  }
}

/** Closes a room's refusal. */
export const clearChatRefusal = (room: ChatRoomRef): void => setRoom(roomKey(room), { refusal: null });

/** Whether the player may still change a message of theirs: their own (the service gave them its client id), within the window. */
export function canAmend(m: ChatMessage, serverNowMs: number): boolean {
  return Boolean(m.clientMessageId) && !m.deleted && serverNowMs - Number(m.createdAtMs) < EDIT_WINDOW_MS;
}

// ----- quick phrases -------------------------------------------------------------------------

let phrasesAsked = '';

/** The quick phrases in the page's language, listed once per language (with the token a room uses). */
export async function loadPhrases(token: string): Promise<void> {
  const lang = getState().lang;
  if (!token || phrasesAsked === lang) return;
  phrasesAsked = lang;
  try {
    const phrases = await service().withToken(token).listQuickPhrases(lang);
    if (getState().lang === lang) update({ phrases, phrasesLang: lang });
  } catch {
    if (phrasesAsked === lang) phrasesAsked = ''; // asked again at the next render
  }
}

/** A quick phrase's words in the page's language (its id until they are listed). */
export function phraseText(id: string): string {
  return getState().phrases.find((p) => p.id === id)?.text ?? id;
}

// ----- direct messages -----------------------------------------------------------------------

/** A "direct_message" event: one more unread from that friend, unless their conversation is open. */
export function onDirectMessage(event: PlayerEvent): void {
  let from = '';
  try {
    from = (JSON.parse(event.payloadJson) as { from_player_id?: string }).from_player_id ?? '';
  } catch {
    return;
  }
  if (!from || getState().directWith === from) return;
  update((s) => ({ unread: { ...s.unread, [from]: (s.unread[from] ?? 0) + 1 } }));
}

/** Opens (or closes, with '') the conversation with a friend: its messages read. */
export function openDirect(playerId: string): void {
  update((s) => {
    const unread = { ...s.unread };
    delete unread[playerId];
    return { directWith: s.directWith === playerId ? '' : playerId, unread };
  });
}

// ----- moderation ----------------------------------------------------------------------------

const SANCTION_KEY = 'tranca.chatSanction'; // the account's last sanction told: {playerId, kind, untilMs, note}
const MUTED_NAMES_KEY = 'tranca.mutedNames'; // the names the muted players were seen with, by id

function savedMutedNames(): Record<string, string> {
  try {
    return (JSON.parse(localStorage.getItem(MUTED_NAMES_KEY) ?? '{}') as Record<string, string>) ?? {};
  } catch {
    return {};
  }
}

/** A message's key among the ones the player reported ("kind:id#message"). */
export const reportedKey = (room: ChatRoomRef, messageId: bigint): string => `${roomKey(room)}#${messageId}`;

/** The messages a reader is shown: none of the players they muted (their own always). */
export function unmutedMessages(messages: readonly ChatMessage[], muted: readonly string[] | null): ChatMessage[] {
  if (!muted || muted.length === 0) return [...messages];
  return messages.filter((m) => Boolean(m.clientMessageId) || !m.authorId || !muted.includes(m.authorId));
}

/** The session's client, for what only a player's session may do (mute, unmute, list the muted). */
function sessionOnly(): { client: TrancaClient; playerId: string } | null {
  const saved = savedSession();
  if (!saved?.accessToken || !saved.playerId) return null;
  return { client: service().withToken(saved.accessToken), playerId: saved.playerId };
}

/** Whether the page may mute players: it has a player's session. */
export const canMute = (): boolean => sessionOnly() !== null;

/** The players the account muted, listed into the store, with the names their profiles give. */
export async function loadMuted(): Promise<void> {
  const mine = sessionOnly();
  if (!mine) return;
  const ids = await mine.client.listMutedChatPlayers();
  if (getState().account?.playerId !== mine.playerId) return;
  const seen = savedMutedNames();
  update((s) => ({ muted: ids, mutedNames: { ...seen, ...s.mutedNames } }));
  const unnamed = ids.filter((id) => !getState().mutedNames[id]).slice(0, 100);
  if (unnamed.length === 0) return;
  try {
    const profiles = await mine.client.playerProfiles(unnamed);
    const names = Object.fromEntries(profiles.filter((p) => p.displayName).map((p) => [p.playerId, p.displayName]));
    update((s) => ({ mutedNames: { ...names, ...s.mutedNames } }));
  } catch {
    // their ids are shown instead
  }
}

/**
 * Mutes a message's author: their messages go from every room on the page at once;
 * whether the service took it (a refusal shows in the room, and the messages come back).
 */
export async function muteChat(room: ChatRoomRef, playerId: string, name: string): Promise<boolean> {
  const mine = sessionOnly();
  if (!mine || !playerId) return false;
  const before = getState().muted ?? [];
  update((s) => ({
    muted: [...(s.muted ?? []).filter((id) => id !== playerId), playerId],
    mutedNames: { ...s.mutedNames, [playerId]: name || s.mutedNames[playerId] || playerId },
    chatNotice: '',
  }));
  if (name) localStorage.setItem(MUTED_NAMES_KEY, JSON.stringify({ ...savedMutedNames(), [playerId]: name }));
  setRoom(roomKey(room), { refusal: null });
  try {
    await mine.client.muteChatPlayer(playerId);
    update({ chatNotice: t('chatMutedNotice', { name: name || playerId }) });
    return true;
  } catch (err) {
    if (!before.includes(playerId)) update((s) => ({ muted: (s.muted ?? []).filter((id) => id !== playerId) }));
    setRoom(roomKey(room), { refusal: refusalOf(err) });
    return false;
  }
}

/** Shows a muted player's messages again: the rooms on the page are read again (the service left their messages out). */
export async function unmuteChat(playerId: string): Promise<boolean> {
  const mine = sessionOnly();
  if (!mine || getState().busy) return false;
  update({ chatNotice: '' });
  try {
    await mine.client.unmuteChatPlayer(playerId);
  } catch (err) {
    update({ chatNotice: refusalOf(err).message });
    return false;
  }
  const name = getState().mutedNames[playerId] || playerId;
  update((s) => ({ muted: (s.muted ?? []).filter((id) => id !== playerId), chatNotice: t('chatUnmutedNotice', { name }) }));
  rereadRooms();
  return true;
}

/** Every room followed, read again from its history (what the service hid from the reader may show now). */
function rereadRooms(): void {
  for (const [key, f] of [...followed]) {
    f.stop.abort();
    const again = { room: f.room, token: f.token, stop: new AbortController() };
    followed.set(key, again);
    void follow(f.room, f.token, again.stop);
  }
}

/** Reports another player's message with the player's reason (may be empty); whether the service took it. */
export async function reportChat(room: ChatRoomRef, messageId: bigint, reason: string): Promise<boolean> {
  const key = roomKey(room);
  const token = roomToken(room);
  if (!token) return false;
  setRoom(key, { refusal: null });
  update({ chatNotice: '' });
  try {
    await service().withToken(token).reportChatMessage(room, messageId, reason.trim());
    update((s) => ({ reported: { ...s.reported, [reportedKey(room, messageId)]: true }, chatNotice: t('chatReportSent') }));
    return true;
  } catch (err) {
    setRoom(key, { refusal: refusalOf(err) });
    return false;
  }
}

/** The sanction a CHAT_MUTED or CHAT_BANNED refusal tells (its metadata until_ms and note); null for another. */
export function sanctionOf(err: TrancaError): ChatSanction | null {
  if (err.reason !== 'CHAT_MUTED' && err.reason !== 'CHAT_BANNED') return null;
  const until = Number.parseInt(err.metadata.until_ms ?? '', 10);
  return {
    playerId: getState().account?.playerId ?? '',
    kind: err.reason === 'CHAT_BANNED' ? 'ban' : 'mute',
    untilMs: Number.isFinite(until) && until > 0 ? until : 0,
    note: err.metadata.note ?? '',
  };
}

/** A sanction told, kept (across reloads too, for its account) until it ends. */
function keepSanction(sanction: ChatSanction): void {
  update({ chatSanction: sanction });
  if (sanction.playerId) localStorage.setItem(SANCTION_KEY, JSON.stringify(sanction));
}

/** The sanction the page knew of is over (a message was taken). */
function liftSanction(): void {
  update({ chatSanction: null });
  localStorage.removeItem(SANCTION_KEY);
}

/** The account's sanction this browser was told of, while it lasts; null otherwise. */
export function savedSanction(playerId: string): ChatSanction | null {
  try {
    const saved = JSON.parse(localStorage.getItem(SANCTION_KEY) ?? 'null') as ChatSanction | null;
    if (!saved || saved.playerId !== playerId) return null;
    return saved.untilMs === 0 || saved.untilMs > Date.now() ? saved : null;
  } catch {
    return null;
  }
}

/** The player's own chat sanction now in force, or null (it ended, or was never told). */
export function activeSanction(s: Pick<State, 'chatSanction' | 'account' | 'now'>): ChatSanction | null {
  const sanction = s.chatSanction;
  if (!sanction) return null;
  if (sanction.playerId && s.account && sanction.playerId !== s.account.playerId) return null;
  return sanction.untilMs === 0 || sanction.untilMs > Math.max(s.now, Date.now()) ? sanction : null;
}

/** A moment in the page's language: its time today, else its day and time. */
function when(lang: Lang, ms: number): string {
  const at = new Date(ms);
  const today = new Date().toDateString() === at.toDateString();
  return today
    ? at.toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' })
    : at.toLocaleString(lang, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A sanction in words: what, until when, and the moderator's note. */
export function sanctionWords(lang: Lang, s: ChatSanction): string {
  const what =
    s.kind === 'ban'
      ? s.untilMs
        ? tr(lang, 'chatBannedUntil', { when: when(lang, s.untilMs) })
        : tr(lang, 'chatBannedForGood')
      : tr(lang, 'chatMutedUntil', { when: when(lang, s.untilMs) });
  return s.note ? `${what} ${tr(lang, 'chatModeratorNote', { note: s.note })}` : what;
}

function payloadOf(event: PlayerEvent): Record<string, unknown> | null {
  try {
    return JSON.parse(event.payloadJson) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** A "chat_sanction" event: the player's chat muted or banned; the chat box says so, and a notice tells it. */
export function onChatSanction(event: PlayerEvent): void {
  const p = payloadOf(event);
  if (!p) return;
  const sanction: ChatSanction = {
    playerId: getState().account?.playerId ?? '',
    kind: p.kind === 'ban' ? 'ban' : 'mute',
    untilMs: Number(p.until_ms ?? 0) || 0,
    note: typeof p.note === 'string' ? p.note : '',
  };
  keepSanction(sanction);
  update({ chatNotice: `${t('chatSanctionTold')} ${sanctionWords(getState().lang, sanction)}` });
}

/** A "chat_warning" event: the moderator's note, as a notice. */
export function onChatWarning(event: PlayerEvent): void {
  const p = payloadOf(event);
  if (!p) return;
  const note = typeof p.note === 'string' ? p.note : '';
  update({ chatNotice: note ? `${t('chatWarned')} ${t('chatModeratorNote', { note })}` : t('chatWarned') });
}
