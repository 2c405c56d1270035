// Where the player acts: what the selected cards can do, every legal move in words,
// and a refusal right there (not at the top of the page, out of sight on a phone).
import { type GameView, type Meld, Phase, moves as build } from '../../../src/index.js';
import { clearSelection, myTurn, play } from '../actions/table.js';
import { html } from '../html.js';
import { tr } from '../i18n/index.js';
import { getState } from '../store.js';
import { moveWords } from '../words.js';
import { Refusal } from './Refusal.js';

export function selectedCards(view: GameView): string[] {
  return getState()
    .selected.map((i) => view.hand[i])
    .filter((c): c is string => Boolean(c));
}

/** Whether the selected card may go on a meld now ("+" on our melds). */
export function canAdd(view: GameView): ((m: Meld) => void) | undefined {
  const sel = selectedCards(view);
  if (!myTurn(view) || view.phase !== Phase.PLAY || sel.length !== 1) return undefined;
  return (m: Meld) => void play(build.addToMeld(m.id, sel[0]!));
}

export function ActionBar({ view }: { view: GameView }) {
  const { lang, legal, legalVersion, busy } = getState();
  const mine = myTurn(view);
  const sel = selectedCards(view);
  const selection = mine && sel.length > 0;
  return html`<section
    class=${`actions${mine ? ' mine' : ''}`}
    data-testid="actions"
    data-legal-version=${String(legalVersion)}
    data-busy=${busy ? 'true' : 'false'}
    aria-label=${tr(lang, 'moves')}
  >
    <${Refusal} place="table" />
    ${!mine ? html`<p class="muted">${tr(lang, 'waitOthers')}</p>` : null}
    ${selection
      ? html`<div class="row selection">
          ${sel.length >= 3
            ? html`<button type="button" data-testid="meld-selected" disabled=${busy} onClick=${() => void play(build.createMeld(sel))}>${tr(lang, 'layDownSelected')}</button>`
            : null}
          ${sel.length === 2 && view.phase === Phase.DRAW
            ? html`<button type="button" data-testid="take-pile-selected" disabled=${busy} onClick=${() => void play(build.takePileWith(sel[0]!, sel[1]!))}>${tr(lang, 'takePileSelected')}</button>`
            : null}
          ${sel.length === 1 && view.phase === Phase.PLAY
            ? html`<button type="button" data-testid="discard-selected" disabled=${busy} onClick=${() => void play(build.discard(sel[0]!))}>${tr(lang, 'discardSelected')}</button>`
            : null}
          <button type="button" class="secondary" data-testid="clear-selection" onClick=${clearSelection}>${tr(lang, 'clearSelection')}</button>
        </div>`
      : null}
    ${mine
      ? html`<div class="legal" role="group" aria-label=${tr(lang, 'moves')}>
          ${legal.map(
            (m, i) => html`<button
              type="button"
              data-testid="legal-move"
              data-kind=${m.kind.case ?? ''}
              data-move=${m.text}
              data-index=${i}
              disabled=${busy}
              onClick=${() => void play(m)}
            >${moveWords(lang, m, view.melds, 'button')}</button>`,
          )}
        </div>`
      : null}
  </section>`;
}
