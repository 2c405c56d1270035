// The lobby's actions: a table of one's own (with robots, or waiting for players),
// the open tables (ListOpenTables) and a seat at one, quick play (a ticket, followed
// until it is matched, found again after a reload, cancelled for real).
import {
  type Ticket,
  TicketStatus,
  type TrancaClient,
  isOpen,
  waitingTicketId,
} from '../../../src/index.js';
import { getState, update } from '../store.js';
import { keepOwnTable } from './invitations.js';
import { sit } from './table.js';
import { act, loadProfiles, lobbyClient, joiningName, savedSession, showRefusal, t } from './service.js';

export const PRESET = 'tranca-000';
// The quick-play ticket this tab follows, until it is seated or out of the queue: a
// page reloaded after its ticket was matched still takes its seat.
const TICKET_KEY = 'tranca.ticket';

// The ticket followed on the waiting screen; aborting it cancels the ticket.
let following: AbortController | null = null;

/** A table of the player's own: robots in the other seats (started at once), or open to others. */
export async function openTable(): Promise<void> {
  await act('lobby', async () => {
    const lobby = await lobbyClient();
    const s = getState().setup;
    const privateTable = s.privateTable && !s.robots; // a private table waits for the players invited
    const spectators = s.spectators;
    const created = await lobby.createGame({
      rules: { preset: PRESET },
      players: s.players,
      spectatorsAllowed: spectators,
      table: {
        private: privateTable,
        robotGraceSeconds: s.robotGraceSeconds,
        turnSeconds: s.turnSeconds,
        pointLimit: BigInt(s.pointLimit),
        express: s.pointLimit === 0,
        robotLevel: s.robotGraceSeconds > 0 ? s.robotLevel : 0,
      },
    });
    const gameId = created.game!.gameId;
    keepOwnTable({ gameId, inviteCode: created.inviteCode, spectators });
    const me = await lobby.joinGame({ gameId, seat: 0, playerName: joiningName() });
    if (s.robots) {
      for (let seat = 1; seat < s.players; seat += 1) await lobby.joinGame({ gameId, seat, robot: true });
      await lobby.withToken(me.playerToken).startGame(gameId);
    }
    sit({ gameId, seat: me.seat, token: me.playerToken });
  });
}

/** The lobby's list: the public tables waiting for players that this player may join. */
export async function listOpenTables(): Promise<void> {
  const saved = savedSession();
  if (!saved && !getState().config?.guestSignIn) return;
  try {
    const lobby = await lobbyClient();
    const page = await lobby.listOpenTables({ pageSize: 20 });
    update({ openTables: page.tables });
    void loadProfiles(page.tables.flatMap((t) => t.playerIds));
  } catch (err) {
    showRefusal('lobby', err);
  }
}

/** A free seat at an open table. */
export async function joinTable(gameId: string): Promise<void> {
  await act('lobby', async () => {
    const lobby = await lobbyClient();
    const me = await lobby.joinGame({ gameId, seat: -1, playerName: joiningName() });
    sit({ gameId, seat: me.seat, token: me.playerToken });
  });
}

/** Quick play: a ticket in the queue, then the seat the matchmaker gives. */
export async function askQuickPlay(): Promise<void> {
  await act('lobby', async () => {
    update({ notice: '' });
    const lobby = await lobbyClient();
    let ticketId: string;
    try {
      ticketId = (await lobby.askQuickPlay({ preset: PRESET, players: getState().setup.players })).ticketId;
    } catch (err) {
      // The player waits already (another tab, an answer lost): follow that ticket.
      const waiting = waitingTicketId(err);
      if (waiting === null) throw err;
      ticketId = waiting;
    }
    void follow(lobby, ticketId);
  });
}

/**
 * A page loaded while its player waits in quick play (reloaded, say): the ticket,
 * found again among the player's (ListQuickPlayTickets), is followed rather than
 * asked for anew; one matched while the page was away seats it.
 */
export async function resumeQuickPlay(): Promise<void> {
  const s = savedSession();
  if (!s) return;
  await act('lobby', async () => {
    const lobby = await lobbyClient();
    const newest = (await lobby.listQuickPlayTickets({ pageSize: 1 })).tickets[0];
    if (newest && isOpen(newest)) {
      void follow(lobby, newest.ticketId);
      return;
    }
    const followed = localStorage.getItem(TICKET_KEY);
    if (newest && newest.ticketId === followed && newest.status === TicketStatus.MATCHED) {
      land(await lobby.getTicket(newest.ticketId)); // with the seat's token
      return;
    }
    localStorage.removeItem(TICKET_KEY);
  });
}

/** Cancel on the waiting screen: the ticket leaves the queue (or seats the page, if matched first). */
export function cancelQuickPlay(): void {
  following?.abort();
}

/** The waiting screen until the ticket is matched or ends. */
async function follow(lobby: TrancaClient, ticketId: string): Promise<void> {
  localStorage.setItem(TICKET_KEY, ticketId);
  const stop = new AbortController();
  following = stop;
  update({ screen: 'waiting', ticketId });
  try {
    const done = await lobby.waitForTicket(ticketId, stop.signal).catch((err: unknown) => {
      if (!stop.signal.aborted) throw err;
      // Cancelled by the player: out of the queue, or seated if the match came first.
      return lobby.cancelTicket(ticketId);
    });
    land(done);
  } catch (err) {
    // Back to the lobby with the refusal shown; asking again finds the ticket if it
    // still waits (ALREADY_WAITING names it).
    update({ screen: 'lobby', ticketId: '' });
    showRefusal('lobby', err);
  } finally {
    if (following === stop) following = null;
  }
}

function land(done: Ticket): void {
  localStorage.removeItem(TICKET_KEY);
  const seat = done.seats[0];
  if (done.status !== TicketStatus.MATCHED || !seat) {
    update({ screen: 'lobby', ticketId: '', notice: done.status === TicketStatus.CANCELLED ? '' : done.reason });
    void listOpenTables();
    return;
  }
  sit({ gameId: done.gameId, seat: seat.seat, token: seat.playerToken });
}
