// The lobby: the player's name, a table of one's own (players, points to win, time per
// turn, robots), quick play, the open tables waiting for players, the player's
// friends, and the lobby's chat.
import { askQuickPlay, joinTable, listOpenTables, openTable } from '../actions/lobby.js';
import { html } from '../html.js';
import { type Key, tr } from '../i18n/index.js';
import { type TableSetup, getState, saveSetup, update } from '../store.js';
import { LobbyChat } from './Chat.js';
import { Friends } from './Friends.js';
import { JoinById, NewTableOptions } from './Invitations.js';
import { Refusal } from './Refusal.js';

function setSetup(patch: Partial<TableSetup>): void {
  update((s) => ({ setup: { ...s.setup, ...patch } }));
  saveSetup(getState().setup);
}

/** The player's name, kept for the next visit. */
function setName(name: string): void {
  localStorage.setItem(NAME_KEY, name);
  update({ name });
}

export const NAME_KEY = 'tranca.name';

const num = (e: Event): number => Math.max(0, Math.floor(Number((e.target as HTMLInputElement).value) || 0));

/** A seated player's name, with their profile's country where they set one. */
const withCountry = (name: string, country: string | undefined): string => (country ? `${name} (${country})` : name);

function OpenTables() {
  const { lang, openTables, busy, profiles } = getState();
  return html`<section class="open-tables" data-testid="open-tables" aria-labelledby="open-tables-title">
    <div class="row spread">
      <h2 id="open-tables-title">${tr(lang, 'openTables')}</h2>
      <button type="button" class="secondary small" data-testid="refresh-tables" onClick=${() => void listOpenTables()}>${tr(lang, 'refresh')}</button>
    </div>
    ${openTables === null
      ? html`<p class="muted">${tr(lang, 'loading')}</p>`
      : openTables.length === 0
        ? html`<p class="muted" data-testid="no-open-tables">${tr(lang, 'noOpenTables')}</p>`
        : html`<ul class="table-list">
            ${openTables.map(
              (g) => html`<li data-game=${g.gameId}>
                <span>
                  <strong>${g.preset}</strong> · ${tr(lang, 'seatsTaken', { taken: g.seatsTaken, players: g.players })}
                  <span class="muted" data-testid="table-players"> · ${g.playerNames
                    .map((name, i) => (name ? withCountry(name, profiles[g.playerIds[i] ?? '']?.country) : ''))
                    .filter(Boolean)
                    .join(', ')}</span>
                  ${g.table && g.table.pointLimit > 0n ? html`<span class="muted"> · ${tr(lang, 'target', { n: Number(g.table.pointLimit) })}</span>` : null}
                </span>
                <button type="button" data-testid="join-table" disabled=${busy} onClick=${() => void joinTable(g.gameId)}>${tr(lang, 'join')}</button>
              </li>`,
            )}
          </ul>`}
  </section>`;
}

export function Lobby() {
  const { lang, config, name, setup, busy, notice } = getState();
  if (config && (!config.appId || !config.guestSignIn)) {
    return html`<section class="lobby"><p data-testid="guest-off">${tr(lang, 'guestOff')}</p></section>`;
  }
  return html`<div class="lobby-page">
    <section class="lobby" aria-labelledby="new-table-title">
      <label>${tr(lang, 'name')}
        <input data-testid="name" value=${name} placeholder=${tr(lang, 'namePlaceholder')} maxlength="40" autocomplete="nickname"
          onInput=${(e: Event) => setName((e.target as HTMLInputElement).value)} />
      </label>
      <label>${tr(lang, 'players')}
        <select data-testid="players" onChange=${(e: Event) => setSetup({ players: Number((e.target as HTMLSelectElement).value) === 2 ? 2 : 4 })}>
          ${[2, 4].map((n) => html`<option value=${n} selected=${setup.players === n}>${n}</option>`)}
        </select>
      </label>
      <div class="row">
        <button type="button" data-testid="quick-play" disabled=${busy} onClick=${() => void askQuickPlay()}>${tr(lang, 'quickPlay')}</button>
      </div>
      <details class="new-table" open>
        <summary id="new-table-title">${tr(lang, 'newTable')}</summary>
        <label class="check"><input type="checkbox" data-testid="opt-robots" checked=${setup.robots}
          onChange=${(e: Event) => setSetup({ robots: (e.target as HTMLInputElement).checked })} /> ${tr(lang, 'withRobots')}</label>
        <${NewTableOptions} />
        <label>${tr(lang, 'pointLimit')}
          <input type="number" min="0" step="50" data-testid="opt-points" value=${setup.pointLimit} onInput=${(e: Event) => setSetup({ pointLimit: num(e) })} /></label>
        <label>${tr(lang, 'turnSeconds')}
          <input type="number" min="0" data-testid="opt-turn" value=${setup.turnSeconds} onInput=${(e: Event) => setSetup({ turnSeconds: num(e) })} /></label>
        <label>${tr(lang, 'robotGrace')}
          <input type="number" min="0" data-testid="opt-grace" value=${setup.robotGraceSeconds} onInput=${(e: Event) => setSetup({ robotGraceSeconds: num(e) })} /></label>
        <label>${tr(lang, 'robotLevel')}
          <select data-testid="opt-level" onChange=${(e: Event) => setSetup({ robotLevel: Number((e.target as HTMLSelectElement).value) as TableSetup['robotLevel'] })}>
            ${([0, 1, 2, 3] as const).map((l) => html`<option value=${l} selected=${setup.robotLevel === l}>${tr(lang, `level_${l}` as Key)}</option>`)}
          </select></label>
        <button type="button" data-testid="new-table" disabled=${busy} onClick=${() => void openTable()}>${tr(lang, 'openTable')}</button>
      </details>
      <${JoinById} />
      <${Refusal} place="lobby" />
      ${notice ? html`<p class="notice">${notice}</p>` : null}
    </section>
    <${OpenTables} />
    <${Friends} />
    <${LobbyChat} />
  </div>`;
}
