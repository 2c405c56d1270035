// The service as the page uses it: the client in the page's language, the app the
// page signs players into, the guest's session, and refusals shown where the player
// acted.
import { type PlayerSession, TrancaClient, TrancaError } from '../../../src/index.js';
import { type Key, type Lang, tr } from '../i18n/index.js';
import { type Place, type WebConfig, getState, update } from '../store.js';

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
      return { appId: params.get('app') ?? c.appId ?? '', guestSignIn: Boolean(c.guestSignIn) };
    }
  } catch {
    // no config served: only ?app= can name the app
  }
  return { appId: params.get('app') ?? '', guestSignIn: params.has('app') };
}

interface SavedSession {
  accessToken: string;
  expiresAt: number;
  name: string; // the display name it signed in with
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
  if (saved && (!typed || typed === saved.name)) return service().withToken(saved.accessToken);
  const name = typed || t('guestName');
  // One sign-in at a time: the lobby's list and a click at once make one guest, not two.
  if (signingIn?.name !== name) {
    const appId = state.config!.appId;
    const promise = service()
      .signInGuest(appId, name)
      .then((s: PlayerSession) => {
        const kept = { accessToken: s.accessToken, expiresAt: Number(s.accessExpiresAtMs), name };
        localStorage.setItem(SESSION_KEY, JSON.stringify(kept));
        return s.accessToken;
      })
      .finally(() => {
        if (signingIn?.promise === promise) signingIn = null;
      });
    signingIn = { name, promise };
  }
  return service().withToken(await signingIn.promise);
}

let signingIn: { name: string; promise: Promise<string> } | null = null;

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
