// The player's friends in the lobby (SocialService): their own player id to give
// others, their own presence (away, who sees it), each friend's presence (a dot and
// its words: online, away or offline, when last seen, the table they sit at), Watch
// beside each table of a friend's that takes spectators (actions/watching.ts; from the
// lobby only), a friend added by id, the requests received (Accept, Decline), the
// friends (Remove and Block, each confirmed in place; Invite at a waiting table), the
// requests sent (Cancel), the players blocked (Unblock) and those muted in chat
// (Unmute); a friend's conversation (Message, with the direct messages not read yet);
// the invitations to a table received (components/Invitations.ts). The list follows
// the player's events: a request made in another browser shows here without a reload.
import { type Friend, PresenceVisibility, Relation } from '../../../src/index.js';
import {
  RELATION_NAME,
  acceptFriend,
  addFriend,
  blockPlayer,
  cancelFriendRequest,
  declineFriend,
  friendName,
  removeFriend,
  setAway,
  setPresenceVisibility,
  unblockPlayer,
} from '../actions/friends.js';
import { watchTable } from '../actions/watching.js';
import { html } from '../html.js';
import { type Key, tr } from '../i18n/index.js';
import { presenceWords, statusName } from '../presence.js';
import { getState, serverNow } from '../store.js';
import { DirectButton, DirectChat, MutedPlayers } from './Chat.js';
import { ConfirmButton } from './Confirm.js';
import { InvitationsReceived, InviteFriend } from './Invitations.js';
import { Refusal } from './Refusal.js';

/** A player's presence, where they let the reader see it: a dot and its words. */
function PresenceBadge({ friend }: { friend: Friend }) {
  const state = getState();
  const { lang } = state;
  const status = statusName(friend.presence);
  if (!friend.presence || status === 'hidden') return null;
  return html`<span class="presence" data-testid="presence" data-status=${status}>
    <span class=${`presence-dot ${status}`} aria-hidden="true"></span>
    <span class="presence-text">${presenceWords(lang, friend.presence, serverNow(state))}</span>
  </span>`;
}

/**
 * Watch, beside each table of a friend's presence that takes spectators: the page
 * watches it as a spectator. Only from the lobby (a page at a table stays there).
 */
function WatchFriend({ friend }: { friend: Friend }) {
  const { lang, busy, seated } = getState();
  if (seated || friend.relation !== Relation.FRIEND || statusName(friend.presence) === 'hidden') return null;
  const tables = (friend.presence?.tables ?? []).filter((t) => t.spectatorsAllowed);
  if (tables.length === 0) return null;
  const name = friendName(friend);
  return html`<span class="watch-tables" data-testid="watch-tables">
    ${tables.map(
      (t, i) => html`<button type="button" class="small" data-testid="watch-table" data-game=${t.gameId} disabled=${busy}
        aria-label=${tables.length > 1 ? tr(lang, 'watchTableNumbered', { name, n: i + 1 }) : tr(lang, 'watchTableNamed', { name })}
        onClick=${() => void watchTable(t.gameId)}>${tr(lang, 'watchTable')}</button>`,
    )}
  </span>`;
}

const VISIBILITIES: readonly [PresenceVisibility, Key][] = [
  [PresenceVisibility.FRIENDS, 'visibilityFriends'],
  [PresenceVisibility.EVERYONE, 'visibilityEveryone'],
  [PresenceVisibility.NOBODY, 'visibilityNobody'],
];

/** The player's own presence: away or not, and who sees it. */
function MyPresence() {
  const { lang, presence, busy } = getState();
  if (!presence) return null;
  const shown = presence.visibility || PresenceVisibility.FRIENDS;
  return html`<fieldset class="presence-settings" data-testid="presence-settings">
    <legend>${tr(lang, 'presenceMine')}</legend>
    <label><input type="checkbox" data-testid="presence-away" checked=${presence.away} disabled=${busy}
      onChange=${(e: Event) => void setAway((e.target as HTMLInputElement).checked)} /> ${tr(lang, 'presenceAwayMine')}</label>
    <label>${tr(lang, 'presenceVisibility')}
      <select data-testid="presence-visibility" value=${String(shown)} disabled=${busy}
        onChange=${(e: Event) => void setPresenceVisibility(Number((e.target as HTMLSelectElement).value) as PresenceVisibility)}>
        ${VISIBILITIES.map(([v, label]) => html`<option value=${String(v)} selected=${v === shown}>${tr(lang, label)}</option>`)}
      </select></label>
  </fieldset>`;
}

/** One other player in a list: their name (their id too, where they have a name), and what can be done. */
function FriendRow({ friend }: { friend: Friend }) {
  const { lang, busy } = getState();
  const name = friendName(friend);
  const id = friend.playerId;
  const button = (testid: string, label: Key, onClick: () => void, secondary = true) =>
    html`<button type="button" class=${secondary ? 'secondary small' : 'small'} data-testid=${testid} disabled=${busy}
      onClick=${onClick}>${tr(lang, label)}</button>`;
  const block = html`<${ConfirmButton} testid="block-player" label="block" question="blockQuestion" yes="blockYes"
    params=${{ name }} onConfirm=${() => void blockPlayer(id)} />`;
  let actions;
  switch (friend.relation) {
    case Relation.REQUEST_RECEIVED:
      actions = html`${button('accept-friend', 'accept', () => void acceptFriend(id), false)}
        ${button('decline-friend', 'decline', () => void declineFriend(id))} ${block}`;
      break;
    case Relation.FRIEND:
      actions = html`<${DirectButton} friend=${friend} /> <${InviteFriend} friend=${friend} /> <${ConfirmButton} testid="remove-friend" label="remove" question="removeQuestion" yes="removeYes"
        params=${{ name }} onConfirm=${() => void removeFriend(id)} /> ${block}`;
      break;
    case Relation.REQUEST_SENT:
      actions = html`${button('cancel-friend-request', 'withdrawRequest', () => void cancelFriendRequest(id))} ${block}`;
      break;
    case Relation.BLOCKED:
      actions = button('unblock-player', 'unblock', () => void unblockPlayer(id));
      break;
    default:
      actions = null;
  }
  return html`<li data-testid="friend" data-player=${id} data-relation=${RELATION_NAME[friend.relation]}>
    <span class="friend-name">
      <strong data-testid="friend-name">${name}</strong>
      ${name !== id ? html` <span class="muted friend-id">${id}</span>` : null}
      <${PresenceBadge} friend=${friend} />
      <${WatchFriend} friend=${friend} />
    </span>
    <span class="friend-actions">${actions}</span>
  </li>`;
}

/** One kind of relation, under its heading; nothing where there is none (but friends). */
function Group({ relation, title, empty }: { relation: Relation; title: Key; empty?: Key }) {
  const { lang, friends } = getState();
  const mine = (friends ?? []).filter((f) => f.relation === relation);
  if (mine.length === 0 && !empty) return null;
  const id = `friends-${RELATION_NAME[relation]}`;
  return html`<div class="friend-group" data-testid=${id}>
    <h3 id=${id}>${tr(lang, title)}${mine.length > 0 ? ` (${mine.length})` : ''}</h3>
    ${mine.length === 0
      ? html`<p class="muted" data-testid="no-friends">${tr(lang, empty!)}</p>`
      : html`<ul class="table-list friend-list" aria-labelledby=${id}>
          ${mine.map((f) => html`<${FriendRow} key=${f.playerId} friend=${f} />`)}
        </ul>`}
  </div>`;
}

export function Friends() {
  const { lang, account, friends, busy, friendsNotice } = getState();
  if (!account) return null;
  const submit = (e: Event) => {
    e.preventDefault();
    const input = (e.target as HTMLFormElement).elements.namedItem('friend-id') as HTMLInputElement;
    const id = input.value.trim();
    if (!id) return;
    void addFriend(id).then((done) => {
      if (done) input.value = ''; // a refused id stays, to be corrected
    });
  };
  return html`<section class="friends" data-testid="friends" aria-labelledby="friends-title">
    <h2 id="friends-title">${tr(lang, 'friends')}</h2>
    <p class="muted my-id">${tr(lang, 'yourPlayerId')} <code data-testid="my-player-id">${account.playerId}</code></p>
    <${MyPresence} />
    <form class="add-friend" onSubmit=${submit}>
      <label>${tr(lang, 'friendId')}
        <input name="friend-id" data-testid="friend-id" defaultValue="" maxlength="128" autocomplete="off"
          spellcheck=${false} /></label>
      <button type="submit" class="small" data-testid="add-friend" disabled=${busy}>${tr(lang, 'addFriend')}</button>
    </form>
    <${Refusal} place="friends" />
    <p class="friends-notice" role="status" data-testid="friends-notice">${friendsNotice}</p>
    <${InvitationsReceived} />
    ${friends === null
      ? html`<p class="muted">${tr(lang, 'loading')}</p>`
      : html`<${Group} relation=${Relation.REQUEST_RECEIVED} title="friendRequestsReceived" />
          <${Group} relation=${Relation.FRIEND} title="friendsList" empty="friendsEmpty" />
          <${Group} relation=${Relation.REQUEST_SENT} title="friendRequestsSent" />
          <${Group} relation=${Relation.BLOCKED} title="blockedPlayers" />
          <${MutedPlayers} />
          <${DirectChat} />`}
  </section>`;
}
