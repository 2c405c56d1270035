// Invitations to a table: InvitationService's calls, joined to TrancaClient
// (client.ts).
import type { CallOptions } from '@connectrpc/connect';

import {
  type AcceptInvitationResponse,
  InvitationDirection,
  InvitationKind,
  InvitationStatus,
  type ListInvitationsResponse,
  type TableInvitation,
} from './gen/tranca/v1/invitations_pb.js';
import type { TrancaClient } from './client.js';

/** An invitation made, declined or cancelled (InvitationService), and whether it changed. */
export interface InvitationChange {
  invitation: TableInvitation;
  /** False when nothing changed (already invited, declined or cancelled): a retry is safe. */
  changed: boolean;
}

export interface ListInvitationsOptions {
  /** Received, sent, or both (the default). */
  direction?: InvitationDirection;
  /** Only invitations of this status (the default: any). */
  status?: InvitationStatus;
  /** Invitations per page: 1 to 200 (0: 50). */
  pageSize?: number;
  /** The previous page's nextPageToken, exactly as it came. */
  pageToken?: string;
  /** With the app's key: the player whose invitations are listed (required). */
  actingPlayerId?: string;
}

/** Invitations to a table: TrancaClient's methods. */
export class InvitationCalls {
  // A player seated at a table (or its owner) invites another to a seat or to watch; the
  // invitee accepts with a seat token of their own. Inviting again, declining or
  // cancelling again answer changed = false, and a session's second acceptance is a new
  // token for the same seat: each is retried after a transport failure.

  /**
   * Invites a player to a seat at `gameId` (`watch`: to watch it). NOT_FRIENDS (the app
   * invites friends only), PLAYER_BLOCKED, INVITATION_REFUSED (they blocked the caller),
   * NOT_AT_TABLE, GAME_FULL, GAME_STARTED.
   */
  inviteToTable(
    this: TrancaClient,
    gameId: string,
    playerId: string,
    options: { watch?: boolean; expiresInSeconds?: number; actingPlayerId?: string } = {},
  ): Promise<InvitationChange> {
    const request = {
      gameId,
      playerId,
      kind: options.watch ? InvitationKind.WATCH : InvitationKind.SEAT,
      expiresInSeconds: options.expiresInSeconds ?? 0,
      actingPlayerId: options.actingPlayerId ?? '',
    };
    return invitation(this, (o) => this.invitations.inviteToTable(request, o), 'InviteToTable');
  }

  /** Accepts an invitation received: the seat (-1: a spectator's place) and its token. */
  acceptInvitation(
    this: TrancaClient,
    invitationId: string,
    actingPlayerId = '',
  ): Promise<AcceptInvitationResponse> {
    const request = { invitationId, actingPlayerId, tokenLifetimeSeconds: 0n };
    return this.call((o) => this.invitations.acceptInvitation(request, o), { retry: true, credential: 'player' });
  }

  /** Turns an invitation received away; the inviter is told. */
  declineInvitation(
    this: TrancaClient,
    invitationId: string,
    actingPlayerId = '',
  ): Promise<InvitationChange> {
    return invitation(
      this,
      (o) => this.invitations.declineInvitation({ invitationId, actingPlayerId }, o),
      'DeclineInvitation',
    );
  }

  /** Withdraws an invitation sent; the invitee is told. */
  cancelInvitation(this: TrancaClient, invitationId: string, actingPlayerId = ''): Promise<InvitationChange> {
    return invitation(
      this,
      (o) => this.invitations.cancelInvitation({ invitationId, actingPlayerId }, o),
      'CancelInvitation',
    );
  }

  /** A page of the caller's invitations, newest first. */
  listInvitations(
    this: TrancaClient,
    options: ListInvitationsOptions = {},
  ): Promise<ListInvitationsResponse> {
    const request = {
      direction: options.direction ?? InvitationDirection.UNSPECIFIED,
      status: options.status ?? InvitationStatus.UNSPECIFIED,
      pageSize: options.pageSize ?? 0,
      pageToken: options.pageToken ?? '',
      actingPlayerId: options.actingPlayerId ?? '',
    };
    return this.call((o) => this.invitations.listInvitations(request, o), { retry: true, credential: 'player' });
  }
}

/** One invitation change, retried (each is idempotent), its invitation required. */
async function invitation(
  client: TrancaClient,
  send: (options: CallOptions) => Promise<{ invitation?: TableInvitation; changed: boolean }>,
  name: string,
): Promise<InvitationChange> {
  const out = await client.call(send, { retry: true, credential: 'player' });
  if (!out.invitation) throw new Error(`${name} answered without an invitation`);
  return { invitation: out.invitation, changed: out.changed };
}
