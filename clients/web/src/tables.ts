// Tables that outlive their match: TableService's calls, joined to TrancaClient
// (client.ts).
import type { ListTableMatchesResponse, RematchResponse } from './gen/tranca/v1/tables_pb.js';
import type { TrancaClient } from './client.js';

export interface ListTableMatchesOptions {
  /** Matches per page: 1 to 200 (0: 50). */
  pageSize?: number;
  /** The previous page's nextPageToken, exactly as it came. */
  pageToken?: string;
}

/** Tables that outlive their match: TrancaClient's methods. */
export class TableCalls {
  // A confirmation is not sent again after a transport failure: a second one of the
  // same seat is refused (REMATCH_CONFIRMED), and the session's JoinGame of the next
  // match answers a new token for the seat it holds there.

  /**
   * Confirms the rematch of the finished match `gameId` with this client's seat token
   * of that match: the seat in the table's next match (the same one), its new token and
   * the next match's view. MATCH_NOT_OVER, TOURNAMENT_TABLE, REMATCH_CONFIRMED,
   * SEAT_TAKEN (the hold ran out and another player sat down).
   */
  rematch(this: TrancaClient, gameId: string): Promise<RematchResponse> {
    return this.call((o) => this.tables.rematch({ gameId }, o), { retry: false, credential: 'player' });
  }

  /** A page of the matches of the table of `gameId` (any of its matches), from its first. */
  listTableMatches(
    this: TrancaClient,
    gameId: string,
    options: ListTableMatchesOptions = {},
  ): Promise<ListTableMatchesResponse> {
    const request = { gameId, pageSize: options.pageSize ?? 0, pageToken: options.pageToken ?? '' };
    return this.call((o) => this.tables.listTableMatches(request, o), { retry: true, credential: 'player' });
  }
}
