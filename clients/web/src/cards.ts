// Cards in the project's notation: a rank "A 2 3 4 5 6 7 8 9 T J Q K" and a suit
// "C D H S" ("4H", "TD"), or "JK" for a joker.

export type Suit = 'C' | 'D' | 'H' | 'S';
export const SUITS: readonly Suit[] = ['C', 'D', 'H', 'S'];
export const RANKS = 'A23456789TJQK';

/** The suit of a card, or null for a joker. */
export function suitOf(card: string): Suit | null {
  const s = card.slice(-1);
  return card === 'JK' || !SUITS.includes(s as Suit) ? null : (s as Suit);
}

/** The rank's place (A 0 ... K 12), or 13 for a joker. */
export function rankIndex(card: string): number {
  const i = RANKS.indexOf(card.charAt(0));
  return card === 'JK' || i < 0 ? 13 : i;
}

/** A hand grouped by suit, each group in rank order; jokers in their own group ("JK"). */
export function groupBySuit(hand: readonly string[]): { suit: Suit | 'JK'; cards: string[] }[] {
  const groups = new Map<Suit | 'JK', string[]>();
  for (const card of hand) {
    const key = suitOf(card) ?? 'JK';
    const g = groups.get(key) ?? [];
    g.push(card);
    groups.set(key, g);
  }
  const order: (Suit | 'JK')[] = [...SUITS, 'JK'];
  return order
    .filter((s) => groups.has(s))
    .map((suit) => ({ suit, cards: [...groups.get(suit)!].sort((a, b) => rankIndex(a) - rankIndex(b)) }));
}
