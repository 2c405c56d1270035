// The service as the page uses it: the client in the page's language, the app the
// page signs players into, the guest's session, and refusals shown where the player
// acted.
import { type PlayerSession, type Profile, TrancaClient, TrancaError } from '../../../src/index.js';
import { type Key, type Lang, tr } from '../i18n/index.js';
import { type Account, type Place, type WebConfig, getState, update } from '../store.js';

const SESSION_KEY = 'tranca.session';
export const LANG_KEY = 'tranca.lang';

let client: TrancaClient | null = null;

/**
 * The client without credentials (withToken() gives one with a token), asking for
 * refusals in the page's language (made again when the language changes).
 */
export function service(): TrancaClient {
  const lang = getState().lang;
  if (client?.language !== lang) {
    // Binary protobuf: cheaper for the server than JSON (docs/APP_GUIDE.md §16).
    client = new TrancaClient({ baseUrl: location.origin, language: lang, binary: true });
  }
  return client;
}

/** The name a seat is taken with: a signed-in player's own, else the name typed (or "Guest"). */
export function joiningName(): string {
  const { account, name } = getState();
  if (account?.kind === 'identity') return account.name;
  return name.trim() || t('guestName');
}

/** The page's words in its language. */
export const t = (key: Key, params?: Record<string, string | number>): string => tr(getState().lang, key, params);

export function setLanguage(lang: Lang): void {
  localStorage.setItem(LANG_KEY, lang);
  update({ lang });
}

export async function loadConfig(): Promise<WebConfig> {
  const params = new URLSearchParams(location.search);
  try {
    const res = await fetch('/tranca-web.json', { cache: 'no-store' });
    if (res.ok) {
      const c = (await res.json()) as Partial<WebConfig>;
      return {
        appId: params.get('app') ?? c.appId ?? '',
        guestSignIn: Boolean(c.guestSignIn),
        devIdentity: Boolean(c.devIdentity),
      };
    }
  } catch {
    // no config served: only ?app= can name the app
  }
  return { appId: params.get('app') ?? '', guestSignIn: params.has('app'), devIdentity: false };
}

interface SavedSession {
  accessToken: string;
  expiresAt: number;
  name: string; // the display name it signed in with
  playerId?: string; // absent in sessions saved before accounts
  kind?: Account['kind'];
}

/** The session kept for the next visit, and the page's account: the session's token. */
function keep(saved: Required<SavedSession>): string {
  localStorage.setItem(SESSION_KEY, JSON.stringify(saved));
  update({ account: { playerId: saved.playerId, name: saved.name, kind: saved.kind } });
  return saved.accessToken;
}

const toSaved = (s: PlayerSession, name: string, kind: Account['kind']): Required<SavedSession> => ({
  accessToken: s.accessToken,
  expiresAt: Number(s.accessExpiresAtMs),
  name,
  playerId: s.playerId,
  kind,
});

/** Who the saved session plays as, if there is one. */
export function savedAccount(): Account | null {
  const s = savedSession();
  return s?.playerId ? { playerId: s.playerId, name: s.name, kind: s.kind ?? 'guest' } : null;
}

/** The browser's guest session, if it signed in already and the session is still good. */
export function savedSession(): SavedSession | null {
  const saved = localStorage.getItem(SESSION_KEY);
  if (!saved) return null;
  const s = JSON.parse(saved) as SavedSession;
  return s.expiresAt > Date.now() + 60_000 ? s : null;
}

/**
 * The guest's session (signed in once in this browser, and again when the player has typed
 * another name since: a guest's name is the session's): a client holding its token.
 */
export async function lobbyClient(): Promise<TrancaClient> {
  const state = getState();
  const typed = state.name.trim();
  const saved = savedSession();
  // A signed-in player's session is kept whatever name is typed; a guest's follows the name.
  if (saved && (saved.kind === 'identity' || !typed || typed === saved.name)) {
    return service().withToken(saved.accessToken);
  }
  const name = typed || t('guestName');
  // One sign-in at a time: the lobby's list and a click at once make one guest, not two.
  if (signingIn?.name !== name) {
    const appId = state.config!.appId;
    const promise = service()
      .signInGuest(appId, name)
      .then((s: PlayerSession) => {
        // The player signed in with an identity while this guest's sign-in was under way
        // (the lobby's list refreshing as they clicked): the page is that player's now,
        // and the guest made meanwhile is not kept over it.
        const now = savedSession();
        return now?.kind === 'identity' ? now.accessToken : keep(toSaved(s, name, 'guest'));
      })
      .finally(() => {
        if (signingIn?.promise === promise) signingIn = null;
      });
    signingIn = { name, promise };
  }
  return service().withToken(await signingIn.promise);
}

let signingIn: { name: string; promise: Promise<string> } | null = null;

/** A token of the development server's test identity provider for `name`. */
async function testProviderToken(name: string): Promise<string> {
  const res = await fetch('/dev-identity/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const out = (await res.json()) as { id_token?: string; error?: string };
  if (!res.ok || !out.id_token) throw new Error(out.error ?? `the test provider answered ${res.status}`);
  return out.id_token;
}

/**
 * Signs in with the test identity provider as the typed name. A guest's session links
 * the identity to the guest's player, which keeps every game it played; an identity
 * already another player's signs that player in instead.
 */
export async function signInWithTestProvider(): Promise<void> {
  // A guest's sign-in under way (the lobby's list asks for one as the name is typed)
  // lands first: that guest is the one whose games the identity keeps.
  await signingIn?.promise.catch(() => undefined);
  const state = getState();
  const name = state.name.trim() || t('guestName');
  const saved = savedSession();
  if (saved && saved.kind !== 'identity') {
    try {
      const guest = service().withToken(saved.accessToken);
      await guest.linkIdentity('dev', await testProviderToken(name));
      // The same session and player, now with an identity: its games stay its own. The
      // name the player signed in with is theirs from now on (the guest's may have been
      // the page's default, taken before they typed one).
      if (name !== saved.name) await guest.updateProfile({ displayName: name });
      keep({ ...saved, name, playerId: saved.playerId ?? '', kind: 'identity' });
      update({ notice: t('linked') });
      await loadProfile();
      return;
    } catch (err) {
      if (!(err instanceof TrancaError) || err.reason !== 'IDENTITY_ALREADY_LINKED') throw err;
    }
  }
  const signed = await service().signInWithIdentity(state.config!.appId, 'dev', await testProviderToken(name), {
    displayName: name,
  });
  keep(toSaved(signed.session!, name, 'identity'));
  update({ notice: signed.newPlayer ? t('welcome') : t('welcomeBack') });
  await loadProfile();
}

/** The signed-in player's profile, read into the page's account. */
export async function loadProfile(): Promise<void> {
  const saved = savedSession();
  if (!saved || saved.kind !== 'identity') return;
  const profile = await service().withToken(saved.accessToken).profile();
  update((s) => ({
    account: s.account
      ? {
          ...s.account,
          name: profile.displayName,
          country: profile.country,
          avatarUrl: profile.avatarUrl,
          abandonments: profile.abandonments,
        }
      : s.account,
  }));
}

/** A profile the player just saved, shown: their account, their seats, the notice. */
function showSaved(saved: SavedSession, profile: Profile): void {
  localStorage.setItem(SESSION_KEY, JSON.stringify({ ...saved, name: profile.displayName }));
  update((s) => ({
    account: s.account
      ? { ...s.account, name: profile.displayName, country: profile.country, avatarUrl: profile.avatarUrl }
      : s.account,
    notice: t('profileSaved'),
    profiles: s.account
      ? { ...s.profiles, [s.account.playerId]: { country: profile.country, avatarUrl: profile.avatarUrl } }
      : s.profiles,
  }));
}

/** The longest side a picture is sent with: the server keeps 128 pixels of it. */
const AVATAR_SENT = 512;

/**
 * The signed-in player's new avatar from a picture on the device: drawn at most
 * AVATAR_SENT pixels a side (a phone's photo of megabytes would not pass the server's
 * limit, and need not), sent as PNG; the server keeps a small copy made anew.
 */
export async function uploadAvatar(file: File): Promise<void> {
  const saved = savedSession();
  if (!saved) return;
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, AVATAR_SENT / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const blob = await new Promise<Blob>((done, fail) =>
    canvas.toBlob((b) => (b ? done(b) : fail(new Error('the picture could not be drawn'))), 'image/png'),
  );
  const profile = await service()
    .withToken(saved.accessToken)
    .uploadAvatar(new Uint8Array(await blob.arrayBuffer()));
  showSaved(saved, profile);
}

/** Changes the signed-in player's profile: the name it is shown with, its country. */
export async function saveProfile(displayName: string, country: string): Promise<void> {
  const saved = savedSession();
  if (!saved) return;
  const profile = await service().withToken(saved.accessToken).updateProfile({ displayName, country });
  showSaved(saved, profile);
}

const profilesAsked = new Set<string>();

/**
 * The public profiles (country, avatar) of seated players the page has not asked about
 * yet, in one call with the page's session; a player with none shows nothing more.
 */
export async function loadProfiles(playerIds: readonly string[]): Promise<void> {
  const saved = savedSession();
  const wanted = [...new Set(playerIds)].filter((p) => p && !profilesAsked.has(p));
  if (!saved || wanted.length === 0) return;
  for (const p of wanted) profilesAsked.add(p);
  try {
    const found = await service().withToken(saved.accessToken).playerProfiles(wanted.slice(0, 100));
    update((s) => {
      const profiles = { ...s.profiles };
      for (const p of wanted) profiles[p] = { country: '', avatarUrl: '' };
      for (const f of found) profiles[f.playerId] = { country: f.country, avatarUrl: f.avatarUrl };
      return { profiles };
    });
  } catch {
    for (const p of wanted) profilesAsked.delete(p); // asked again with the next view
  }
}

/** The player's data as the service holds it, downloaded as a JSON file. */
export async function downloadMyData(): Promise<void> {
  const saved = savedSession();
  if (!saved) return;
  const data = await service().withToken(saved.accessToken).exportPlayerData();
  const blob = new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = 'tranca-my-data.json';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

/**
 * Erases the signed-in player (their account, profile and sessions; their games stay with
 * the other players under a pseudonym): the page is a stranger's again, with no session.
 * Refused while the player still plays (PLAYER_STILL_PLAYING), shown where they asked.
 */
export async function eraseMyData(): Promise<void> {
  const saved = savedSession();
  if (!saved) return;
  await service().withToken(saved.accessToken).erasePlayer();
  localStorage.removeItem(SESSION_KEY);
  update({ account: null, notice: t('dataErased') });
}

/** Ends the session; the next call signs in as a guest again. */
export async function signOut(): Promise<void> {
  const saved = savedSession();
  localStorage.removeItem(SESSION_KEY);
  update({ account: null, notice: '' });
  if (saved) await service().withToken(saved.accessToken).signOut().catch(() => undefined);
}

/** Shows a refusal in the service's words, next to where the player acted. */
export function showRefusal(place: Place, err: unknown): void {
  const refusal =
    err instanceof TrancaError
      ? { place, reason: err.reason || err.codeName, message: err.localized?.message ?? err.rawMessage }
      : { place, reason: 'ERROR', message: String((err as Error)?.message ?? err) };
  update({ refusal });
}

/** Runs one of the player's actions: one at a time, its refusal shown at `place`. */
export async function act<T>(place: Place, work: () => Promise<T>): Promise<T | undefined> {
  if (getState().busy) return undefined;
  update({ busy: true, refusal: null });
  try {
    return await work();
  } catch (err) {
    showRefusal(place, err);
    return undefined;
  } finally {
    update({ busy: false });
  }
}
