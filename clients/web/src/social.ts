// Friends, blocks and presence: SocialService's calls, joined to TrancaClient
// (client.ts).
import type { CallOptions } from '@connectrpc/connect';

import {
  type Friend,
  type ListFriendsResponse,
  type Presence,
  PresenceVisibility,
  type Relation,
} from './gen/tranca/v1/social_pb.js';
import type { TrancaClient } from './client.js';

/** A change of relation (SocialService): the other player as the caller's list shows them now. */
export interface FriendChange {
  friend: Friend;
  /** False when nothing changed (what was asked already held): a retry is safe. */
  changed: boolean;
}

export interface ListFriendsOptions {
  /** Only these relations; empty or absent: every one. */
  relations?: readonly Relation[];
  /** Relations per page: 1 to 200 (0: 50). */
  pageSize?: number;
  /** The previous page's nextPageToken, exactly as it came; empty for the first page. */
  pageToken?: string;
  /** With the app's key: the player whose relations are listed (required). */
  actingPlayerId?: string;
}

/** SetPresence's changes: what is left out stays as it is. */
export interface PresenceChange {
  /** Away (true) or back (false). */
  away?: boolean;
  /** Who may see the presence (friends by default). */
  visibility?: PresenceVisibility;
  /** The player is here now (for the app's key acting for them; a session's call is seen anyway). */
  seen?: boolean;
  /** With the app's key: the player whose presence changes (required). */
  actingPlayerId?: string;
}

/** Friends, blocks and presence: TrancaClient's methods. */
export class SocialCalls {
  // A session acts for its own player (actingPlayerId empty); the app's key for any of
  // its players (actingPlayerId required). Every change is idempotent (asking again for
  // what holds answers changed = false), so each is retried after a transport failure.

  /**
   * Asks a player to be the caller's friend (under mutual follow: follows them); where
   * they asked first, the two are friends at once. FRIEND_REQUEST_REFUSED: they blocked
   * the caller; PLAYER_BLOCKED: the caller blocked them; PLAYER_NOT_FOUND: no such player.
   */
  addFriend(this: TrancaClient, playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return relate(this, (o) => this.social.addFriend({ playerId, actingPlayerId }, o), 'AddFriend');
  }

  /** Accepts a request received (under mutual follow: follows back). NO_FRIEND_REQUEST: none waits. */
  acceptFriend(this: TrancaClient, playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return relate(this, (o) => this.social.acceptFriend({ playerId, actingPlayerId }, o), 'AcceptFriend');
  }

  /** Turns a request received away (under mutual follow: removes a follower); the sender is told. */
  declineFriend(this: TrancaClient, playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return relate(this, (o) => this.social.declineFriend({ playerId, actingPlayerId }, o), 'DeclineFriend');
  }

  /** Withdraws a request sent (under mutual follow: unfollows). */
  cancelFriendRequest(this: TrancaClient, playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return relate(
      this,
      (o) => this.social.cancelFriendRequest({ playerId, actingPlayerId }, o),
      'CancelFriendRequest',
    );
  }

  /** Ends a friendship (under mutual follow: the caller unfollows). */
  removeFriend(this: TrancaClient, playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return relate(this, (o) => this.social.removeFriend({ playerId, actingPlayerId }, o), 'RemoveFriend');
  }

  /** Blocks a player: a friendship or request between them ends, and they are not told. */
  blockPlayer(this: TrancaClient, playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return relate(this, (o) => this.social.blockPlayer({ playerId, actingPlayerId }, o), 'BlockPlayer');
  }

  /** Lifts the caller's block (the friendship does not come back). */
  unblockPlayer(this: TrancaClient, playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return relate(this, (o) => this.social.unblockPlayer({ playerId, actingPlayerId }, o), 'UnblockPlayer');
  }

  /**
   * A page of the caller's relations (friends, requests sent and received, blocks), by
   * the other player's id, each with their public profile where they set one.
   */
  listFriends(this: TrancaClient, options: ListFriendsOptions = {}): Promise<ListFriendsResponse> {
    const request = {
      relations: [...(options.relations ?? [])],
      pageSize: options.pageSize ?? 0,
      pageToken: options.pageToken ?? '',
      actingPlayerId: options.actingPlayerId ?? '',
    };
    return this.call((o) => this.social.listFriends(request, o), { retry: true, credential: 'player' });
  }

  /**
   * The presence of 1 to 100 players (online, away or offline, last seen, the tables they
   * sit at), in the order asked, as the caller may see each: `visible` false, and nothing
   * else, where a player's choice hides it (or the id is no player's). A page keeps its own
   * player online by holding its event stream open (watchPlayerEvents).
   */
  async getPresence(
    this: TrancaClient,
    playerIds: readonly string[],
    actingPlayerId = '',
  ): Promise<Presence[]> {
    const out = await this.call((o) => this.social.getPresence({ playerIds: [...playerIds], actingPlayerId }, o), {
      retry: true,
      credential: 'player',
    });
    return out.presences;
  }

  /** Changes the caller's own presence (away, who sees it); their presence now. */
  async setPresence(this: TrancaClient, change: PresenceChange): Promise<Presence> {
    const request = {
      away: change.away,
      visibility: change.visibility ?? PresenceVisibility.UNSPECIFIED,
      seen: change.seen ?? false,
      actingPlayerId: change.actingPlayerId ?? '',
    };
    const out = await this.call((o) => this.social.setPresence(request, o), { retry: true, credential: 'player' });
    if (!out.presence) throw new Error('SetPresence answered without a presence');
    return out.presence;
  }
}

/** One change of relation, retried (each is idempotent), its friend required. */
async function relate(
  client: TrancaClient,
  send: (options: CallOptions) => Promise<{ friend?: Friend; changed: boolean }>,
  name: string,
): Promise<FriendChange> {
  const out = await client.call(send, { retry: true, credential: 'player' });
  if (!out.friend) throw new Error(`${name} answered without a friend`);
  return { friend: out.friend, changed: out.changed };
}
