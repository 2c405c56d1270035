// Cards, melds and moves in the player's words: "7♣" on a button and "seven of
// clubs" for a screen reader, "Discard 10♦", "Lay down 7♣ 8♣ 9♣", "Add 5♥ to the
// hearts run 2–4", never the engine's notation ("discard TD").
import { type Meld, MeldKind, type Move, RANKS, suitOf } from '../../src/index.js';
import { type Key, type Lang, type Params, tr } from './i18n/index.js';

export const SUIT_SYMBOL: Record<string, string> = { C: '♣', D: '♦', H: '♥', S: '♠' };

/** A rank as printed on a card: A, 2 ... 10, J, Q, K. */
export function rankLabel(rank: string): string {
  return rank === 'T' ? '10' : rank;
}

/** A card as printed: "10♦", "A♠", "★" for a joker. */
export function cardShort(card: string): string {
  if (card === 'JK') return '★';
  return `${rankLabel(card.charAt(0))}${SUIT_SYMBOL[card.charAt(1)] ?? ''}`;
}

/** A card that can stand in for another (a joker or a 2), as a hand or the pile holds it. */
export const isWildCard = (card: string): boolean => card === 'JK' || card.charAt(0) === '2';

/** A card in words: "ten of diamonds", "joker". */
export function cardName(lang: Lang, card: string): string {
  if (card === 'JK') return tr(lang, 'joker');
  return tr(lang, 'card', { rank: tr(lang, `rank_${card.charAt(0)}` as Key), suit: tr(lang, `suit_${card.charAt(1)}` as Key) });
}

/** The part of a meld its words and marks are made from. */
export type MeldShape = Pick<Meld, 'kind' | 'cards' | 'wildIndexes'>;

/**
 * Which cards of a meld stand in as wilds, as the server marks them (wild_indexes):
 * a joker, or a 2 that is not natural where it stands (a 2 of a run's suit in its
 * own place, or any 2 in a set of 2s, is natural).
 */
export function wildFlags(meld: Pick<Meld, 'cards' | 'wildIndexes'>): boolean[] {
  const wild = new Set(meld.wildIndexes);
  return meld.cards.map((_, i) => wild.has(i));
}

/** The index of a meld's first natural card, -1 if it has none. */
function firstNatural(meld: MeldShape): number {
  const wild = new Set(meld.wildIndexes);
  return meld.cards.findIndex((_, i) => !wild.has(i));
}

function runSuit(meld: MeldShape): string {
  return meld.cards[firstNatural(meld)]?.charAt(1) ?? meld.cards[0]?.charAt(1) ?? '';
}

/** The rank index (A 0 ... K 12, a high ace 13) the first card of a run stands for. */
function runStart(meld: MeldShape): number | null {
  const i = firstNatural(meld);
  if (i < 0) return null;
  let r = RANKS.indexOf(meld.cards[i]!.charAt(0)) - i;
  // A run that ends on a high ace: its ace counts above the king.
  if (r < 0) r += 13;
  return r;
}

const rankAt = (index: number): string => rankLabel(RANKS.charAt(index % 13));

/**
 * A meld named for a sentence: "the 7s", "the hearts run 5–8", "the black threes";
 * form "_to" and "_of" with the preposition the language joins to the article
 * ("ao jogo de 7", "del juego de 7").
 */
export function meldName(
  lang: Lang,
  meld: MeldShape | undefined,
  form: '' | '_to' | '_of' = '',
): string {
  const say = (key: 'meldSet' | 'meldRun' | 'meldThrees' | 'aMeld', params: Params = {}): string =>
    tr(lang, `${key}${form}` as Key, params);
  if (!meld) return say('aMeld');
  if (meld.kind === MeldKind.BLACK_THREES) return say('meldThrees');
  if (meld.kind === MeldKind.RUN) {
    const start = runStart(meld) ?? 0;
    const suit = runSuit(meld);
    return say('meldRun', {
      suit: tr(lang, `suit_${suit}` as Key),
      from: rankAt(start),
      to: rankAt(start + meld.cards.length - 1),
    });
  }
  const natural = meld.cards[firstNatural(meld)] ?? meld.cards[0] ?? '';
  return say('meldSet', { rank: rankLabel(natural.charAt(0)) });
}

const cardsShort = (cards: readonly string[]): string => cards.map(cardShort).join(' ');

/** What a move does, in the words of a button ("Discard 10♦") or of the log ("discarded 10♦"). */
export function moveWords(
  lang: Lang,
  move: Move,
  melds: readonly Meld[],
  form: 'button' | 'log',
): string {
  const k = move.kind;
  const meld = (id: number, form: '' | '_to' | '_of' = ''): string =>
    meldName(lang, melds.find((m) => m.id === id), form);
  const say = (button: Key, log: Key, params: Params = {}): string =>
    tr(lang, form === 'button' ? button : log, params);
  switch (k.case) {
    case 'draw':
      return say('mvDraw', 'didDraw');
    case 'takePile':
      return k.value.meldId !== undefined
        ? say('mvTakeOnto', 'didTakeOnto', { meld: meld(k.value.meldId) })
        : say('mvTakeWith', 'didTakeWith', { cards: cardsShort(k.value.cards) });
    case 'createMeld':
      return say('mvLay', 'didLay', { cards: cardsShort(k.value.cards) });
    case 'addToMeld':
      return say('mvAdd', 'didAdd', { card: cardShort(k.value.card), meldTo: meld(k.value.meldId, '_to') });
    case 'replaceWild':
      return say('mvReplace', 'didReplace', { card: cardShort(k.value.card), meldOf: meld(k.value.meldId, '_of') });
    case 'discard':
      return say('mvDiscard', 'didDiscard', { card: cardShort(k.value.card) });
    default:
      return move.text;
  }
}

/** A card's suit for styling: "C", "D", "H", "S" or "JK". */
export const suitClass = (card: string): string => suitOf(card) ?? 'JK';
