// The seats around the table, seen from above: the player at the bottom, the partner
// opposite (four players), the opponents at the sides; whose turn it is, the turn's
// timer, each hand's size, robots.
import { type GameView, GameStatus, Relation, type SeatInfo } from '../../../src/index.js';
import { acceptFriend, addFriend, relationTo } from '../actions/friends.js';
import { html } from '../html.js';
import { tr, trn } from '../i18n/index.js';
import { placeOf, seatName, sideOf } from '../people.js';
import { getState, serverNow } from '../store.js';

/**
 * The seconds left in the turn at `serverClock` (the server's time now: a device's
 * own clock may be minutes off), or null: no limit, or a robot's turn (its deadline
 * is when the server has it play, at once).
 */
export function timeLeft(view: GameView, serverClock: number): number | null {
  if (view.turnDeadlineMs <= 0n || view.status !== GameStatus.PLAYING) return null;
  if (view.seats[view.turn]?.robot) return null;
  return Math.max(0, Math.ceil((Number(view.turnDeadlineMs) - serverClock) / 1000));
}

/** A country's name in the page's language (its code where the browser has none). */
function countryName(lang: string, code: string): string {
  try {
    return new Intl.DisplayNames([lang], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * Another player's seat, seen by a player with an account: "Add friend" (or Accept,
 * where they asked), or what they are already; nothing for robots, oneself, an
 * erased player or one the player blocked.
 */
function SeatFriend({ view, info }: { view: GameView; info: SeatInfo }) {
  const { lang, account, busy, friends } = getState();
  const id = info.playerId;
  if (!account || friends === null || !id || id === account.playerId || id.startsWith('erased-')) return null;
  const name = seatName(lang, view, info.seat);
  switch (relationTo(id)) {
    case Relation.FRIEND:
      return html`<span class="seat-friend" data-testid="seat-friend" data-relation="friend">${tr(lang, 'seatFriend')}</span>`;
    case Relation.REQUEST_SENT:
      return html`<span class="seat-friend" data-testid="seat-friend" data-relation="request_sent">${tr(lang, 'seatRequestSent')}</span>`;
    case Relation.REQUEST_RECEIVED:
      return html`<button type="button" class="small seat-friend" data-testid="seat-accept-friend" disabled=${busy}
        aria-label=${tr(lang, 'acceptNamed', { name })} onClick=${() => void acceptFriend(id, 'seat')}>${tr(lang, 'accept')}</button>`;
    case Relation.BLOCKED:
      return null;
    default:
      return html`<button type="button" class="secondary small seat-friend" data-testid="seat-add-friend" disabled=${busy}
        aria-label=${tr(lang, 'addFriendNamed', { name })} onClick=${() => void addFriend(id, 'seat')}>${tr(lang, 'addFriend')}</button>`;
  }
}

export function SeatPlate({ view, seat }: { view: GameView; seat: number }) {
  const state = getState();
  const lang = state.lang;
  const info = view.seats[seat]!;
  const place = placeOf(view, seat);
  const me = seat === view.seat;
  const partner = !me && view.players === 4 && view.seat >= 0 && sideOf(view, seat) === sideOf(view, view.seat);
  const turn = view.status === GameStatus.PLAYING && view.turn === seat;
  const left = turn ? timeLeft(view, serverNow(state)) : null;
  // A spectator's page names no one's role: it plays on no side.
  const role = view.seat < 0 ? '' : me ? tr(lang, 'you') : partner ? tr(lang, 'partner') : tr(lang, 'opponent');
  const profile = info.playerId ? state.profiles[info.playerId] : undefined;
  return html`<div
    class=${`seat seat-${place}${turn ? ' turn' : ''}${me ? ' me' : ''}${partner || me ? ' ours' : ' theirs'}`}
    data-seat=${seat}
    data-place=${place}
    data-hand-size=${info.handSize}
    data-robot=${info.robot ? 'true' : 'false'}
    data-automatic=${info.automatic ? 'true' : 'false'}
    aria-current=${turn ? 'true' : undefined}
  >
    ${profile?.avatarUrl
      ? html`<img class="avatar" src=${profile.avatarUrl} alt="" width="32" height="32" loading="lazy" referrerpolicy="no-referrer" />`
      : null}
    <strong class="seat-name">${seatName(lang, view, seat)}</strong>
    ${info.head
      ? html`<span class="head-star" data-testid="head-star" title=${tr(lang, 'tableHead')}>★<span class="visually-hidden"> ${tr(lang, 'tableHead')}</span></span>`
      : null}
    ${profile?.country
      ? html`<abbr class="seat-country" data-testid="seat-country" title=${countryName(lang, profile.country)}>${profile.country}</abbr>`
      : null}
    <span class="seat-role">${[role, info.automatic ? tr(lang, 'automaticMark') : info.robot ? tr(lang, me ? 'robotPlaying' : 'robot') : ''].filter(Boolean).join(' · ')}</span>
    ${me ? null : html`<${SeatFriend} view=${view} info=${info} />`}
    <span class="seat-cards"><span class="backs" aria-hidden="true">${'▮'.repeat(Math.min(info.handSize, 11))}</span> ${trn(lang, 'cards', info.handSize)}</span>
    ${turn
      ? html`<span class="seat-turn">${tr(lang, 'turn')}${left !== null
          ? html` · <span class="timer" data-testid="timer">${trn(lang, 'timeLeft', left)}</span>`
          : null}</span>`
      : null}
  </div>`;
}
