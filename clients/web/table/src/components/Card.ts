// A card: its rank and suit's shape, in a four-colour deck (spades black, hearts red,
// diamonds blue, clubs green) so suits never rest on red and black alone; wild cards
// carry a star and a gold edge. A card the player can pick is a toggle button
// (aria-pressed), every card has a spoken name.
import { html } from '../html.js';
import { tr } from '../i18n/index.js';
import { getState } from '../store.js';
import { SUIT_SYMBOL, cardName, rankLabel, suitClass } from '../words.js';

export interface CardProps {
  card: string;
  wild?: boolean;
  selected?: boolean;
  index?: number;
  onToggle?: () => void;
  onKeyDown?: (e: KeyboardEvent) => void;
  small?: boolean;
}

export function Card({ card, wild, selected, index, onToggle, onKeyDown, small }: CardProps) {
  const lang = getState().lang;
  const joker = card === 'JK';
  const label = [cardName(lang, card), wild ? tr(lang, 'wild') : ''].filter(Boolean).join(', ');
  const cls = `card suit-${suitClass(card)}${wild ? ' wild' : ''}${selected ? ' selected' : ''}${small ? ' small' : ''}`;
  const face = html`<span class="rank" aria-hidden="true">${joker ? 'JK' : rankLabel(card.charAt(0))}</span
    ><span class="pip" aria-hidden="true">${joker ? '★' : SUIT_SYMBOL[card.charAt(1)]}</span
    >${wild ? html`<span class="wild-mark" aria-hidden="true">★</span>` : null}`;
  if (onToggle) {
    return html`<button
      type="button"
      class=${cls}
      data-card=${card}
      data-index=${index}
      aria-label=${label}
      aria-pressed=${selected ? 'true' : 'false'}
      onClick=${onToggle}
      onKeyDown=${onKeyDown}
    >${face}</button>`;
  }
  return html`<span class=${cls} data-card=${card} role="img" aria-label=${label}>${face}</span>`;
}

/** A row of cards that need not be read one by one: a meld, red threes, the pile. */
export function CardRow({ cards, wilds, label }: { cards: readonly string[]; wilds?: readonly boolean[]; label?: string }) {
  return html`<span class="card-row" role="group" aria-label=${label}>
    ${cards.map((c, i) => html`<${Card} card=${c} wild=${wilds?.[i] ?? false} small />`)}
  </span>`;
}
