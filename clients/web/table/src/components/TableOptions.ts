// The table's options (003 "Opciones de mesa"): the Options button, marked (red) once
// the head has changed them since this page last looked ("Si el icono cambia a rojo,
// indica que el jefe de mesa ha cambiado alguna de las opciones"); the panel it opens,
// which the table head edits before the start and every other seat reads; and the
// prompt that asks a seated player to agree to a new stake or rated play.
import { useState } from 'preact/hooks';

import { ChatMode, type GameView, GameStatus } from '../../../src/index.js';
import { consentToOptions, updateOptions } from '../actions/table.js';
import { html } from '../html.js';
import { tr } from '../i18n/index.js';
import { getState } from '../store.js';

const SEEN_KEY = 'tranca.optionsSeen';

/** The options' version this page last showed (kept over a reload). */
function seenVersion(gameId: string): bigint {
  return BigInt(localStorage.getItem(`${SEEN_KEY}.${gameId}`) ?? '0');
}

function markSeen(view: GameView): void {
  localStorage.setItem(`${SEEN_KEY}.${view.gameId}`, String(view.optionsVersion));
}

interface Draft {
  turnSeconds: number;
  competitive: boolean;
  stake: number;
  private: boolean;
  spectators: boolean;
  express: boolean;
  pointLimit: number;
  chat: ChatMode;
}

function draftOf(view: GameView): Draft {
  const t = view.table;
  return {
    turnSeconds: t?.turnSeconds ?? 0,
    competitive: t?.competitive ?? false,
    stake: Number(t?.stake ?? 0n),
    private: t?.private ?? false,
    spectators: view.spectatorsAllowed,
    express: t?.express ?? false,
    pointLimit: Number(t?.pointLimit ?? 0n),
    chat: t?.chat ?? ChatMode.UNSPECIFIED,
  };
}

const num = (e: Event): number => Math.max(0, Math.floor(Number((e.target as HTMLInputElement).value) || 0));
const checked = (e: Event): boolean => (e.target as HTMLInputElement).checked;

export function TableOptionsPanel({ view }: { view: GameView }) {
  const { lang, busy } = getState();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [, setSeen] = useState(0n);
  const editable = view.seat >= 0 && view.seat === view.headSeat && view.status === GameStatus.WAITING;
  const changed = view.optionsVersion > seenVersion(view.gameId);
  const shown = draft ?? draftOf(view);
  const change = (part: Partial<Draft>) => setDraft({ ...shown, ...part });
  const toggle = () => {
    markSeen(view);
    setSeen(view.optionsVersion);
    setDraft(null);
    setOpen(!open);
  };
  const save = async () => {
    const t = view.table;
    // The options only CreateGame sets go back as the table has them.
    const ok = await updateOptions(
      {
        turnSeconds: shown.turnSeconds,
        robotGraceSeconds: t?.robotGraceSeconds ?? 0,
        private: shown.private,
        competitive: shown.competitive,
        stake: BigInt(shown.competitive ? shown.stake : 0),
        express: shown.express,
        pointLimit: BigInt(shown.express ? 0 : shown.pointLimit),
        verifiable: t?.verifiable ?? false,
        annulmentAllowed: t?.annulmentAllowed ?? false,
        robotLevel: t?.robotLevel ?? 0,
        chat: shown.chat,
      },
      shown.spectators,
    );
    const now = getState().view;
    if (ok && now) {
      markSeen(now);
      setSeen(now.optionsVersion);
      setDraft(null);
      setOpen(false);
    }
  };
  const off = !editable || busy;
  return html`<div class="table-options" data-testid="table-options-area">
    <button
      type="button"
      class=${`secondary small options-button${changed ? ' changed' : ''}`}
      data-testid="table-options"
      data-changed=${changed ? 'true' : 'false'}
      aria-expanded=${open ? 'true' : 'false'}
      onClick=${toggle}
    >⚙ ${tr(lang, 'tableOptions')}${changed ? html` <span data-testid="options-changed">${tr(lang, 'optionsChanged')}</span>` : null}</button>
    ${open
      ? html`<fieldset class="options-panel" data-testid="options-panel" data-editable=${editable ? 'true' : 'false'}>
          <legend>${tr(lang, editable ? 'optionsHeadEdits' : 'optionsHeadChooses')}</legend>
          <label>${tr(lang, 'turnSeconds')}
            <input type="number" min="0" data-testid="option-turn" value=${shown.turnSeconds} disabled=${off}
              onInput=${(e: Event) => change({ turnSeconds: num(e) })} /></label>
          <label class="check"><input type="checkbox" data-testid="option-competitive" checked=${shown.competitive} disabled=${off}
            onChange=${(e: Event) => change({ competitive: checked(e) })} /> ${tr(lang, 'optionCompetitive')}</label>
          <label>${tr(lang, 'optionStake')}
            <input type="number" min="0" data-testid="option-stake" value=${shown.stake} disabled=${off || !shown.competitive}
              onInput=${(e: Event) => change({ stake: num(e) })} /></label>
          <label class="check"><input type="checkbox" data-testid="option-private" checked=${shown.private} disabled=${off}
            onChange=${(e: Event) => change({ private: checked(e) })} /> ${tr(lang, 'privateTable')}</label>
          <label class="check"><input type="checkbox" data-testid="option-spectators" checked=${shown.spectators} disabled=${off}
            onChange=${(e: Event) => change({ spectators: checked(e) })} /> ${tr(lang, 'optionSpectators')}</label>
          <label class="check"><input type="checkbox" data-testid="option-express" checked=${shown.express} disabled=${off}
            onChange=${(e: Event) => change({ express: checked(e) })} /> ${tr(lang, 'optionExpress')}</label>
          <label>${tr(lang, 'optionPoints')}
            <input type="number" min="0" step="50" data-testid="option-points" value=${shown.pointLimit} disabled=${off || shown.express}
              onInput=${(e: Event) => change({ pointLimit: num(e) })} /></label>
          <label>${tr(lang, 'optionChat')}
            <select data-testid="option-chat" disabled=${off} onChange=${(e: Event) => change({ chat: Number((e.target as HTMLSelectElement).value) as ChatMode })}>
              ${[ChatMode.UNSPECIFIED, ChatMode.FREE, ChatMode.PHRASES, ChatMode.OFF].map(
                (m) => html`<option value=${m} selected=${shown.chat === m}>${tr(lang, `chatMode_${m}` as 'chatMode_0')}</option>`,
              )}
            </select></label>
          ${editable
            ? html`<button type="button" data-testid="save-options" disabled=${busy} onClick=${() => void save()}>${tr(lang, 'saveOptions')}</button>`
            : null}
        </fieldset>`
      : null}
  </div>`;
}

/** A seated player still to agree to the stake or rated play the head set. */
export function ConsentPrompt({ view }: { view: GameView }) {
  const { lang, busy } = getState();
  const mine = view.seat >= 0 ? view.seats[view.seat] : undefined;
  if (!mine?.consentPending || view.status !== GameStatus.WAITING) return null;
  const t = view.table;
  const words = t?.competitive
    ? tr(lang, 'consentRated', { stake: String(t.stake) })
    : tr(lang, 'consentPractice');
  return html`<div class="banner consent" data-testid="consent-prompt" role="status">
    <span data-testid="consent-text">${words}</span>
    <button type="button" data-testid="consent" disabled=${busy} onClick=${() => void consentToOptions()}>${tr(lang, 'agree')}</button>
  </div>`;
}
