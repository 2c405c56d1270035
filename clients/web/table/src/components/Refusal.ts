// A refusal in the service's words, shown where the player acted (role=alert: a
// screen reader says it at once).
import { html } from '../html.js';
import { tr } from '../i18n/index.js';
import { type Place, getState, update } from '../store.js';

export function Refusal({ place }: { place: Place }) {
  const { lang, refusal } = getState();
  if (!refusal || refusal.place !== place) return null;
  return html`<div class="refusal" role="alert" data-testid="refusal" data-reason=${refusal.reason}>
    <strong>${tr(lang, 'refused')}:</strong>
    <span data-testid="refusal-text">${refusal.message}</span>
    <button type="button" class="small secondary" aria-label=${tr(lang, 'close')} onClick=${() => update({ refusal: null })}>×</button>
  </div>`;
}
