// Invitations to a table (actions/invitations.ts), in the places a player meets them:
// the lobby's "New table" (a private table, spectators allowed) and a table joined by
// its id (and invite code); at a waiting table, its id, its invite code (for its
// opener) and the friends panel (Table.ts shows it there), where each friend has Invite (a seat, or to watch)
// and then what became of the invitation (Cancel while it waits); in the friends
// panel, the invitations received, with who invites, the table and when it expires,
// Accept and Decline.
import { type Friend, type GameView, GameStatus, InvitationStatus, type TableInvitation } from '../../../src/index.js';
import {
  acceptInvitation,
  cancelInvitation,
  declineInvitation,
  invite,
  inviterName,
  isSeat,
  joinById,
  ownTable,
  sentTo,
  stillPending,
} from '../actions/invitations.js';
import { friendName } from '../actions/friends.js';
import { html } from '../html.js';
import { tr, trn } from '../i18n/index.js';
import { type TableSetup, getState, saveSetup, serverNow, update } from '../store.js';

function setSetup(patch: Partial<TableSetup>): void {
  update((s) => ({ setup: { ...s.setup, ...patch } }));
  saveSetup(getState().setup);
}

/** The minutes until an invitation expires, counted by the server's clock (to the nearest, at least 1 while it waits). */
const minutesLeft = (inv: TableInvitation): number =>
  Math.max(1, Math.round((Number(inv.expiresMs) - serverNow(getState())) / 60_000));

/** The lobby's "New table" options of a player with an account: a private table, spectators allowed. */
export function NewTableOptions() {
  const { lang, account, setup } = getState();
  if (!account) return null;
  return html`<label class="check"><input type="checkbox" data-testid="opt-private" checked=${setup.privateTable && !setup.robots}
      disabled=${setup.robots} aria-describedby="opt-private-hint"
      onChange=${(e: Event) => setSetup({ privateTable: (e.target as HTMLInputElement).checked })} /> ${tr(lang, 'privateTable')}</label>
    <p class="muted hint" id="opt-private-hint">${tr(lang, setup.robots ? 'privateTableRobots' : 'privateTableHint')}</p>
    <label class="check"><input type="checkbox" data-testid="opt-spectators" checked=${setup.spectators}
      onChange=${(e: Event) => setSetup({ spectators: (e.target as HTMLInputElement).checked })} /> ${tr(lang, 'allowSpectators')}</label>`;
}

/** The lobby's form to sit at a table by its id, with its invite code where it is private. */
export function JoinById() {
  const { lang, busy } = getState();
  const submit = (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const value = (n: string) => (form.elements.namedItem(n) as HTMLInputElement).value;
    void joinById(value('join-game-id'), value('join-code'));
  };
  return html`<details class="new-table join-by-id" data-testid="join-by-id">
    <summary>${tr(lang, 'joinById')}</summary>
    <form class="join-form" onSubmit=${submit}>
      <label>${tr(lang, 'joinGameId')}
        <input name="join-game-id" data-testid="join-game-id" defaultValue="" maxlength="64" autocomplete="off" spellcheck=${false} /></label>
      <label>${tr(lang, 'joinCode')}
        <input name="join-code" data-testid="join-code" defaultValue="" maxlength="64" autocomplete="off" spellcheck=${false} /></label>
      <button type="submit" data-testid="join-by-id-submit" disabled=${busy}>${tr(lang, 'join')}</button>
    </form>
  </details>`;
}

/**
 * A friend's invitation to the waiting table the page sits at: Invite (a seat, and to
 * watch where the table allows spectators), or what became of the last one sent
 * (Cancel while it waits); "at this table" once they sit at it.
 */
export function InviteFriend({ friend }: { friend: Friend }) {
  const { lang, busy, view, seated } = getState();
  if (!seated || !view || view.gameId !== seated.gameId || view.status !== GameStatus.WAITING || view.seat < 0) return null;
  const id = friend.playerId;
  const name = friendName(friend);
  if (view.seats.some((s) => s.playerId === id)) {
    return html`<span class="invite-state" data-testid="invite-state" data-state="seated">${tr(lang, 'atThisTable')}</span>`;
  }
  const sent = sentTo(view.gameId, id);
  if (sent && stillPending(sent)) {
    return html`<span class="invite-state" data-testid="invite-state" data-state="pending" data-invitation=${sent.invitationId}>
        ${tr(lang, isSeat(sent) ? 'invitedSeat' : 'invitedWatch')} · ${trn(lang, 'invitationExpires', minutesLeft(sent))}</span>
      <button type="button" class="secondary small" data-testid="cancel-invitation" disabled=${busy}
        aria-label=${tr(lang, 'cancelInvitationNamed', { name })} onClick=${() => void cancelInvitation(sent)}>${tr(lang, 'cancel')}</button>`;
  }
  const ended =
    sent?.status === InvitationStatus.DECLINED
      ? 'declined'
      : sent?.status === InvitationStatus.ACCEPTED
        ? 'accepted'
        : sent && sent.status !== InvitationStatus.CANCELLED
          ? 'expired'
          : '';
  const endedWords = { declined: 'inviteDeclinedMark', accepted: 'inviteAcceptedMark', expired: 'inviteExpiredMark' } as const;
  const watchable = ownTable(view.gameId)?.spectators ?? false;
  return html`${ended
      ? html`<span class="invite-state" data-testid="invite-state" data-state=${ended}>${tr(lang, endedWords[ended])}</span>`
      : null}
    <button type="button" class="small" data-testid="invite-friend" disabled=${busy}
      aria-label=${tr(lang, 'inviteNamed', { name })} onClick=${() => void invite(id)}>${tr(lang, 'invite')}</button>
    ${watchable
      ? html`<button type="button" class="secondary small" data-testid="invite-friend-watch" disabled=${busy}
          aria-label=${tr(lang, 'inviteWatchNamed', { name })} onClick=${() => void invite(id, true)}>${tr(lang, 'inviteWatch')}</button>`
      : null}`;
}

/** One invitation received: who invites, to what, the table, when it expires; Accept and Decline. */
function InvitationRow({ inv }: { inv: TableInvitation }) {
  const { lang, busy } = getState();
  const name = inviterName(inv);
  return html`<li data-testid="invitation" data-invitation=${inv.invitationId} data-game=${inv.gameId} data-from=${inv.fromPlayerId}
    data-kind=${isSeat(inv) ? 'seat' : 'watch'}>
    <span class="friend-name">
      <strong data-testid="invitation-from">${tr(lang, isSeat(inv) ? 'invitationFrom' : 'invitationWatchFrom', { name })}</strong>
      <span class="muted" data-testid="invitation-table"> · ${tr(lang, 'invitationTable', { preset: inv.preset, players: inv.players })}${inv.label ? ` · ${inv.label}` : ''}</span>
      <span class="muted" data-testid="invitation-expires"> · ${trn(lang, 'invitationExpires', minutesLeft(inv))}</span>
    </span>
    <span class="friend-actions">
      <button type="button" class="small" data-testid="accept-invitation" disabled=${busy}
        aria-label=${tr(lang, 'acceptInvitationNamed', { name })} onClick=${() => void acceptInvitation(inv)}>${tr(lang, 'accept')}</button>
      <button type="button" class="secondary small" data-testid="decline-invitation" disabled=${busy}
        aria-label=${tr(lang, 'declineInvitationNamed', { name })} onClick=${() => void declineInvitation(inv)}>${tr(lang, 'decline')}</button>
    </span>
  </li>`;
}

/** The friends panel's "Invitations": those received that still wait for an answer; nothing when none. */
export function InvitationsReceived() {
  const state = getState();
  const { lang, invitationsReceived, invitationsNotice, seated } = state;
  const now = serverNow(state);
  const waiting = (invitationsReceived ?? []).filter((i) => stillPending(i, now) && i.gameId !== seated?.gameId);
  return html`<p class="friends-notice" role="status" data-testid="invitations-notice">${invitationsNotice}</p>
    ${waiting.length === 0
      ? null
      : html`<div class="friend-group" data-testid="invitations">
          <h3 id="invitations-title">${tr(lang, 'invitations')} (${waiting.length})</h3>
          <ul class="table-list friend-list" aria-labelledby="invitations-title">
            ${waiting.map((inv) => html`<${InvitationRow} key=${inv.invitationId} inv=${inv} />`)}
          </ul>
        </div>`}`;
}

/**
 * At a waiting table the page sits at: its id (to give) and its invite code (to its
 * opener, at a private table), above the friends panel, where each friend can be invited.
 */
export function WaitingInvites({ view }: { view: GameView }) {
  const { lang, account } = getState();
  if (!account || view.seat < 0) return null;
  const own = ownTable(view.gameId);
  const privateTable = Boolean(view.table?.private);
  return html`<div class="waiting-invites" data-testid="waiting-invites" data-private=${privateTable ? 'true' : 'false'}>
      <p class="muted my-id">${tr(lang, privateTable ? 'privateTableId' : 'tableId')} <code data-testid="table-id">${view.gameId}</code></p>
      ${privateTable && own?.inviteCode
        ? html`<p class="muted my-id">${tr(lang, 'inviteCode')} <code data-testid="invite-code">${own.inviteCode}</code></p>`
        : null}
      <p class="muted">${tr(lang, 'inviteFriendsHint')}</p>
    </div>`;
}
