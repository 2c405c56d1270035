// The finished deals as the page keeps them. The server shows a deal's whole table
// (GameView.final_board) only from the version that ended it until the next deal's
// first move, which a robot may play at once: the page keeps each board it is given
// (from the watch stream's message of the deal-ending version, or from GetReplay's
// deals after a reload) rather than asking for it later. Also: the deal a logged
// change belongs to, and the turn's time by the server's clock.
import type { DealBoard, DealResult, GameView, LoggedMove } from '../../src/index.js';

/** The finished deals' tables the page was given, by deal number. */
export type Boards = Readonly<Record<number, DealBoard>>;

/** `boards` with `board` kept (the same object when there is nothing new). */
export function keepBoard(boards: Boards, board: DealBoard | undefined): Boards {
  if (!board || board.dealNumber <= 0 || boards[board.dealNumber]) return boards;
  return { ...boards, [board.dealNumber]: board };
}

/** The board of the deal that ended last, of those kept. */
export function latestBoard(boards: Boards): DealBoard | null {
  let latest: DealBoard | null = null;
  for (const board of Object.values(boards)) {
    if (!latest || board.dealNumber > latest.dealNumber) latest = board;
  }
  return latest;
}

/** The end of a deal the page shows: its number, its table and its result. */
export interface DealEnding {
  number: number;
  /**
   * The whole table; null where the page has none: the server withholds it at a table
   * of a duplicate tournament round while another table of the round plays (or the
   * replay that has it is not read yet). The result alone then.
   */
  board: DealBoard | null;
  /** How it ended and the breakdown; null for a deal the match's end stopped, which is not scored. */
  result: DealResult | null;
}

/** The last deal that ended, from the boards kept and the view's last_deal; null before any did. */
export function lastEnding(view: GameView, boards: Boards): DealEnding | null {
  const board = latestBoard(boards);
  const scored = view.lastDeal ?? null;
  const number = Math.max(board?.dealNumber ?? 0, scored?.dealNumber ?? 0);
  if (number === 0) return null;
  if (board && board.dealNumber === number) return { number, board, result: board.result ?? null };
  return { number, board: null, result: scored };
}

/**
 * The deal a logged change belongs to: the one it ended, if it ended one (its
 * deal_number is the deal after the change, the next one's), else the one it was
 * made in.
 */
export const dealOf = (logged: Pick<LoggedMove, 'dealNumber' | 'endedDeal'>): number =>
  logged.endedDeal > 0 ? logged.endedDeal : logged.dealNumber;

/**
 * How far the server's clock is ahead of the device's, from a view that carries the
 * server's time (server_time_ms, set with a turn's deadline); null without it.
 */
export function clockOffset(view: GameView, deviceNow: number): number | null {
  return view.serverTimeMs > 0n ? Number(view.serverTimeMs) - deviceNow : null;
}
