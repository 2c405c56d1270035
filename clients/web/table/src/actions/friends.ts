// Friends and blocks (SocialService): the player's relations listed, each change made
// and shown at once from the answer, and the list read again when a "friendship"
// event comes on the player's event stream (WatchPlayerEvents), which the page follows
// for as long as it has a session: a request, an acceptance, a removal made in another
// browser shows without a reload. The last event read is kept, so a page opened again
// follows on from it rather than telling old news.
//
// Presence: each friend listed comes with theirs (online, away or offline, last seen,
// the tables they sit at), and the page reads the list again every PRESENCE_EVERY_MS
// and whenever it is shown again, since no event tells of a presence change. The open
// event stream keeps the page's own player online; the player may say they are away,
// and choose who sees their presence.
import {
  type Friend,
  type FriendChange,
  type PlayerEvent,
  type PresenceVisibility,
  Relation,
  type TrancaClient,
} from '../../../src/index.js';
import type { Key } from '../i18n/index.js';
import { type Place, getState, store, update } from '../store.js';
import { loadMuted, onChatSanction, onChatWarning, onDirectMessage, savedSanction } from './chat.js';
import { loadInvitations, onInvitationEvent } from './invitations.js';
import { loadProgression, onProgressionEvent } from './progression.js';
import { act, lobbyClient, savedSession, service, t } from './service.js';

const EVENTS_KEY = 'tranca.events'; // {"playerId", "afterId"}: the last event this browser read
const PAGE = 200; // ListFriends' largest page
const MOST_PAGES = 30; // 6,000 relations: more than the server's limits allow one player
const PRESENCE_EVERY_MS = 30_000; // the friends' presence read again this often

/** A relation as the page (and the friendship event's payload) names it. */
export const RELATION_NAME: Record<Relation, string> = {
  [Relation.UNSPECIFIED]: 'none',
  [Relation.FRIEND]: 'friend',
  [Relation.REQUEST_SENT]: 'request_sent',
  [Relation.REQUEST_RECEIVED]: 'request_received',
  [Relation.BLOCKED]: 'blocked',
};

/** The name a relation is shown with: the display name of their profile, else their id. */
export const friendName = (f: Pick<Friend, 'playerId' | 'profile'>): string =>
  f.profile?.displayName || f.playerId;

/** The caller's relation to a player, as the page last listed it. */
export function relationTo(playerId: string): Relation {
  return getState().friends?.find((f) => f.playerId === playerId)?.relation ?? Relation.UNSPECIFIED;
}

/** The client of the page's session (a guest's is signed in at the first call). */
async function sessionClient(): Promise<TrancaClient> {
  const saved = savedSession();
  return saved ? service().withToken(saved.accessToken) : lobbyClient();
}

let listing = 0;

/** Reads every relation of the page's player into the store (the latest reading wins). */
export async function loadFriends(): Promise<void> {
  const saved = savedSession();
  if (!saved?.playerId) return;
  const mine = (listing += 1);
  const client = service().withToken(saved.accessToken);
  const friends: Friend[] = [];
  let pageToken = '';
  for (let page = 0; page < MOST_PAGES; page += 1) {
    const out = await client.listFriends({ pageSize: PAGE, pageToken });
    friends.push(...out.friends);
    pageToken = out.nextPageToken;
    if (!pageToken) break;
  }
  const [presence] = await client.getPresence([saved.playerId]);
  if (mine === listing && getState().account?.playerId === saved.playerId) {
    update({ friends, presence: presence ?? null });
  }
}

/** The player's own presence changed (away, or who sees it); the answer kept. */
async function changePresence(away: boolean | undefined, visibility: PresenceVisibility | undefined): Promise<boolean> {
  if (getState().busy) return false;
  const done = await act('friends', async () => {
    const presence = await (await sessionClient()).setPresence({ away, visibility });
    update({ presence });
    return true;
  });
  return done === true;
}

export const setAway = (away: boolean): Promise<boolean> => changePresence(away, undefined);
export const setPresenceVisibility = (visibility: PresenceVisibility): Promise<boolean> =>
  changePresence(undefined, visibility);

/** One relation as an answer gave it, put in the list in its place (relation none: out of it). */
function keepFriend(friend: Friend): void {
  update((s) => {
    const others = (s.friends ?? []).filter((f) => f.playerId !== friend.playerId);
    if (friend.relation !== Relation.UNSPECIFIED) others.push(friend);
    others.sort((a, b) => (a.playerId < b.playerId ? -1 : a.playerId > b.playerId ? 1 : 0));
    return { friends: others };
  });
}

/** The notice after a change the player made, by the relation it left. */
function noticeOf(change: FriendChange, asked: Key): string {
  const name = friendName(change.friend);
  if (change.friend.relation === Relation.FRIEND) return t('friendAdded', { name });
  return t(asked, { name });
}

/**
 * One change of relation, its refusal shown at `place`, its answer kept and told:
 * whether the service made it (false: refused, or another action was under way).
 */
async function change(
  place: Place,
  playerId: string,
  send: (client: TrancaClient, playerId: string) => Promise<FriendChange>,
  notice: Key,
): Promise<boolean> {
  const id = playerId.trim();
  if (!id || getState().busy) return false;
  update({ friendsNotice: '' });
  const done = await act(place, async () => {
    const out = await send(await sessionClient(), id);
    keepFriend(out.friend);
    update({ friendsNotice: noticeOf(out, notice) });
    return true;
  });
  return done === true;
}

export const addFriend = (playerId: string, place: Place = 'friends'): Promise<boolean> =>
  change(place, playerId, (c, id) => c.addFriend(id), 'friendRequested');
export const acceptFriend = (playerId: string, place: Place = 'friends'): Promise<boolean> =>
  change(place, playerId, (c, id) => c.acceptFriend(id), 'friendAdded');
export const declineFriend = (playerId: string): Promise<boolean> =>
  change('friends', playerId, (c, id) => c.declineFriend(id), 'friendDeclined');
export const cancelFriendRequest = (playerId: string): Promise<boolean> =>
  change('friends', playerId, (c, id) => c.cancelFriendRequest(id), 'friendCancelled');
export const removeFriend = (playerId: string): Promise<boolean> =>
  change('friends', playerId, (c, id) => c.removeFriend(id), 'friendRemoved');
export const blockPlayer = (playerId: string): Promise<boolean> =>
  change('friends', playerId, (c, id) => c.blockPlayer(id), 'playerBlocked');
export const unblockPlayer = (playerId: string): Promise<boolean> =>
  change('friends', playerId, (c, id) => c.unblockPlayer(id), 'playerUnblocked');

// ----- the player's events ---------------------------------------------------------------

interface Followed {
  playerId: string;
  stop: AbortController;
}

let followed: Followed | null = null;
let followedId: string | null = null; // the account followed ('': none), set before any update

function savedAfter(playerId: string): bigint | null {
  try {
    const saved = JSON.parse(localStorage.getItem(EVENTS_KEY) ?? 'null') as { playerId: string; afterId: string } | null;
    return saved?.playerId === playerId ? BigInt(saved.afterId) : null;
  } catch {
    return null;
  }
}

function saveAfter(playerId: string, afterId: bigint): void {
  localStorage.setItem(EVENTS_KEY, JSON.stringify({ playerId, afterId: String(afterId) }));
}

/** The id of the player's newest event: where a browser that never read them starts. */
async function newestEventId(client: TrancaClient): Promise<bigint> {
  let after = 0n;
  for (let page = 0; page < 100; page += 1) {
    const out = await client.listPlayerEvents({ afterId: after, pageSize: 500 });
    after = out.nextAfterId;
    if (out.events.length < 500) break;
  }
  return after;
}

const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

let refreshing: ReturnType<typeof setTimeout> | null = null;
let told: { change: string; playerId: string } | null = null;

/** A friendship event: the list read again (once for a burst of them), the news told. */
function onFriendship(event: PlayerEvent, me: string): void {
  try {
    const payload = JSON.parse(event.payloadJson) as { player_id?: string; change?: string; by?: string };
    if (payload.by && payload.by !== me && payload.player_id && (payload.change === 'requested' || payload.change === 'accepted')) {
      told = { change: payload.change, playerId: payload.player_id };
    }
  } catch {
    // a payload the page cannot read: the list read again says what holds
  }
  if (refreshing) clearTimeout(refreshing);
  refreshing = setTimeout(() => {
    refreshing = null;
    void loadFriends()
      .then(() => {
        const news = told;
        told = null;
        if (!news) return;
        const friend = getState().friends?.find((f) => f.playerId === news.playerId);
        const name = friend ? friendName(friend) : news.playerId;
        if (news.change === 'requested' && friend?.relation === Relation.REQUEST_RECEIVED) {
          update({ friendsNotice: t('friendAsked', { name }) });
        } else if (news.change === 'accepted' && friend?.relation === Relation.FRIEND) {
          update({ friendsNotice: t('friendAdded', { name }) });
        }
      })
      .catch(() => undefined);
  }, 100);
}

/** Follows one player's events until `stop`: a dropped stream is opened again, after a pause. */
async function follow(playerId: string, stop: AbortController): Promise<void> {
  let after: bigint | null = savedAfter(playerId);
  for (let failures = 0; !stop.signal.aborted; ) {
    const saved = savedSession();
    if (!saved || saved.playerId !== playerId) return; // signed out, or a stale session: the next account follows
    const client = service().withToken(saved.accessToken);
    try {
      if (after === null) {
        after = await newestEventId(client);
        saveAfter(playerId, after);
      }
      for await (const event of client.watchPlayerEvents(after, { signal: stop.signal })) {
        failures = 0;
        after = event.id;
        saveAfter(playerId, after);
        if (event.kind === 'friendship') onFriendship(event, playerId);
        else if (event.kind === 'direct_message') onDirectMessage(event);
        else if (event.kind === 'table_invitation') onInvitationEvent(event);
        else if (event.kind === 'chat_sanction') onChatSanction(event);
        else if (event.kind === 'chat_warning') onChatWarning(event);
        else if (event.kind === 'achievement_unlocked' || event.kind === 'level_up') onProgressionEvent(event);
      }
    } catch {
      failures += 1;
    }
    // The stream ended (or could not open): the list read again, in case an event was missed.
    await pause(Math.min(60_000, 1000 * 2 ** Math.min(failures, 6)), stop.signal);
    if (!stop.signal.aborted) {
      void loadFriends().catch(() => undefined);
      void loadInvitations().catch(() => undefined);
      void loadProgression().catch(() => undefined);
    }
  }
}

/** Reads the list again every PRESENCE_EVERY_MS until `stop`: the friends' presence changes unannounced. */
function pollPresence(stop: AbortController): void {
  const timer = setInterval(() => void loadFriends().catch(() => undefined), PRESENCE_EVERY_MS);
  stop.signal.addEventListener('abort', () => clearInterval(timer));
}

/** The page shown again (a tab brought back): the friends' presence read at once. */
function onShown(): void {
  if (document.visibilityState === 'visible' && followed) void loadFriends().catch(() => undefined);
}

/** Starts (or moves) the following of the account's events and friends when the account changes. */
function onAccount(): void {
  const playerId = getState().account?.playerId ?? '';
  if (followedId === playerId) return;
  followedId = playerId;
  followed?.stop.abort();
  followed = playerId ? { playerId, stop: new AbortController() } : null;
  update({
    friends: null,
    friendsNotice: '',
    presence: null,
    muted: null,
    chatNotice: '',
    chatSanction: playerId ? savedSanction(playerId) : null,
    progress: null,
    progressNotice: '',
  });
  if (!followed) return;
  void loadFriends().catch(() => undefined);
  void loadProgression().catch(() => undefined);
  void loadMuted().catch(() => undefined);
  void follow(playerId, followed.stop);
  pollPresence(followed.stop);
}

/** Follows the page's account from now on (main.ts calls it once). */
export function followFriends(): void {
  store.subscribe(onAccount);
  document.addEventListener('visibilitychange', onShown);
  onAccount();
}

/** Closes the event stream as the page goes (a reload, a tab closed). */
export function stopFollowing(): void {
  followed?.stop.abort();
}
