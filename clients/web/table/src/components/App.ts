// The page: a header with the language, then the lobby, the quick-play wait or the table.
import { cancelQuickPlay } from '../actions/lobby.js';
import {
  act,
  downloadMyData,
  eraseMyData,
  saveProfile,
  setLanguage,
  signInWithTestProvider,
  signOut,
  uploadAvatar,
} from '../actions/service.js';
import { html } from '../html.js';
import { LANGS, LANG_NAMES, type Lang, tr } from '../i18n/index.js';
import { leaveTable } from '../actions/table.js';
import { useStore } from '../store.js';
import { ConfirmButton } from './Confirm.js';
import { Lobby } from './Lobby.js';
import { ProgressPanel } from './Progress.js';
import { Table } from './Table.js';

function Waiting() {
  const { lang, ticketId } = useStore();
  return html`<section class="lobby">
    <p data-testid="waiting" data-ticket=${ticketId} role="status">${tr(lang, 'waitingQuickPlay')}</p>
    <button type="button" data-testid="cancel-quick-play" onClick=${cancelQuickPlay}>${tr(lang, 'cancel')}</button>
  </section>`;
}

/** Who the page plays as, and signing in with an identity where the server offers one. */
function Account() {
  const { lang, config, account, busy, screen } = useStore();
  const place = screen === 'table' ? 'table' : 'lobby';
  if (!account && !config?.devIdentity) return null;
  return html`<div class="account" data-testid="account" data-player=${account?.playerId ?? ''} data-kind=${account?.kind ?? ''}>
    ${account?.avatarUrl
      ? html`<img class="avatar" data-testid="account-avatar" src=${account.avatarUrl} alt="" width="28" height="28" />`
      : null}
    ${account
      ? html`<span data-testid="profile">${tr(lang, account.kind === 'identity' ? 'signedInAs' : 'playingAsGuest', { name: account.name })}</span>`
      : null}
    ${config?.devIdentity && account?.kind !== 'identity'
      ? html`<button type="button" class="secondary small" data-testid="dev-sign-in" disabled=${busy}
          onClick=${() => void act(place, signInWithTestProvider)}>${tr(lang, 'devSignIn')}</button>`
      : null}
    ${account ? html`<${ProgressPanel} />` : null}
    ${account?.kind === 'identity' ? html`<${ProfileForm} />` : null}
    ${account?.kind === 'identity'
      ? html`<button type="button" class="secondary small" data-testid="sign-out" disabled=${busy}
          onClick=${() => void act(place, signOut)}>${tr(lang, 'signOut')}</button>`
      : null}
  </div>`;
}

/**
 * The signed-in player's profile: the name it is shown with and its country. Its inputs
 * are the player's while typed (defaultValue: the page re-renders every second for the
 * turn's clock, and would put the stored value back); the form is made anew when the
 * stored profile changes, and shown only once the stored profile has been read (its
 * answer would otherwise make the form anew under what the player is typing).
 */
function ProfileForm() {
  const { lang, account, busy, screen } = useStore();
  const place = screen === 'table' ? 'table' : 'lobby';
  const submit = (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const value = (n: string) => (form.elements.namedItem(n) as HTMLInputElement).value;
    void act(place, () => saveProfile(value('profile-name'), value('profile-country')));
  };
  return html`<details class="profile" data-testid="profile-form">
    <summary>${tr(lang, 'profile')}</summary>
    ${account?.country === undefined
      ? html`<p class="muted" data-testid="profile-loading">${tr(lang, 'loading')}</p>`
      : html`<form key=${`${account?.name ?? ''}|${account?.country ?? ''}`} onSubmit=${submit}>
      <label>${tr(lang, 'profileName')}
        <input name="profile-name" data-testid="profile-name" defaultValue=${account?.name ?? ''} maxlength="32" autocomplete="nickname" /></label>
      <label>${tr(lang, 'profileCountry')}
        <input name="profile-country" data-testid="profile-country" defaultValue=${account?.country ?? ''} maxlength="2" size="3" autocomplete="country" /></label>
      <button type="submit" class="small" data-testid="profile-save" disabled=${busy}>${tr(lang, 'save')}</button>
    </form>`}
    ${account?.abandonments !== undefined
      ? html`<p class="muted" data-testid="profile-abandonments">${tr(lang, 'abandonments', { n: account.abandonments })}</p>`
      : null}
    <label class="avatar-upload">${tr(lang, 'profilePicture')}
      <input type="file" accept="image/png,image/jpeg,image/webp,image/gif" data-testid="avatar-file" disabled=${busy}
        onChange=${(e: Event) => {
          const input = e.target as HTMLInputElement;
          const file = input.files?.[0];
          input.value = '';
          if (file) void act(place, () => uploadAvatar(file));
        }} /></label>
    <button type="button" class="secondary small" data-testid="download-data" disabled=${busy}
      onClick=${() => void act(place, downloadMyData)}>${tr(lang, 'downloadData')}</button>
    <${ConfirmButton} testid="erase-data" label="eraseData" question="eraseQuestion" yes="eraseYes"
      onConfirm=${() => void act(place, erase)} />
  </details>`;
}

/** The player erased: off the table (its match is over: erasure waits for that) to the lobby. */
async function erase(): Promise<void> {
  await eraseMyData();
  leaveTable();
}

export function App() {
  const state = useStore();
  const { lang, screen } = state;
  document.documentElement.lang = lang;
  document.title = tr(lang, 'title');
  return html`<header>
      <h1>${tr(lang, 'title')}</h1>
      <label class="lang">
        <span class="visually-hidden">${tr(lang, 'language')}</span>
        <select data-testid="language" onChange=${(e: Event) => setLanguage((e.target as HTMLSelectElement).value as Lang)}>
          ${LANGS.map((l) => html`<option value=${l} lang=${l} selected=${l === lang}>${LANG_NAMES[l]}</option>`)}
        </select>
      </label>
      <${Account} />
    </header>
    <main id="main">
      ${screen === 'table' ? html`<${Table} />` : screen === 'waiting' ? html`<${Waiting} />` : html`<${Lobby} />`}
    </main>`;
}
