// Chat (ChatService) where the player is: at a table, the players' room (free text
// where the table's mode allows it, the quick phrases in the page's language; a table
// of phrases only shows the phrases; an "off" table says so) and the spectators' room
// (a spectator writes there; the players read it at a practice table, at a rated one
// once the match is over, which the panel says until then); in the lobby, the app's
// room "main"; in the Friends panel, the conversation with a friend. Each message shows
// as the service sent it (masked words masked), with its edits and deletion applied
// live; the player's own recent messages may be edited, or deleted (confirmed in place).
// Beside another player's message: Report (a reason asked in place, then "reported")
// and Mute (their messages go from every room at once; the Friends panel lists the
// muted players, with Unmute). The player's own chat muted or banned by a moderator
// is said in words in the chat box (until when, and the moderator's note).
import { useEffect, useState } from 'preact/hooks';

import { type ChatMessage, type ChatRoomRef, type Friend, type GameView, rooms } from '../../../src/index.js';
import {
  activeSanction,
  canAmend,
  canMute,
  clearChatRefusal,
  deleteChat,
  editChat,
  followRoom,
  loadPhrases,
  muteChat,
  openDirect,
  phraseText,
  reportChat,
  reportedKey,
  roomKey,
  roomToken,
  sanctionWords,
  sendChat,
  spectatorsHeld,
  tableChatMode,
  unmuteChat,
  unmutedMessages,
} from '../actions/chat.js';
import { friendName } from '../actions/friends.js';
import { html } from '../html.js';
import { type Key, tr, trn } from '../i18n/index.js';
import { getState, serverNow } from '../store.js';
import { ConfirmButton } from './Confirm.js';

/** What the player may write in a room: nothing, quick phrases, free text (with the phrases, or without). */
type Writing = 'none' | 'phrases' | 'free' | 'text';

/** A DOM id made of a room's key. */
const idOf = (room: ChatRoomRef, what: string): string => `chat-${room.kind}-${room.id}-${what}`.replace(/[^\w-]/g, '_');

function MessageLine({ room, m }: { room: ChatRoomRef; m: ChatMessage }) {
  const state = getState();
  const { lang } = state;
  const [editing, setEditing] = useState(false);
  const amendable = canAmend(m, serverNow(state));
  const mine = Boolean(m.clientMessageId);
  const words = m.deleted ? tr(lang, 'chatDeleted') : m.kind === 'phrase' ? phraseText(m.phrase) : m.text;
  const author = m.authorName || (m.seat >= 0 ? tr(lang, 'seat', { n: m.seat + 1 }) : tr(lang, 'chatSomeone'));
  const save = (e: Event) => {
    e.preventDefault();
    const input = (e.target as HTMLFormElement).elements.namedItem('chat-edit') as HTMLInputElement;
    void editChat(room, m.id, input.value).then((done) => {
      if (done) setEditing(false);
    });
  };
  const editId = idOf(room, `edit-${m.id}`);
  const other = !mine && !m.deleted && Boolean(m.authorId) && m.authorId !== state.account?.playerId;
  return html`<li data-testid="chat-message" data-id=${String(m.id)} data-kind=${m.kind} data-phrase=${m.phrase}
    data-author=${m.authorId} data-seat=${m.seat} data-mine=${mine} data-deleted=${m.deleted}
    data-edited=${m.editedAtMs > 0n} data-filtered=${m.filtered} class=${m.deleted ? 'deleted' : ''}>
    <strong class="chat-author" data-testid="chat-author">${author}</strong>${': '}
    ${editing && amendable
      ? html`<form class="chat-edit" onSubmit=${save}>
          <label class="visually-hidden" for=${editId}>${tr(lang, 'chatEditLabel')}</label>
          <input id=${editId} name="chat-edit" data-testid="chat-edit-input" defaultValue=${m.text} maxlength="500"
            autocomplete="off" />
          <button type="submit" class="small" data-testid="chat-edit-save">${tr(lang, 'save')}</button>
          <button type="button" class="secondary small" data-testid="chat-edit-cancel" onClick=${() => setEditing(false)}>${tr(lang, 'cancel')}</button>
        </form>`
      : html`<span class="chat-text" data-testid="chat-text">${words}</span>`}
    ${m.editedAtMs > 0n && !m.deleted ? html` <span class="muted chat-mark" data-testid="chat-edited">${tr(lang, 'chatEdited')}</span>` : null}
    ${m.filtered && !m.deleted ? html` <span class="muted chat-mark" data-testid="chat-filtered">${tr(lang, 'chatFiltered')}</span>` : null}
    ${amendable && !editing
      ? html` <span class="chat-actions">
          ${m.kind === 'text'
            ? html`<button type="button" class="secondary small" data-testid="chat-edit" onClick=${() => setEditing(true)}>${tr(lang, 'chatEdit')}</button> `
            : null}
          <${ConfirmButton} testid="chat-delete" label="chatDelete" question="chatDeleteQuestion" yes="chatDeleteYes"
            onConfirm=${() => void deleteChat(room, m.id)} />
        </span>`
      : null}
    ${other && (m.kind === 'text' || m.kind === 'phrase') ? html`<${Moderation} room=${room} m=${m} author=${author} />` : null}
  </li>`;
}

/** Report and Mute beside another player's message: the report's reason asked in place, then "reported". */
function Moderation({ room, m, author }: { room: ChatRoomRef; m: ChatMessage; author: string }) {
  const { lang, reported } = getState();
  const [reporting, setReporting] = useState(false);
  const done = reported[reportedKey(room, m.id)] === true;
  const reasonId = idOf(room, `report-${m.id}`);
  const send = (e: Event) => {
    e.preventDefault();
    const input = (e.target as HTMLFormElement).elements.namedItem('chat-report-reason') as HTMLInputElement;
    void reportChat(room, m.id, input.value).then((sent) => {
      if (sent) setReporting(false); // a refused report keeps its reason, to send again
    });
  };
  if (reporting && !done) {
    return html`<form class="chat-report" data-testid="chat-report-form" onSubmit=${send}>
      <label for=${reasonId}>${tr(lang, 'chatReportReason', { name: author })}</label>
      <input id=${reasonId} name="chat-report-reason" data-testid="chat-report-reason" defaultValue="" maxlength="500"
        autocomplete="off" />
      <button type="submit" class="danger small" data-testid="chat-report-send">${tr(lang, 'chatReportSend')}</button>
      <button type="button" class="secondary small" data-testid="chat-report-cancel" onClick=${() => setReporting(false)}>${tr(lang, 'cancel')}</button>
    </form>`;
  }
  return html` <span class="chat-actions">
    ${done
      ? html`<span class="muted chat-mark" data-testid="chat-reported">${tr(lang, 'chatReported')}</span>`
      : html`<button type="button" class="secondary small" data-testid="chat-report" aria-label=${tr(lang, 'chatReportNamed', { name: author })}
          onClick=${() => setReporting(true)}>${tr(lang, 'chatReport')}</button>`}
    ${canMute()
      ? html`<button type="button" class="secondary small" data-testid="chat-mute" aria-label=${tr(lang, 'chatMuteNamed', { name: author })}
          onClick=${() => void muteChat(room, m.authorId, m.authorName)}>${tr(lang, 'chatMute')}</button>`
      : null}
  </span>`;
}

/** The player's own chat muted or banned by a moderator, in words: until when, and the note. */
function Sanctioned({ room }: { room: ChatRoomRef }) {
  const state = getState();
  const sanction = activeSanction(state);
  const refusal = state.chat[roomKey(room)]?.refusal;
  // Just refused for it: the refusal says the same words.
  if (!sanction || refusal?.reason === 'CHAT_MUTED' || refusal?.reason === 'CHAT_BANNED') return null;
  return html`<p class="chat-sanction" data-testid="chat-sanction" data-kind=${sanction.kind}>${sanctionWords(state.lang, sanction)}</p>`;
}

/** The box and button of free text, and the quick phrases' buttons, as the room allows. */
function Composer({ room, writing }: { room: ChatRoomRef; writing: Writing }) {
  const { lang, chat, phrases } = getState();
  const sending = chat[roomKey(room)]?.sending ?? false;
  const inputId = idOf(room, 'input');
  const submit = (e: Event) => {
    e.preventDefault();
    const input = (e.target as HTMLFormElement).elements.namedItem('chat-text') as HTMLInputElement;
    if (!input.value.trim()) return;
    void sendChat(room, { text: input.value }).then((done) => {
      if (done) input.value = ''; // a refused or failed text stays, to send again
    });
  };
  return html`<${Sanctioned} room=${room} />
    ${writing === 'free' || writing === 'text'
      ? html`<form class="chat-form" onSubmit=${submit}>
          <label class="visually-hidden" for=${inputId}>${tr(lang, 'chatMessage')}</label>
          <input id=${inputId} name="chat-text" data-testid="chat-input" defaultValue="" maxlength="500" autocomplete="off"
            placeholder=${tr(lang, 'chatPlaceholder')} />
          <button type="submit" class="small" data-testid="chat-send" disabled=${sending}>${tr(lang, 'chatSend')}</button>
        </form>`
      : null}
    ${writing === 'free' || writing === 'phrases'
      ? html`<div class="chat-phrases" role="group" aria-label=${tr(lang, 'chatPhrases')} data-testid="chat-phrases">
          ${phrases.map(
            (p) => html`<button type="button" class="secondary small" data-testid="chat-phrase" data-phrase=${p.id}
              disabled=${sending} onClick=${() => void sendChat(room, { phrase: p.id })}>${p.text}</button>`,
          )}
        </div>`
      : null}`;
}

/** One room: its messages (followed while the panel is on screen), a note, its refusal, and what the player may write. */
export function ChatRoomPanel({
  room,
  title,
  writing,
  note,
  testid,
}: {
  room: ChatRoomRef;
  title: string;
  writing: Writing;
  note?: Key;
  testid: string;
}) {
  const { lang, chat, muted } = getState();
  const key = roomKey(room);
  const token = roomToken(room);
  useEffect(() => followRoom(room), [key, token]);
  const state = chat[key];
  const titleId = idOf(room, 'title');
  const messages = unmutedMessages(state?.messages ?? [], muted);
  return html`<section class="chat-room" data-testid=${testid} data-room=${key} data-status=${state?.status ?? 'loading'}
    aria-labelledby=${titleId}>
    <h3 id=${titleId}>${title}</h3>
    ${messages.length === 0
      ? html`<p class="muted" data-testid="chat-empty">${tr(lang, state?.status === 'open' ? 'chatEmpty' : 'loading')}</p>`
      : null}
    <ol class="chat-messages" data-testid="chat-messages" aria-live="polite" aria-label=${title}>
      ${messages.map((m) => html`<${MessageLine} key=${String(m.id)} room=${room} m=${m} />`)}
    </ol>
    ${note ? html`<p class="muted chat-note" data-testid="chat-note">${tr(lang, note)}</p>` : null}
    ${state?.refusal
      ? html`<div class="refusal" role="alert" data-testid="chat-refusal" data-reason=${state.refusal.reason}>
          <span data-testid="chat-refusal-text">${state.refusal.message}</span>
          <button type="button" class="small secondary" aria-label=${tr(lang, 'close')} onClick=${() => clearChatRefusal(room)}>×</button>
        </div>`
      : null}
    ${writing !== 'none' ? html`<${Composer} room=${room} writing=${writing} />` : null}
  </section>`;
}

/** A room the player cannot open now, and why ("off", "held"). */
function ClosedRoom({ testid, title, status, says }: { testid: string; title: Key; status: string; says: Key }) {
  const lang = getState().lang;
  return html`<section class="chat-room" data-testid=${testid} data-status=${status} aria-labelledby=${`${testid}-title`}>
    <h3 id=${`${testid}-title`}>${tr(lang, title)}</h3>
    <p class="muted" data-testid=${`chat-${status}`}>${tr(lang, says)}</p>
  </section>`;
}

/** The quick phrases in the page's language, listed with `token` (again when the language changes). */
function usePhrases(token: string): void {
  const lang = getState().lang;
  useEffect(() => {
    void loadPhrases(token);
  }, [token, lang]);
}

/** A table's chat: the players' room and the spectators', as the reader's seat and the table allow. */
export function TableChat({ view }: { view: GameView }) {
  const { lang, seated } = getState();
  usePhrases(seated?.token ?? '');
  const mode = tableChatMode(view);
  const player = view.seat >= 0;
  const players =
    mode === 'off'
      ? html`<${ClosedRoom} testid="chat-table" title="chatPlayersRoom" status="off" says="chatOff" />`
      : html`<${ChatRoomPanel} room=${rooms.table(view.gameId)} title=${tr(lang, 'chatPlayersRoom')} testid="chat-table"
          writing=${player ? mode : 'none'} note=${player ? (mode === 'phrases' ? 'chatPhrasesOnly' : undefined) : 'chatPlayersOnly'} />`;
  const spectators = spectatorsHeld(view)
    ? html`<${ClosedRoom} testid="chat-spectators" title="chatSpectatorsRoom" status="held" says="chatSpectatorsHeld" />`
    : html`<${ChatRoomPanel} room=${rooms.spectators(view.gameId)} title=${tr(lang, 'chatSpectatorsRoom')}
        testid="chat-spectators" writing=${player ? 'none' : 'free'} note=${player ? 'chatSpectatorsOnly' : undefined} />`;
  return html`<section class="chat" data-testid="chat" aria-labelledby="chat-title">
    <h2 id="chat-title">${tr(lang, 'chat')}</h2>
    <${ChatNotice} />
    ${players}
    ${spectators}
  </section>`;
}

/** What a moderator told the player, or a report or mute just made, in words (a live region, there before it speaks). */
function ChatNotice() {
  const { chatNotice } = getState();
  return html`<p class="chat-notice" role="status" data-testid="chat-notice">${chatNotice}</p>`;
}

/** The players the page's player muted in chat, each with Unmute (in the Friends panel). */
export function MutedPlayers() {
  const { lang, muted, mutedNames, busy } = getState();
  if (!muted || muted.length === 0) return null;
  return html`<div class="friend-group" data-testid="muted-players">
    <h3 id="muted-players-title">${tr(lang, 'chatMutedPlayers')} (${muted.length})</h3>
    <ul class="table-list friend-list" aria-labelledby="muted-players-title">
      ${muted.map((id) => {
        const name = mutedNames[id] || id;
        return html`<li key=${id} data-testid="muted-player" data-player=${id}>
          <span class="friend-name"><strong data-testid="muted-name">${name}</strong>${name !== id
            ? html` <span class="muted friend-id">${id}</span>`
            : null}</span>
          <span class="friend-actions"><button type="button" class="secondary small" data-testid="unmute-player"
            aria-label=${tr(lang, 'chatUnmuteNamed', { name })} disabled=${busy}
            onClick=${() => void unmuteChat(id)}>${tr(lang, 'chatUnmute')}</button></span>
        </li>`;
      })}
    </ul>
  </div>`;
}

/** The lobby's room ("main") for the page's player. */
export function LobbyChat() {
  const { lang, account } = getState();
  const token = account ? roomToken(rooms.lobby('main')) : '';
  if (!account || !token) return null;
  return html`<section class="chat lobby-chat" data-testid="lobby-chat-panel" aria-labelledby="lobby-chat-title">
    <h2 id="lobby-chat-title">${tr(lang, 'chatLobby')}</h2>
    <${ChatNotice} />
    <${ChatRoomPanel} room=${rooms.lobby('main')} title=${tr(lang, 'chatLobbyRoom')} testid="chat-lobby" writing="text" />
  </section>`;
}

/** A friend's "Message" button, with the direct messages not read yet. */
export function DirectButton({ friend }: { friend: Friend }) {
  const { lang, unread, directWith } = getState();
  const n = unread[friend.playerId] ?? 0;
  const name = friendName(friend);
  const open = directWith === friend.playerId;
  return html`<button type="button" class="secondary small" data-testid="direct-open" data-unread=${n}
    aria-expanded=${open} aria-label=${n > 0 ? trn(lang, 'chatWithUnread', n, { name }) : tr(lang, 'chatWith', { name })}
    onClick=${() => openDirect(friend.playerId)}>${tr(lang, 'chatMessageFriend')}${n > 0
      ? html` <span class="unread" data-testid="unread" aria-hidden="true">${n}</span>`
      : null}</button>`;
}

/** The conversation open with a friend, below the Friends panel's lists. */
export function DirectChat() {
  const { lang, directWith, friends } = getState();
  const friend = friends?.find((f) => f.playerId === directWith);
  if (!friend) return null;
  return html`<${ChatRoomPanel} room=${rooms.direct(friend.playerId)} testid="chat-direct" writing="text"
    title=${tr(lang, 'chatWith', { name: friendName(friend) })} />`;
}
