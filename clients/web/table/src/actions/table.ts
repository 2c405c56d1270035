// The table's actions: sitting (the seat kept in localStorage, so a reload, or the
// page opened again after an absence, comes back to it), the watch stream, the legal
// moves, a move, the seat taken back from a robot, and the log: read from GetReplay
// when the page loads (so a reload keeps it), then grown by every change the watch
// delivers. Each finished deal's whole table is kept as it comes (deals.ts): from
// GetReplay's deals on load, then from every view that carries one.
import {
  type GameView,
  GameStatus,
  type LoggedMove,
  type Move,
  Phase,
  type TableOptionsInit,
  type TrancaClient,
  TrancaError,
  newRequestId,
} from '../../../src/index.js';
import { clockOffset, dealOf, keepBoard } from '../deals.js';
import { type LogEntry, type Seated, getState, update } from '../store.js';
import { act, loadProfiles, service, showRefusal } from './service.js';

const TABLE_KEY = 'tranca.table';
const CLOSED_KEY = 'tranca.dealEndClosed';
const LOG_KEPT = 400;

let watching: AbortController | null = null;
let watchFailures = 0;

const seatClient = (): TrancaClient => service().withToken(getState().seated!.token);

/** The seat this tab had before a reload, if any. */
export function savedSeat(): Seated | null {
  const saved = localStorage.getItem(TABLE_KEY);
  return saved ? (JSON.parse(saved) as Seated) : null;
}

export function sit(seated: Seated): void {
  localStorage.setItem(TABLE_KEY, JSON.stringify(seated));
  const closed = Number(localStorage.getItem(`${CLOSED_KEY}.${seated.gameId}`) ?? 0);
  update({
    seated,
    screen: 'table',
    view: null,
    log: [],
    legal: [],
    legalVersion: -1n,
    selected: [],
    refusal: null,
    boards: {},
    dealEndClosed: closed,
    tableMatches: null,
  });
  void watch(seated);
}

export function myTurn(view: GameView): boolean {
  return view.status === GameStatus.PLAYING && view.turn === view.seat && view.phase !== Phase.OVER;
}

function entryOf(logged: LoggedMove): LogEntry {
  const isMove = Boolean(logged.move?.kind.case);
  return {
    version: logged.version,
    deal: dealOf(logged),
    ended: logged.endedDeal > 0,
    seat: logged.seat,
    actor: logged.actor,
    move: isMove ? logged.move! : null,
    change: isMove ? '' : (logged.move?.text ?? ''),
  };
}

function addToLog(entries: LogEntry[]): void {
  update((s) => {
    const last = s.log[s.log.length - 1]?.version ?? 0n;
    const fresh = entries.filter((e) => e.version > last);
    if (fresh.length === 0) return {};
    return { log: [...s.log, ...fresh].slice(-LOG_KEPT) };
  });
}

/**
 * The log so far and the finished deals' tables, from the replay: what happened
 * before the page (re)loaded. A deal's table is in the views only until the next
 * deal's first move, so after a reload the replay is where the last one is.
 */
async function loadReplay(gameId: string): Promise<void> {
  try {
    const replay = await seatClient().getReplay(gameId);
    const entries = replay.moves.map(entryOf);
    if (getState().seated?.gameId !== gameId) return; // the page sat elsewhere meanwhile
    update((s) => {
      // Entries the watch delivered meanwhile come after the replay's.
      const known = entries[entries.length - 1]?.version ?? 0n;
      let boards = s.boards;
      for (const deal of replay.deals) boards = keepBoard(boards, deal.finalBoard);
      return { boards, log: [...entries, ...s.log.filter((e) => e.version > known)].slice(-LOG_KEPT) };
    });
  } catch {
    // No log is no reason to leave the table: it fills from the watch on.
  }
}

/** Follows the game: every view from the watch stream, as it comes. */
async function watch(seated: Seated): Promise<void> {
  watching?.abort();
  const ctl = new AbortController();
  watching = ctl;
  void loadReplay(seated.gameId);
  try {
    const stream = seatClient().watchGame(seated.gameId, 0n, {
      signal: ctl.signal,
      onReconnect: () => update({ reconnecting: true }),
    });
    for await (const update_ of stream) {
      if (ctl.signal.aborted) return;
      update({ reconnecting: false });
      watchFailures = 0;
      if (update_.move) addToLog([entryOf(update_.move)]);
      setView(update_.view!);
    }
  } catch (err) {
    if (ctl.signal.aborted) return;
    // Refused (the server's limit of open views, say): shown, and tried again a
    // little later while the page still sits at this table.
    showRefusal('table', err);
    watchFailures += 1;
    const wait = Math.min(30_000, 1_000 * 2 ** Math.min(watchFailures, 5));
    setTimeout(() => {
      if (watching === ctl && getState().seated?.gameId === seated.gameId) void watch(seated);
    }, wait);
    return;
  }
  watchFailures = 0;
}

export function setView(view: GameView): void {
  const { view: old, boards } = getState();
  // A finished deal's table is kept even from a view older than the one shown: the
  // views after it no longer carry it.
  const kept = keepBoard(boards, view.finalBoard);
  if (kept !== boards) update({ boards: kept });
  if (old && view.version < old.version) return;
  const handChanged = !old || old.hand.join() !== view.hand.join();
  const offset = clockOffset(view, Date.now());
  update({ view, ...(handChanged ? { selected: [] } : {}), ...(offset !== null ? { clockOffset: offset } : {}) });
  void refreshLegal();
  void loadProfiles(view.seats.map((s) => s.playerId));
}

/** The legal moves at the current version, when it is this seat's turn. */
async function refreshLegal(): Promise<void> {
  const view = getState().view;
  if (!view || !myTurn(view)) {
    if (getState().legal.length) update({ legal: [] });
    return;
  }
  if (getState().legalVersion === view.version) return;
  try {
    const out = await seatClient().listLegalMoves(view.gameId);
    if (getState().view?.version === out.version) update({ legal: out.moves, legalVersion: out.version });
  } catch (err) {
    showRefusal('table', err);
  }
}

export async function play(move: Move): Promise<void> {
  const view = getState().view;
  if (!view) return;
  await act('table', async () => {
    try {
      const out = await seatClient().submitMove(view.gameId, view.version, move, { includeLegalMoves: true });
      update({ selected: [], legal: out.legalMoves, legalVersion: out.version });
      if (out.view) setView(out.view);
    } catch (err) {
      if (err instanceof TrancaError && err.reason === 'VERSION_CONFLICT') {
        setView(await seatClient().getView(view.gameId));
      }
      throw err;
    }
  });
}

/** Takes the seat back from the robot that played it while the player was away. */
export async function reclaimSeat(): Promise<void> {
  const view = getState().view;
  if (!view) return;
  await act('seat', async () => {
    const out = await seatClient().reclaimSeat(view.gameId, newRequestId());
    if (out) setView(out);
  });
}

/**
 * Automatic mode (003: "Juego en modo automático"): on, the server's robot plays the
 * player's seat until they switch it off; every seat sees it.
 */
export async function setAutomatic(on: boolean): Promise<void> {
  const view = getState().view;
  if (!view) return;
  await act('seat', async () => {
    const out = await seatClient().setAutomatic(view.gameId, on, newRequestId());
    if (out) setView(out);
  });
}

/** Leaves the match under way: the player's side resigns and loses it. */
export async function resign(): Promise<void> {
  const view = getState().view;
  if (!view) return;
  await act('table', async () => {
    await seatClient().leaveGame(view.gameId);
    setView(await seatClient().getView(view.gameId));
  });
}

/** Starts a table whose seats are all taken (any seated player may). */
export async function startTable(): Promise<void> {
  const view = getState().view;
  if (!view) return;
  await act('table', async () => {
    setView(await seatClient().startGame(view.gameId));
  });
}

/**
 * The table head's new options for the waiting table (003 "Opciones de mesa"), at the
 * version the head saw: a change in between is refused (ABORTED), not overwritten.
 */
export async function updateOptions(
  table: TableOptionsInit,
  spectatorsAllowed: boolean,
): Promise<boolean> {
  const view = getState().view;
  if (!view) return false;
  const done = await act('table', async () => {
    setView(await seatClient().updateTableOptions(view.gameId, table, { spectatorsAllowed, expectedVersion: view.version }));
    return true;
  });
  return done ?? false;
}

/** Agrees to the stake and rated play the head set. */
export async function consentToOptions(): Promise<void> {
  const view = getState().view;
  if (!view) return;
  await act('table', async () => {
    setView(await seatClient().consentToOptions(view.gameId, newRequestId()));
  });
}

/** Closes the end-of-deal board (it stays closed after a reload). */
export function closeDealEnd(deal: number): void {
  const seated = getState().seated;
  if (seated) localStorage.setItem(`${CLOSED_KEY}.${seated.gameId}`, String(deal));
  update({ dealEndClosed: deal });
}

/** Closes the watch stream as the page goes (a reload, a tab closed), rather than leaving it to the connection. */
export function stopWatching(): void {
  watching?.abort();
}

export function leaveTable(): void {
  watching?.abort();
  const seated = getState().seated;
  if (seated) localStorage.removeItem(`${CLOSED_KEY}.${seated.gameId}`);
  localStorage.removeItem(TABLE_KEY);
  update({ seated: null, view: null, screen: 'lobby', log: [], boards: {}, refusal: null });
}

export function toggleCard(index: number): void {
  update((s) => ({
    selected: s.selected.includes(index) ? s.selected.filter((i) => i !== index) : [...s.selected, index],
  }));
}

export function clearSelection(): void {
  update({ selected: [] });
}
