// Who is who at the table, from the player's side: seat names (the server's robots
// named in the page's language), partners and opponents, "us" and "them".
import type { GameView } from '../../src/index.js';
import { type Lang, tr } from './i18n/index.js';

/** The side a seat plays for, as the server names it (SeatInfo.side): partners share one at four players. */
export const sideOf = (view: GameView, seat: number): number =>
  view.seats[seat]?.side ?? (view.players === 4 ? seat % 2 : seat);

/** The reader's side (a spectator reads as side 0). */
export const mySide = (view: GameView): number => (view.seat >= 0 ? sideOf(view, view.seat) : 0);

/** A seat's name: its player's, "Robot 2" for a robot the server named, "Seat 3" while free. */
export function seatName(lang: Lang, view: GameView, seat: number): string {
  const info = view.seats[seat];
  const name = info?.playerName ?? '';
  const robot = /^robot (\d+)$/.exec(name);
  if (robot) return tr(lang, 'robotName', { n: Number(robot[1]) + 1 });
  return name || tr(lang, 'seat', { n: seat + 1 });
}

/** A side's seats' names, for a spectator: "Ana and Bia", or at two players the one seat's. */
function spectatorSide(lang: Lang, view: GameView, side: number): string {
  const names = view.seats.filter((s) => sideOf(view, s.seat) === side).map((s) => seatName(lang, view, s.seat));
  return names.length === 2 ? tr(lang, 'sideOfTwo', { a: names[0]!, b: names[1]! }) : (names[0] ?? seatName(lang, view, side));
}

/**
 * A side's name from the reader's side: "Us"/"Them", or at two players "You" and the
 * opponent's name; a spectator reads each side by its players' names.
 */
export function sideName(lang: Lang, view: GameView, side: number): string {
  if (view.seat < 0) return spectatorSide(lang, view, side);
  const mine = side === mySide(view);
  if (view.players === 4) return tr(lang, mine ? 'us' : 'them');
  return mine ? tr(lang, 'youSide') : seatName(lang, view, side);
}

/** Where a seat sits around the table, seen from the reader's seat at the bottom. */
export function placeOf(view: GameView, seat: number): 'bottom' | 'left' | 'top' | 'right' {
  const me = Math.max(view.seat, 0);
  const rel = (seat - me + view.players) % view.players;
  if (view.players === 2) return rel === 0 ? 'bottom' : 'top';
  // Play passes to the left: the next seat is on the reader's left, the partner opposite.
  return (['bottom', 'left', 'top', 'right'] as const)[rel]!;
}

/** A side's morto from the reader's side: "Our morto", "Their morto", "Your morto", "Ana's morto". */
export function mortoName(lang: Lang, view: GameView, side: number): string {
  if (view.seat < 0) return tr(lang, 'mortoOf', { side: spectatorSide(lang, view, side) });
  const mine = side === mySide(view);
  if (view.players === 4) return tr(lang, mine ? 'ourMorto' : 'theirMorto');
  return mine ? tr(lang, 'yourMorto') : tr(lang, 'mortoOf', { side: seatName(lang, view, side) });
}
