// The middle of the table: the stock, the discard pile (the whole pile, fanned, where
// the preset lays it open; else its top card and size), and the mortos.
import type { GameView } from '../../../src/index.js';
import { html } from '../html.js';
import { tr, trn } from '../i18n/index.js';
import { mortoName } from '../people.js';
import { getState } from '../store.js';
import { isWildCard } from '../words.js';
import { Card } from './Card.js';

export function Center({ view }: { view: GameView }) {
  const lang = getState().lang;
  const flags = [view.pileLocked && tr(lang, 'pileLocked'), view.pileFrozen && tr(lang, 'pileFrozen')].filter(Boolean);
  const whole = view.pile.length > 0;
  return html`<div class="center" data-testid="center">
    <div class="pile-box" data-testid="stock" data-size=${view.stockSize}>
      <span class="label">${tr(lang, 'stock')}</span>
      <span class="stock-back" aria-hidden="true"></span>
      <span class="count">${trn(lang, 'cards', view.stockSize)}</span>
    </div>
    <div
      class=${`pile-box pile${view.pileLocked ? ' locked' : ''}`}
      data-testid="pile"
      data-size=${view.pileSize}
      data-top=${view.pileTop}
      data-cards=${view.pile.join(' ')}
    >
      <span class="label">${tr(lang, 'pile')} · ${trn(lang, 'cards', view.pileSize)}</span>
      ${view.pileSize === 0
        ? html`<span class="muted">${tr(lang, 'pileEmpty')}</span>`
        : whole
          ? html`<span class="fan" role="group" aria-label=${tr(lang, 'pile')}>${view.pile.map((c) => html`<${Card} card=${c} wild=${isWildCard(c)} small />`)}</span>`
          : html`<${Card} card=${view.pileTop} wild=${isWildCard(view.pileTop)} />`}
      ${flags.length ? html`<span class="warn">${flags.join(', ')}</span>` : null}
    </div>
    <div class="pile-box" data-testid="mortos">
      <span class="label">${tr(lang, 'mortos')}</span>
      ${view.mortos.map(
        (m) => html`<span data-side=${m.side} data-size=${m.size}>
          ${mortoName(lang, view, m.side)}: ${m.taken ? tr(lang, 'mortoTaken') : trn(lang, 'cards', m.size)}
        </span>`,
      )}
    </div>
  </div>`;
}
