// A button whose action cannot be undone (leaving a match, erasing an account): the
// first press asks, in words, and the player confirms or cancels in place, without a
// browser dialog (which a screen reader and a phone both handle poorly).
import { useState } from 'preact/hooks';

import { html } from '../html.js';
import { type Key, tr } from '../i18n/index.js';
import { getState } from '../store.js';

export function ConfirmButton({
  testid,
  label,
  question,
  yes,
  onConfirm,
}: {
  testid: string;
  label: Key;
  question: Key;
  yes: Key;
  onConfirm: () => void;
}) {
  const { lang, busy } = getState();
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return html`<button type="button" class="secondary small" data-testid=${testid} disabled=${busy}
      onClick=${() => setAsking(true)}>${tr(lang, label)}</button>`;
  }
  return html`<span class="confirm" role="group" aria-label=${tr(lang, question)}>
    <span>${tr(lang, question)}</span>
    <button type="button" class="danger small" data-testid=${`${testid}-confirm`} disabled=${busy}
      onClick=${() => {
        setAsking(false);
        onConfirm();
      }}>${tr(lang, yes)}</button>
    <button type="button" class="secondary small" data-testid=${`${testid}-cancel`}
      onClick=${() => setAsking(false)}>${tr(lang, 'cancel')}</button>
  </span>`;
}
