// A player's events (NotificationService): a page of them, and the stream of them
// that reopens where it dropped, joined to TrancaClient (client.ts).
import { type TrancaError, required } from './errors.js';
import type {
  ListPlayerEventsResponse,
  PlayerEvent,
  WatchPlayerEventsResponse,
} from './gen/tranca/v1/notifications_pb.js';
import { resumeStream } from './retry.js';
import type { TrancaClient } from './client.js';

export interface PlayerEventsOptions {
  /** With the app's key: the player whose events are read (required); a session: empty or its own. */
  playerId?: string;
  /** Reconnections in a row without an event before the error is thrown (default 8). */
  maxReconnects?: number;
  /** Stops the watch (the iterator then ends). */
  signal?: AbortSignal;
  /** Told of each reconnection: the event id it resumes after and the error that ended the stream. */
  onReconnect?: (afterId: bigint, error: TrancaError | null) => void;
}

/** A player's events: TrancaClient's methods. */
export class PlayerEventCalls {
  /** A page of a player's events after `afterId`, oldest first (pageSize 1 to 500; 0: 50). */
  listPlayerEvents(
    this: TrancaClient,
    request: { playerId?: string; afterId?: bigint | number; pageSize?: number } = {},
  ): Promise<ListPlayerEventsResponse> {
    const full = {
      playerId: request.playerId ?? '',
      afterId: BigInt(request.afterId ?? 0n),
      pageSize: request.pageSize ?? 0,
    };
    return this.call((o) => this.notifications.listPlayerEvents(full, o), {
      retry: true,
      credential: 'player',
    });
  }

  /**
   * A player's events after `afterId` (0: from the oldest kept), oldest first, then each
   * new one as it is written ("your_turn", "friendship", ...: ignore kinds you do not
   * know). A stream that drops is opened again after the last event delivered, after a
   * backoff; after maxReconnects reconnections in a row without an event the error is
   * thrown (TOO_MANY_WATCHES, a refusal, is thrown at once). Ends when `signal` aborts.
   */
  async *watchPlayerEvents(
    this: TrancaClient,
    afterId: bigint | number = 0n,
    options: PlayerEventsOptions = {},
  ): AsyncGenerator<PlayerEvent> {
    yield* resumeStream(this, BigInt(afterId), options, {
      open: (after, signal) =>
        this.notifications.watchPlayerEvents(
          { playerId: options.playerId ?? '', afterId: after },
          { headers: this.headers('player'), signal },
        ),
      read: (update: WatchPlayerEventsResponse) => {
        const event = required(update.event);
        return { item: event, position: event.id };
      },
      endless: 'the event stream kept ending',
    });
  }
}
