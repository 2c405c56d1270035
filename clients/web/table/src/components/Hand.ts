// The player's hand, grouped by suit: each card a toggle button; the arrow keys move
// between cards, Enter or Space picks one.
import { type GameView, groupBySuit } from '../../../src/index.js';
import { toggleCard } from '../actions/table.js';
import { html } from '../html.js';
import { tr, trn } from '../i18n/index.js';
import { getState } from '../store.js';
import { isWildCard } from '../words.js';
import { Card } from './Card.js';

function moveFocus(e: KeyboardEvent): void {
  const keys: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  const step = keys[e.key];
  if (step === undefined) return;
  const cards = [...document.querySelectorAll<HTMLButtonElement>('[data-testid=hand] button[data-card]')];
  const at = cards.indexOf(e.currentTarget as HTMLButtonElement);
  const next = cards[(at + step + cards.length) % cards.length];
  if (next) {
    e.preventDefault();
    next.focus();
  }
}

export function Hand({ view }: { view: GameView }) {
  const { lang, selected } = getState();
  // A hand may hold two of a card: each is named by its index in view.hand.
  const positions = new Map<string, number[]>();
  view.hand.forEach((c, i) => positions.set(c, [...(positions.get(c) ?? []), i]));
  const taken = new Map<string, number>();
  const title = `${tr(lang, 'hand')} · ${trn(lang, 'cards', view.hand.length)}`;
  return html`<section class="hand" id="hand" data-testid="hand" aria-label=${tr(lang, 'hand')} tabindex="-1">
    <h2>${title}${selected.length ? html` · <span data-testid="selected-count">${trn(lang, 'selected', selected.length)}</span>` : null}</h2>
    ${view.hand.length === 0 ? html`<p class="muted">${tr(lang, 'handEmpty')}</p>` : null}
    <div class="suits">
      ${groupBySuit(view.hand).map(
        (g) => html`<div class="suit" data-suit=${g.suit}>
          ${g.cards.map((card) => {
            const n = taken.get(card) ?? 0;
            taken.set(card, n + 1);
            const i = positions.get(card)![n]!;
            return html`<${Card}
              key=${i}
              card=${card}
              index=${i}
              wild=${isWildCard(card)}
              selected=${selected.includes(i)}
              onToggle=${() => toggleCard(i)}
              onKeyDown=${moveFocus}
            />`;
          })}
        </div>`,
      )}
    </div>
  </section>`;
}
