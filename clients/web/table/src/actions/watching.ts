// Watching a friend's table as a spectator ("Permitir público"): from the friends
// panel, beside a table of a friend's presence that takes spectators, Watch asks
// JoinGame for a spectator's place through the page's session; the spectator's token
// is kept as a seat's is (actions/table.ts), so a reload keeps watching. Stop watching
// forgets it and goes back to the lobby: a spectator holds no seat to give up.
import { getState } from '../store.js';
import { listOpenTables } from './lobby.js';
import { act, joiningName, lobbyClient } from './service.js';
import { leaveTable, sit } from './table.js';

/** Whether the page watches a table (a spectator's token, seat -1) rather than sits at one. */
export const watching = (): boolean => (getState().seated?.seat ?? 0) < 0;

/** A spectator's place at `gameId`, the page at its table with every hand hidden. */
export async function watchTable(gameId: string): Promise<void> {
  await act('friends', async () => {
    const lobby = await lobbyClient();
    const me = await lobby.joinGame({ gameId, seat: -1, spectator: true, playerName: joiningName() });
    sit({ gameId, seat: me.seat, token: me.playerToken });
  });
}

/** Back to the lobby from a table watched; its list of open tables read again. */
export function stopWatchingTable(): void {
  leaveTable();
  void listOpenTables();
}
