// The page's languages: pick one, word a key in it (with plurals by Intl.PluralRules).
// Refusals come worded by the service (google.rpc.LocalizedMessage) in the language
// the page asks for with accept-language; these are the page's own words.
import { type Key, type Table, en } from './en.js';
import { es } from './es.js';
import { ptBR } from './pt-BR.js';

export type { Key } from './en.js';
export type Lang = 'pt-BR' | 'es' | 'en';
export const LANGS: readonly Lang[] = ['pt-BR', 'es', 'en'];
export const LANG_NAMES: Record<Lang, string> = { 'pt-BR': 'Português', es: 'Español', en: 'English' };

const TABLES: Record<Lang, Table> = { 'pt-BR': ptBR, es, en };

/** The keys worded with a number: "cards" for cards_one and cards_other. */
export type PluralKey = { [K in Key]: K extends `${infer B}_one` ? B : never }[Key];

export type Params = Record<string, string | number>;

/** The language to use: ?lang=, then the one saved, then the browser's, then English. */
export function pickLanguage(search: string, saved: string | null, browser: readonly string[]): Lang {
  const wanted = [new URLSearchParams(search).get('lang') ?? '', saved ?? '', ...browser];
  for (const w of wanted) {
    const l = w.toLowerCase();
    if (l.startsWith('pt')) return 'pt-BR';
    if (l.startsWith('es')) return 'es';
    if (l.startsWith('en')) return 'en';
  }
  return 'en';
}

function fill(text: string, params: Params): string {
  return text.replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? `{${k}}`));
}

/** A key's words in a language, with {name} filled in. */
export function tr(lang: Lang, key: Key, params: Params = {}): string {
  return fill(TABLES[lang][key] ?? en[key], params);
}

const rules = new Map<Lang, Intl.PluralRules>();

/** A plural key's words for the number n ({n} filled in with it). */
export function trn(lang: Lang, key: PluralKey, n: number, params: Params = {}): string {
  let r = rules.get(lang);
  if (!r) {
    r = new Intl.PluralRules(lang);
    rules.set(lang, r);
  }
  // CLDR counts 0 as "one" in Portuguese; players write "0 cartas".
  const form = n !== 0 && r.select(n) === 'one' ? 'one' : 'other';
  return tr(lang, `${key}_${form}` as Key, { ...params, n });
}
