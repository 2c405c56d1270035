// Quick play (QuickPlayService): a ticket asked for, followed, listed and
// cancelled, joined to TrancaClient (client.ts).
import type { MessageInitShape } from '@bufbuild/protobuf';

import { required, toTrancaError } from './errors.js';
import {
  type AskQuickPlayRequestSchema,
  type ListQuickPlayTicketsRequestSchema,
  type ListQuickPlayTicketsResponse,
  type Ticket,
  TicketStatus,
} from './gen/tranca/v1/quick_play_pb.js';
import { newRequestId, sleep } from './retry.js';
import type { TrancaClient } from './client.js';

/** A ticket that may still change: a party forming, or waiting for a table. */
export function isOpen(ticket: Ticket): boolean {
  return ticket.status === TicketStatus.WAITING || ticket.status === TicketStatus.FORMING;
}

/** Quick play: TrancaClient's methods. */
export class QuickPlayCalls {
  /** Queues the session's player for a table; a retry with the same request id gets the same ticket. */
  async askQuickPlay(
    this: TrancaClient,
    request: MessageInitShape<typeof AskQuickPlayRequestSchema>,
  ): Promise<Ticket> {
    const full = { ...request, requestId: request.requestId || newRequestId() };
    const out = await this.call((o) => this.quickPlay.askQuickPlay(full, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.ticket);
  }

  async getTicket(this: TrancaClient, ticketId: string): Promise<Ticket> {
    const out = await this.call((o) => this.quickPlay.getTicket({ ticketId }, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.ticket);
  }

  /** Takes a ticket out of the queue; one matched first answers with the caller's seats. */
  async cancelTicket(this: TrancaClient, ticketId: string): Promise<Ticket> {
    const out = await this.call((o) => this.quickPlay.cancelTicket({ ticketId }, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.ticket);
  }

  /**
   * A page of a player's tickets, newest first, without seat tokens (a session's own;
   * the app's key names playerId). pageSize 1 to 50 (0: 20); pageToken: the previous
   * page's nextPageToken.
   */
  async listQuickPlayTickets(
    this: TrancaClient,
    request: MessageInitShape<typeof ListQuickPlayTicketsRequestSchema> = {},
  ): Promise<ListQuickPlayTicketsResponse> {
    return this.call((o) => this.quickPlay.listQuickPlayTickets(request, o), {
      retry: true,
      credential: 'player',
    });
  }

  /**
   * The player's ticket still forming or waiting, or null: a player has at most one,
   * and it is the newest. A page reloaded while it waited finds its ticket here.
   */
  async openTicket(this: TrancaClient, playerId = ''): Promise<Ticket | null> {
    const page = await this.listQuickPlayTickets({ playerId, pageSize: 1 });
    const newest = page.tickets[0];
    return newest && isOpen(newest) ? newest : null;
  }

  /**
   * Waits for a ticket to be matched or to end, by WatchTicket; a dropped stream is
   * followed by GetTicket and a new stream. Returns the ticket as it ended.
   */
  async waitForTicket(this: TrancaClient, ticketId: string, signal?: AbortSignal): Promise<Ticket> {
    for (let failures = 0; ; ) {
      try {
        const stream = this.quickPlay.watchTicket(
          { ticketId },
          { headers: this.headers('player'), signal },
        );
        for await (const update of stream) {
          const ticket = update.ticket;
          if (ticket && !isOpen(ticket)) return ticket;
        }
      } catch (raw) {
        const err = toTrancaError(raw);
        if (signal?.aborted || !err.transient || failures >= this.retryPolicy.maxAttempts) throw err;
        failures += 1;
        await sleep(this.backoff(failures), signal);
      }
      const now = await this.getTicket(ticketId);
      if (!isOpen(now)) return now;
    }
  }
}
