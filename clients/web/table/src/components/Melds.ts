// One side's melds: each meld's cards (wild cards marked), and the kind of canastra it
// is; the side's red threes. "+" on one of our melds adds the selected card to it.
import { type Meld, type RedThrees, CanastraKind } from '../../../src/index.js';
import { html } from '../html.js';
import { type Key, tr } from '../i18n/index.js';
import { getState } from '../store.js';
import { meldName, wildFlags } from '../words.js';
import { CardRow } from './Card.js';

export interface MeldsProps {
  title: string;
  testid: string;
  side: number;
  melds: readonly Meld[];
  redThrees: readonly RedThrees[];
  onAdd?: (meld: Meld) => void; // set when a selected card may be added
}

export function Melds({ title, testid, side, melds, redThrees, onAdd }: MeldsProps) {
  const lang = getState().lang;
  const mine = melds.filter((m) => m.side === side);
  const reds = redThrees.filter((r) => r.side === side).flatMap((r) => r.cards);
  return html`<section class="melds" data-testid=${testid} data-side=${side} aria-label=${title}>
    <h2>${title}</h2>
    ${mine.length === 0 ? html`<p class="muted">${tr(lang, 'noMelds')}</p>` : null}
    <ul class="meld-list">
      ${mine.map((m) => {
        const name = meldName(lang, m);
        const kind = m.canastra !== CanastraKind.UNSPECIFIED ? tr(lang, `canastra_${m.canastra}` as Key) : '';
        return html`<li
          class=${`meld${kind ? ` canastra canastra-${m.canastra}` : ''}`}
          data-meld=${m.id}
          data-side=${m.side}
          data-cards=${m.cards.join(' ')}
          data-canastra=${m.canastra}
        >
          <${CardRow} cards=${m.cards} wilds=${wildFlags(m)} label=${kind ? `${name}, ${kind}` : name} />
          ${kind ? html`<span class="tag">${kind}</span>` : null}
          ${onAdd
            ? html`<button type="button" class="small" data-testid=${`add-to-${m.id}`} aria-label=${tr(lang, 'addTo', { meldTo: meldName(lang, m, '_to') })} onClick=${() => onAdd(m)}>+</button>`
            : null}
        </li>`;
      })}
    </ul>
    ${reds.length > 0
      ? html`<div class="reds" data-testid=${`${testid}-reds`} data-cards=${reds.join(' ')}>
          <span class="muted">${tr(lang, 'redThrees')}</span> <${CardRow} cards=${reds} label=${tr(lang, 'redThrees')} />
        </div>`
      : null}
  </section>`;
}
