// Tables that outlive their match: at a finished match, Rematch (the page then sits at
// the same seat of the table's next match), who has confirmed and how long the others'
// seats are held; at the next match, still waiting, the seats held for the last
// match's players; and, at both, the matches played at the table so far.
import { useEffect } from 'preact/hooks';

import { type GameView, GameStatus, type TableMatch } from '../../../src/index.js';
import { confirmRematch, followFinishedMatch, loadTableMatches } from '../actions/rematch.js';
import { html } from '../html.js';
import { type Lang, tr } from '../i18n/index.js';
import { seatName, sideName } from '../people.js';
import { getState, serverNow } from '../store.js';

/** Seconds left until the held seats are freed (0: none held, or the time is up). */
function holdLeft(view: GameView): number {
  const until = Number(view.rematchHoldUntilMs);
  return until > 0 ? Math.max(0, Math.floor((until - serverNow(getState())) / 1000)) : 0;
}

/** The finished match's Rematch: the button, who confirmed, the time the others' seats are held. */
export function RematchPanel({ view }: { view: GameView }) {
  const { lang, busy } = getState();
  useEffect(() => followFinishedMatch(), []);
  useEffect(() => void loadTableMatches(view.gameId), [view.gameId]);
  if (view.status !== GameStatus.FINISHED || view.seat < 0) return null;
  const confirmed = view.nextGameId ? view.rematchSeats : [];
  const left = holdLeft(view);
  const names = confirmed.map((s) => seatName(lang, view, s)).join(', ');
  return html`<section class="rematch" data-testid="rematch-panel" data-next=${view.nextGameId} aria-label=${tr(lang, 'rematch')}>
    <p data-testid="rematch-confirmed" data-seats=${confirmed.join(',')}>
      ${confirmed.length ? tr(lang, 'rematchConfirmed', { names }) : tr(lang, 'rematchNone')}
      ${left > 0 ? html` · <span data-testid="rematch-time" data-left=${left}>${tr(lang, 'rematchHeld', { n: left })}</span>` : null}
    </p>
    <button type="button" data-testid="rematch" disabled=${busy} onClick=${() => void confirmRematch()}>${tr(lang, 'rematch')}</button>
    <${TableMatches} view=${view} />
  </section>`;
}

/** At a rematch's next match, still waiting: the seats held for the last match's players. */
export function HeldSeats({ view }: { view: GameView }) {
  const { lang } = getState();
  useEffect(() => void loadTableMatches(view.gameId), [view.gameId]);
  if (view.status !== GameStatus.WAITING || view.matchNumber < 2) return null;
  const left = holdLeft(view);
  return html`<div class="rematch" data-testid="rematch-waiting" data-held=${view.rematchSeats.join(',')}>
    <p>${tr(lang, 'matchAtTable', { n: view.matchNumber })}</p>
    ${view.rematchSeats.length && left > 0
      ? html`<p data-testid="rematch-time" data-left=${left}>${tr(lang, 'rematchHeld', { n: left })}</p>`
      : null}
    <${TableMatches} view=${view} />
  </div>`;
}

/** The seat's line on the waiting screen: its player, held for the last match's, or free. */
export function seatLine(lang: Lang, view: GameView, seat: number): string {
  const s = view.seats[seat];
  if (s?.taken) return seatName(lang, view, seat);
  return view.rematchSeats.includes(seat) && view.status === GameStatus.WAITING ? tr(lang, 'seatHeld') : tr(lang, 'freeSeat');
}

function resultWords(lang: Lang, view: GameView, m: TableMatch): string {
  const result = m.result;
  if (!result) return tr(lang, 'matchUnderWay');
  if (result.winnerSide < 0) return tr(lang, 'matchNoWinner');
  return tr(lang, 'matchWonBy', { name: sideName(lang, view, result.winnerSide) });
}

/** The matches played at the table so far, oldest first. */
function TableMatches({ view }: { view: GameView }) {
  const { lang, tableMatches } = getState();
  if (!tableMatches || tableMatches.length < 2) return null;
  return html`<details class="table-matches" data-testid="table-matches">
    <summary>${tr(lang, 'tableMatches')}</summary>
    <ol>
      ${tableMatches.map(
        (m) => html`<li data-testid="table-match" data-game=${m.game?.gameId ?? ''} data-number=${m.game?.matchNumber ?? 0}>
          ${tr(lang, 'matchNumber', { n: m.game?.matchNumber ?? 0 })}: ${resultWords(lang, view, m)}
          ${m.matchTotals.length ? html` (${m.matchTotals.map(String).join(' – ')})` : null}
        </li>`,
      )}
    </ol>
  </details>`;
}
