// The table seen from above: the score and whose turn it is on top, the seats in their
// places around the felt (the player at the bottom, the partner opposite), both sides'
// melds, the stock, the pile and the mortos in the middle; then the hand, the moves
// and the log; the end-of-deal board while it is open. A spectator (seat -1) sees no
// hand and no moves: a "You are watching" line with Stop watching instead.
import { useEffect } from 'preact/hooks';

import { type GameView, GameStatus, Phase } from '../../../src/index.js';
import { myTurn, reclaimSeat, resign, setAutomatic, startTable } from '../actions/table.js';
import { stopWatchingTable } from '../actions/watching.js';
import { html } from '../html.js';
import { tr } from '../i18n/index.js';
import { mySide, seatName, sideName } from '../people.js';
import { getState, serverNow } from '../store.js';
import { ActionBar, canAdd } from './ActionBar.js';
import { TableChat } from './Chat.js';
import { Center } from './Center.js';
import { ConfirmButton } from './Confirm.js';
import { DealEnd } from './DealEnd.js';
import { Friends } from './Friends.js';
import { Hand } from './Hand.js';
import { WaitingInvites } from './Invitations.js';
import { Log } from './Log.js';
import { Melds } from './Melds.js';
import { Refusal } from './Refusal.js';
import { HeldSeats, seatLine } from './Rematch.js';
import { SeatPlate, timeLeft } from './Seats.js';
import { ConsentPrompt, TableOptionsPanel } from './TableOptions.js';

function Status({ view }: { view: GameView }) {
  const state = getState();
  const { lang, reconnecting } = state;
  const mine = myTurn(view);
  const phase = view.phase === Phase.DRAW ? tr(lang, 'drawPhase') : view.phase === Phase.PLAY ? tr(lang, 'playPhase') : '';
  const me = mySide(view);
  const sides = view.matchTotals.map((_, side) => side).sort((a, b) => (a === me ? -1 : b === me ? 1 : a - b));
  const limit = Number(view.table?.pointLimit ?? 0n);
  const left = mine ? timeLeft(view, serverNow(state)) : null;
  const playing = view.status === GameStatus.PLAYING;
  return html`<div
    class=${`status${mine ? ' mine' : ''}`}
    data-testid="status"
    data-version=${String(view.version)}
    data-turn=${view.turn}
    data-phase=${view.phase}
    data-status=${view.status}
    data-deal=${view.dealNumber}
  >
    <div class="score" data-testid="score" aria-label=${tr(lang, 'score')}>
      ${view.dealNumber > 0 ? html`<span class="deal-no">${tr(lang, 'deal', { n: view.dealNumber })}</span>` : null}
      ${sides.map(
        (side) => html`<span class=${`side-score${side === me ? ' ours' : ' theirs'}`} data-side=${side}>
          ${sideName(lang, view, side)} <strong>${String(view.matchTotals[side] ?? 0n)}</strong></span>`,
      )}
      <span class="muted">${limit > 0 ? tr(lang, 'target', { n: limit }) : tr(lang, 'oneDeal')}</span>
    </div>
    <p class="turn-line">
      <span aria-live="polite" data-testid="turn">${playing ? (mine ? html`<strong>${tr(lang, 'yourTurn')}</strong>: ${phase}` : tr(lang, 'turnOf', { name: seatName(lang, view, view.turn) })) : null}</span>
      ${left !== null ? html` · <span class="timer">${tr(lang, 'timeLeft_other', { n: left })}</span>` : null}
      ${reconnecting ? html` <span class="warn">${tr(lang, 'connectionLost')}</span>` : null}
      ${playing && view.seat >= 0 && !view.seats[view.seat]?.robot
        ? html` <button type="button" class="secondary small" data-testid="automatic-on" disabled=${getState().busy}
            title=${tr(lang, 'automaticHint')} onClick=${() => void setAutomatic(true)}>${tr(lang, 'automaticOn')}</button>`
        : null}
      ${playing && view.seat >= 0
        ? html` <${ConfirmButton} testid="resign" label="leave" question="resignQuestion" yes="resignYes"
            onConfirm=${() => void resign()} />`
        : null}
    </p>
  </div>`;
}

function RobotBanner({ view }: { view: GameView }) {
  const { lang, busy } = getState();
  const robot = view.seat >= 0 && view.seats[view.seat]?.robot && view.status === GameStatus.PLAYING;
  // Automatic mode is the player's own choice: said so, and switched off from here.
  if (robot && view.seats[view.seat]?.automatic) {
    return html`<${Refusal} place="seat" /><div class="banner" data-testid="automatic-playing" role="status">
        <span>${tr(lang, 'automaticPlaying')}</span>
        <button type="button" data-testid="automatic-off" disabled=${busy} onClick=${() => void setAutomatic(false)}>${tr(lang, 'automaticOff')}</button>
      </div>`;
  }
  return html`<${Refusal} place="seat" />${robot
    ? html`<div class="banner" data-testid="robot-playing" role="status">
        <span>${tr(lang, 'robotTookSeat')}</span>
        <button type="button" data-testid="reclaim-seat" disabled=${busy} onClick=${() => void reclaimSeat()}>${tr(lang, 'reclaim')}</button>
      </div>`
    : null}`;
}

/** A spectator's line: the page watches this table (every hand hidden), and Stop watching back to the lobby. */
function Watching({ view }: { view: GameView }) {
  const { lang } = getState();
  if (view.seat >= 0) return null;
  return html`<div class="banner watching" data-testid="watching" role="status">
      <span data-testid="watching-text">${tr(lang, 'watchingTable')}</span>
      <button type="button" class="secondary small" data-testid="stop-watching" onClick=${stopWatchingTable}>${tr(lang, 'stopWatching')}</button>
    </div>`;
}

function Felt({ view }: { view: GameView }) {
  const lang = getState().lang;
  const me = mySide(view);
  const them = view.players === 4 ? 1 - me : view.seat === 1 ? 0 : 1;
  const mineOrFirst = view.seat >= 0 ? view.seat : 0; // a spectator sees the first seat at the bottom
  const others = view.seats.filter((s) => s.seat !== mineOrFirst);
  return html`<div class=${`felt players-${view.players}`} role="region" aria-label=${tr(lang, 'tableRegion')}>
    ${others.map((s) => html`<${SeatPlate} view=${view} seat=${s.seat} />`)}
    <div class="theirs-area">
      <${Melds} title=${view.players === 4 && view.seat >= 0 ? tr(lang, 'theirMelds') : sideName(lang, view, them)} testid="their-melds" side=${them} melds=${view.melds} redThrees=${view.redThrees} />
    </div>
    <${Center} view=${view} />
    <div class="ours-area">
      <${Melds}
        title=${view.seat < 0 ? sideName(lang, view, me) : tr(lang, view.players === 4 ? 'ourMelds' : 'yourMelds')}
        testid="our-melds"
        side=${me}
        melds=${view.melds}
        redThrees=${view.redThrees}
        onAdd=${canAdd(view)}
      />
    </div>
    <${SeatPlate} view=${view} seat=${mineOrFirst} />
  </div>`;
}

export function Table() {
  const { lang, view, seated } = getState();
  const waiting = view?.status === GameStatus.WAITING;
  const full = Boolean(view && view.seats.every((s) => s.taken));
  // A seat still to agree to a stake or rated play the head set: no start yet.
  const agreed = Boolean(view && !view.seats.some((s) => s.consentPending));
  useEffect(() => {
    // A table open to others starts when its last seat is taken (and every seat agrees
    // to its stake), by its first seat's page.
    if (waiting && full && agreed && view?.seat === 0) void startTable();
  }, [waiting, full, agreed, view?.seat]);
  if (!view || !seated) return html`<p role="status">${tr(lang, 'loading')}</p><${Refusal} place="table" />`;
  if (waiting) {
    const taken = view.seats.filter((s) => s.taken).length;
    return html`<section class="lobby" data-testid="table" data-game=${view.gameId} data-seat=${view.seat}>
      <${Watching} view=${view} />
      <p data-testid="waiting-players">${tr(lang, 'waitingPlayers', { taken, players: view.players })}</p>
      <${HeldSeats} view=${view} />
      <ul class="seats-list">${view.seats.map(
        // The head's star is the stylesheet's (its name stays the seat's whole text);
        // the line below says it in words. A seat a rematch holds says so.
        (s) => html`<li data-testid="waiting-seat" data-seat=${s.seat} data-taken=${s.taken ? 'true' : 'false'} class=${s.head ? 'head' : ''} data-head=${s.head ? 'true' : 'false'} data-consent-pending=${s.consentPending ? 'true' : 'false'}>${seatLine(lang, view, s.seat)}</li>`,
      )}</ul>
      ${view.headSeat >= 0
        ? html`<p class="muted" data-testid="table-head"><span class="head-star" aria-hidden="true">★</span> ${tr(lang, 'tableHeadIs', { name: seatName(lang, view, view.headSeat) })}</p>`
        : null}
      <${ConsentPrompt} view=${view} />
      <${TableOptionsPanel} view=${view} />
      <${Refusal} place="table" />
      <${WaitingInvites} view=${view} />
    </section>
    <${Friends} />`;
  }
  return html`<div class="table" data-testid="table" data-game=${view.gameId} data-seat=${view.seat}>
    ${view.seat >= 0 ? html`<a class="skip" href="#hand">${tr(lang, 'skipToHand')}</a>` : null}
    <${Status} view=${view} />
    <${TableOptionsPanel} view=${view} />
    <${Watching} view=${view} />
    ${view.seat < 0 ? html`<${Refusal} place="table" />` : null}
    <${RobotBanner} view=${view} />
    <${DealEnd} view=${view} />
    <${Felt} view=${view} />
    ${view.status === GameStatus.PLAYING && view.seat >= 0
      ? html`<div class="play-area">
          <${Hand} view=${view} />
          <${ActionBar} view=${view} />
        </div>`
      : null}
    <${Log} view=${view} />
    <${TableChat} view=${view} />
  </div>`;
}
