// The end of a deal, kept on screen until the player goes back to the table: the deal's
// whole table as it ended (its DealBoard, which the page keeps from the watch message
// of the version that ended it, or from GetReplay after a reload: both sides' melds
// with their wilds marked, red threes, every hand left, now open, both mortos with
// their cards, the pile and the stock's count), the breakdown from the player's side
// (us and them, who won), the match so far, and the match's result at its end.
import { type DealBoard, type GameView, GameStatus, type ScoreBreakdown } from '../../../src/index.js';
import { closeDealEnd, leaveTable } from '../actions/table.js';
import { lastEnding } from '../deals.js';
import { html } from '../html.js';
import { type Key, type Lang, tr, trn } from '../i18n/index.js';
import { mortoName, mySide, seatName, sideName } from '../people.js';
import { getState } from '../store.js';
import { isWildCard } from '../words.js';
import { Card } from './Card.js';
import { Melds } from './Melds.js';
import { RematchPanel } from './Rematch.js';

const ROWS: [Key, (s: ScoreBreakdown) => bigint][] = [
  ['tableCards', (s) => s.tableCards],
  ['canastras', (s) => s.canastras.reduce((a, c) => a + c.points, 0n)],
  ['batida', (s) => s.batida],
  ['redThrees', (s) => s.redThrees],
  ['mortoPenalty', (s) => s.mortoPenalty],
  ['handCards', (s) => s.handCards],
  ['untakenMorto', (s) => s.untakenMortoCards],
];

function winnerLine(view: GameView, winner: number, deal: boolean): string {
  const lang = getState().lang;
  const me = mySide(view);
  if (winner < 0) return tr(lang, deal ? 'tiedDeal' : 'drawnMatch');
  const ours = winner === me;
  if (view.players === 4) return tr(lang, ours ? (deal ? 'weWonDeal' : 'weWonMatch') : deal ? 'theyWonDeal' : 'theyWonMatch');
  if (ours) return tr(lang, deal ? 'youWonDeal' : 'youWonMatch');
  return tr(lang, deal ? 'nameWonDeal' : 'nameWonMatch', { name: seatName(lang, view, winner) });
}

/** The player's side first, then the others in order. */
function mineFirst<T extends { side: number }>(items: readonly T[], me: number): T[] {
  return [...items].sort((a, b) => (a.side === me ? -1 : b.side === me ? 1 : a.side - b.side));
}

/** Loose cards (a hand, a morto, the pile), its 2s and jokers marked as the hand marks them. */
function LooseCards({ cards, label }: { cards: readonly string[]; label: string }) {
  return html`<span class="card-row" role="group" aria-label=${label}>
    ${cards.map((c) => html`<${Card} card=${c} wild=${isWildCard(c)} small />`)}
  </span>`;
}

/** Every hand the deal left, open: the player's own first, then the others in playing order. */
function Hands({ lang, view, board }: { lang: Lang; view: GameView; board: DealBoard }) {
  const me = Math.max(view.seat, 0);
  const after = (seat: number): number => (seat - me + view.players) % view.players;
  const hands = [...board.hands].sort((a, b) => after(a.seat) - after(b.seat));
  return html`<h3>${tr(lang, 'handsAtEnd')}</h3>
    <ul class="hands-left" data-testid="end-hands">
      ${hands.map((h) => {
        const mine = h.seat === view.seat;
        const name = mine ? tr(lang, 'yourLastHand') : seatName(lang, view, h.seat);
        const left = h.cards.length ? trn(lang, 'handLeft', h.cards.length) : tr(lang, 'handEmpty');
        return html`<li
          class=${`end-hand${mine ? ' mine' : ''}`}
          data-testid=${mine ? 'end-hand' : undefined}
          data-seat=${h.seat}
          data-size=${h.cards.length}
          data-cards=${h.cards.join(' ')}
        >
          <span class="who">${name}: ${left}</span>
          ${h.cards.length ? html`<${LooseCards} cards=${h.cards} label=${name} />` : null}
        </li>`;
      })}
    </ul>`;
}

/** Both mortos with their cards (a taken one has none: they went to a hand), the pile, the stock's count. */
function Rest({ lang, view, board }: { lang: Lang; view: GameView; board: DealBoard }) {
  const me = mySide(view);
  const pile = tr(lang, 'pile');
  return html`<ul class="end-rest" data-testid="end-rest">
    ${mineFirst(board.mortos, me).map((m) => {
      const name = mortoName(lang, view, m.side);
      return html`<li data-morto=${m.side} data-size=${m.size} data-taken=${m.taken ? 'true' : 'false'} data-cards=${m.cards.join(' ')}>
        <span class="who">${name}: ${m.taken ? tr(lang, 'mortoTaken') : trn(lang, 'cards', m.size)}</span>
        ${m.cards.length ? html`<${LooseCards} cards=${m.cards} label=${name} />` : null}
      </li>`;
    })}
    <li data-testid="end-pile" data-size=${board.pile.length} data-cards=${board.pile.join(' ')}>
      <span class="who">${pile}: ${board.pile.length ? trn(lang, 'cards', board.pile.length) : tr(lang, 'pileEmpty')}</span>
      ${board.pile.length ? html`<${LooseCards} cards=${board.pile} label=${pile} />` : null}
    </li>
    <li data-testid="end-stock" data-size=${board.stockSize}>
      <span class="who">${tr(lang, 'stock')}: ${trn(lang, 'cards', board.stockSize)}</span>
    </li>
  </ul>`;
}

export function DealEnd({ view }: { view: GameView }) {
  const { lang, dealEndClosed, boards } = getState();
  const ending = lastEnding(view, boards);
  const finished = view.status === GameStatus.FINISHED;
  if (!ending || (!finished && ending.number <= dealEndClosed)) return null;
  const { number, board, result } = ending;
  const me = mySide(view);
  const scores = result ? mineFirst(result.scores, me) : [];
  const best = scores.reduce((a, s) => (s.total > a ? s.total : a), scores[0]?.total ?? 0n);
  const leaders = scores.filter((s) => s.total === best);
  const dealWinner = leaders.length === 1 ? leaders[0]!.side : -1;
  const reason = `endBy_${result?.endReason ?? ''}` as Key;
  const wentOut = result && result.wentOutSeat >= 0 ? seatName(lang, view, result.wentOutSeat) : '';
  const sideCount = view.players === 4 ? 2 : view.players;
  const sides = [me, ...Array.from({ length: sideCount }, (_, side) => side).filter((side) => side !== me)];
  const heading = tr(lang, result ? 'dealOver' : 'dealStopped', { n: number });
  return html`<div class="deal-end-backdrop"><section
    class="deal-end"
    role="dialog"
    aria-modal="true"
    data-testid="deal-end"
    data-deal=${number}
    aria-labelledby="deal-end-title"
    onKeyDown=${(e: KeyboardEvent) => {
      if (e.key === 'Escape' && !finished) closeDealEnd(number);
    }}
  >
    <h2 id="deal-end-title" tabindex="-1" ref=${focusOnOpen}>${heading}</h2>
    ${result
      ? html`<p class="verdict" data-testid="deal-winner" data-side=${dealWinner}>
          <strong>${winnerLine(view, dealWinner, true)}</strong> ${tr(lang, reason, { name: wentOut })}
        </p>`
      : null}
    ${finished && view.matchResult
      ? html`<p class="match-result" data-testid="match-result" data-winner=${view.matchResult.winnerSide}>${winnerLine(view, view.matchResult.winnerSide, false)}</p>`
      : null}
    ${result
      ? html`<table class="breakdown" data-testid="breakdown" data-deal=${number}>
          <caption class="visually-hidden">${heading}</caption>
          <thead><tr><td></td>${scores.map((s) => html`<th scope="col" data-side=${s.side}>${sideName(lang, view, s.side)}</th>`)}</tr></thead>
          <tbody>
            ${ROWS.map(
              ([key, get]) => html`<tr data-row=${key}><th scope="row">${tr(lang, key)}</th>${scores.map((s) => html`<td data-side=${s.side}>${String(get(s))}</td>`)}</tr>`,
            )}
            <tr data-row="total" class="total"><th scope="row">${tr(lang, 'dealTotal')}</th>${scores.map((s) => html`<td data-side=${s.side}>${String(s.total)}</td>`)}</tr>
            <tr data-row="match" class="total"><th scope="row">${tr(lang, 'matchTotal')}</th>${scores.map((s) => html`<td data-side=${s.side}>${String(view.matchTotals[s.side] ?? 0n)}</td>`)}</tr>
          </tbody>
        </table>`
      : null}
    <h3>${tr(lang, 'finalBoard')}</h3>
    ${board
      ? html`<div class="board" data-testid="end-board" data-deal=${board.dealNumber}>
            ${sides.map(
              (side) => html`<${Melds}
                title=${sideName(lang, view, side)}
                testid=${side === me ? 'end-our-melds' : `end-melds-${side}`}
                side=${side}
                melds=${board.melds}
                redThrees=${board.redThrees}
              />`,
            )}
          </div>
          <${Hands} lang=${lang} view=${view} board=${board} />
          <${Rest} lang=${lang} view=${view} board=${board} />`
      : html`<p class="muted" data-testid="board-withheld">${tr(lang, 'boardWithheld')}</p>`}
    ${finished ? html`<${RematchPanel} view=${view} />` : null}
    <div class="row">
      ${finished
        ? html`<button type="button" data-testid="leave-table" onClick=${leaveTable}>${tr(lang, 'newMatch')}</button>`
        : html`<button type="button" data-testid="close-deal-end" onClick=${() => closeDealEnd(number)}>${tr(lang, 'nextDeal')}</button>`}
    </div>
  </section></div>`;
}

/** The dialog's heading takes the focus when it opens, so a screen reader reads it. */
function focusOnOpen(el: HTMLElement | null): void {
  if (el && !el.dataset.focused) {
    el.dataset.focused = 'true';
    el.focus();
  }
}
