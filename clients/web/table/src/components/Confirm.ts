// A button whose action cannot be undone (leaving a match, erasing an account): the
// first press asks, in words, and the player confirms or cancels in place, without a
// browser dialog (which a screen reader and a phone both handle poorly).
import { useState } from 'preact/hooks';

import { html } from '../html.js';
import { type Key, type Params, tr } from '../i18n/index.js';
import { getState } from '../store.js';

export function ConfirmButton({
  testid,
  label,
  question,
  yes,
  params = {},
  onConfirm,
}: {
  testid: string;
  label: Key;
  question: Key;
  yes: Key;
  /** What the question's words name ("{name}"). */
  params?: Params;
  onConfirm: () => void;
}) {
  const { lang, busy } = getState();
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return html`<button type="button" class="secondary small" data-testid=${testid} disabled=${busy}
      onClick=${() => setAsking(true)}>${tr(lang, label)}</button>`;
  }
  const asked = tr(lang, question, params);
  return html`<span class="confirm" role="group" aria-label=${asked}>
    <span>${asked}</span>
    <button type="button" class="danger small" data-testid=${`${testid}-confirm`} disabled=${busy}
      onClick=${() => {
        setAsking(false);
        onConfirm();
      }}>${tr(lang, yes)}</button>
    <button type="button" class="secondary small" data-testid=${`${testid}-cancel`}
      onClick=${() => setAsking(false)}>${tr(lang, 'cancel')}</button>
  </span>`;
}
