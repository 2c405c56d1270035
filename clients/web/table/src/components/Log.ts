// What happened at the table, newest first, by deal: every move in words with who made
// it, a turn the timer played and a robot's moves said as such, and the changes of
// seats (a robot taking over, a player coming back). The move that ended a deal is
// told under that deal, though the server logs it with the next deal's number.
import type { GameView, Meld } from '../../../src/index.js';
import type { Boards } from '../deals.js';
import { html } from '../html.js';
import { type Key, type Lang, tr } from '../i18n/index.js';
import { seatName } from '../people.js';
import { type LogEntry, getState } from '../store.js';
import { moveWords } from '../words.js';

const SHOWN = 80;
const CHANGES = new Set(['join', 'leave', 'start', 'resign', 'robot', 'return', 'annul_vote', 'end']);

/**
 * The melds a logged move names, as they lie now: a finished deal's as it left them
 * (its board, where the page has it), the deal under way's; none for another deal
 * ("a meld").
 */
function meldsOf(view: GameView, boards: Boards, deal: number): readonly Meld[] {
  const board = boards[deal];
  if (board) return board.melds;
  return deal === view.dealNumber ? view.melds : [];
}

/** A log line in words. */
export function logLine(lang: Lang, view: GameView, boards: Boards, e: LogEntry): string {
  const name = e.seat >= 0 ? seatName(lang, view, e.seat) : '';
  if (!e.move) {
    // A robot the seat's own player asked for: automatic mode, not an absence.
    if (e.change === 'robot' && e.actor === 'player') return tr(lang, 'ch_automatic', { name });
    if (CHANGES.has(e.change)) return tr(lang, `ch_${e.change}` as Key, { name });
    return tr(lang, 'ch_other', { name, change: e.change });
  }
  const what = moveWords(lang, e.move, meldsOf(view, boards, e.deal), 'log');
  if (e.actor === 'timeout') return tr(lang, 'logTimeout', { name, what });
  // A robot's own seat plays under its name; a robot playing for an absent player says so.
  const robotSeat = /^robot \d+$/.test(view.seats[e.seat]?.playerName ?? '');
  if (e.actor === 'robot' && !robotSeat) return tr(lang, 'logRobotFor', { name, what });
  return tr(lang, 'logMove', { name, what });
}

export function Log({ view }: { view: GameView }) {
  const { lang, log, boards } = getState();
  const shown = log.filter((e) => e.change !== 'entropy').slice(-SHOWN).reverse();
  const items: unknown[] = [];
  let deal = -1;
  for (const e of shown) {
    if (e.deal !== deal && e.deal > 0) {
      deal = e.deal;
      items.push(html`<li class="deal-heading" aria-hidden="true">${tr(lang, 'dealHeading', { n: e.deal })}</li>`);
    }
    items.push(html`<li
      key=${String(e.version)}
      class=${`actor-${e.actor}`}
      data-version=${String(e.version)}
      data-seat=${e.seat}
      data-actor=${e.actor}
      data-deal=${e.deal}
      data-ended=${e.ended ? 'true' : undefined}
      data-kind=${e.move?.kind.case ?? e.change}
    >${logLine(lang, view, boards, e)}</li>`);
  }
  return html`<section class="log" data-testid="log" aria-label=${tr(lang, 'log')}>
    <h2>${tr(lang, 'log')}</h2>
    ${shown.length === 0 ? html`<p class="muted">${tr(lang, 'logEmpty')}</p>` : html`<ol tabindex="0" aria-label=${tr(lang, 'log')}>${items}</ol>`}
  </section>`;
}
