// A player's way in and what the service holds about them: sign-in (a guest, a
// device, an identity), linked identities, sessions refreshed and ended, profiles and
// avatars, and the data rights (export, erasure, accounts merged, the audit log).
// SessionService's and AdminService's calls, joined to TrancaClient (client.ts).
import type { AuditEntry } from './gen/tranca/v1/admin_pb.js';
import type {
  LinkedIdentity,
  PlayerSession,
  Profile,
  SignInWithIdentityResponse,
} from './gen/tranca/v1/session_pb.js';
import type { TrancaClient } from './client.js';

/** Sessions, identities, profiles and data rights: TrancaClient's methods. */
export class SessionCalls {
  /** A guest's session (where the app's policy allows it): its tokens. Not retried: a lost answer made a player. */
  async signInGuest(this: TrancaClient, appId: string, displayName = ''): Promise<PlayerSession> {
    const out = await this.call((o) => this.sessions.signInGuest({ appId, displayName }, o), {
      retry: false,
      credential: 'player',
    });
    if (!out.session) throw new Error('SignInGuest answered without a session');
    return out.session;
  }

  /** A device's session: the same device id is the same player every time (so retried). */
  async signInDevice(
    this: TrancaClient,
    appId: string,
    deviceId: string,
    displayName = '',
  ): Promise<PlayerSession> {
    const out = await this.call(
      (o) => this.sessions.signInDevice({ appId, deviceId, displayName }, o),
      { retry: true, credential: 'player' },
    );
    if (!out.session) throw new Error('SignInDevice answered without a session');
    return out.session;
  }

  /**
   * A session for the player an identity names: `provider` is the name the app's
   * policy gives it ("apple", "google", "facebook", its own issuer's) and `idToken`
   * the ID token the provider's sign-in gave the page, or "custom" and a token the
   * app's backend signed. `nonce`: the one passed to the provider, if any. The
   * answer's `newPlayer` says whether the identity was new. Not retried: the token
   * is spent by the first answer, lost or not (a retry is ID_TOKEN_REPLAYED).
   */
  async signInWithIdentity(
    this: TrancaClient,
    appId: string,
    provider: string,
    idToken: string,
    options: { nonce?: string; displayName?: string } = {},
  ): Promise<SignInWithIdentityResponse> {
    const out = await this.call(
      (o) =>
        this.sessions.signInWithIdentity(
          {
            appId,
            provider,
            idToken,
            nonce: options.nonce ?? '',
            displayName: options.displayName ?? '',
          },
          o,
        ),
      { retry: false, credential: 'player' },
    );
    if (!out.session) throw new Error('SignInWithIdentity answered without a session');
    return out;
  }

  /**
   * Links the identity `idToken` names to this client's session's player: how a
   * guest keeps what it played when it signs up (the identity then signs in the
   * guest's player). IDENTITY_ALREADY_LINKED when it is another player's. Not
   * retried: the token is spent.
   */
  async linkIdentity(
    this: TrancaClient,
    provider: string,
    idToken: string,
    nonce = '',
  ): Promise<LinkedIdentity> {
    const out = await this.call((o) => this.sessions.linkIdentity({ provider, idToken, nonce }, o), {
      retry: false,
      credential: 'player',
    });
    if (!out.identity) throw new Error('LinkIdentity answered without an identity');
    return out.identity;
  }

  /** This client's session's player's identities, the oldest link first. */
  async listIdentities(this: TrancaClient): Promise<LinkedIdentity[]> {
    const out = await this.call((o) => this.sessions.listIdentities({}, o), {
      retry: true,
      credential: 'player',
    });
    return out.identities;
  }

  /** Unlinks one of the player's identities (LAST_IDENTITY: an account's only way in is kept). */
  async unlinkIdentity(this: TrancaClient, issuer: string, subject: string): Promise<void> {
    await this.call((o) => this.sessions.unlinkIdentity({ issuer, subject }, o), {
      retry: true,
      credential: 'player',
    });
  }

  /** This client's session's player's profile. */
  async profile(this: TrancaClient): Promise<Profile> {
    const out = await this.call((o) => this.sessions.getProfile({}, o), { retry: true, credential: 'player' });
    if (!out.profile) throw new Error('GetProfile answered without a profile');
    return out.profile;
  }

  /** Changes the player's profile: each field given is changed, the others kept. */
  async updateProfile(this: TrancaClient, change: {
    displayName?: string;
    avatarUrl?: string;
    locale?: string;
    country?: string;
  }): Promise<Profile> {
    const out = await this.call((o) => this.sessions.updateProfile(change, o), {
      retry: true,
      credential: 'player',
    });
    if (!out.profile) throw new Error('UpdateProfile answered without a profile');
    return out.profile;
  }

  /** Another player's public profile (no locale). */
  async playerProfile(this: TrancaClient, playerId: string): Promise<Profile> {
    const out = await this.call((o) => this.sessions.getPlayerProfile({ playerId }, o), {
      retry: true,
      credential: 'player',
    });
    if (!out.profile) throw new Error('GetPlayerProfile answered without a profile');
    return out.profile;
  }

  /**
   * The session's player's avatar from a picture (PNG, JPEG, WebP or GIF, at most 200 KB: make
   * a photo small first); the server keeps a 128-pixel WebP made anew, which the answer's
   * `avatarUrl` names (a path on the server's web address). Not retried: send it again.
   */
  async uploadAvatar(this: TrancaClient, image: Uint8Array): Promise<Profile> {
    const out = await this.call((o) => this.sessions.uploadAvatar({ image }, o), {
      retry: false,
      credential: 'player',
    });
    if (!out.profile) throw new Error('UploadAvatar answered without a profile');
    return out.profile;
  }

  /** The public profiles of up to 100 players at once, in the order asked; those who set none are left out. */
  async playerProfiles(this: TrancaClient, playerIds: readonly string[]): Promise<Profile[]> {
    const out = await this.call((o) => this.sessions.getPlayerProfiles({ playerIds: [...playerIds] }, o), {
      retry: true,
      credential: 'player',
    });
    return out.profiles;
  }

  /**
   * Everything the service holds about a player, as its JSON document (the app's key:
   * any of its players; a session: its own, leave `playerId` empty, where the app allows).
   */
  async exportPlayerData(this: TrancaClient, playerId = ''): Promise<Record<string, unknown>> {
    const out = await this.call((o) => this.sessions.exportPlayerData({ playerId }, o), {
      retry: true,
      credential: 'player',
    });
    return JSON.parse(out.json) as Record<string, unknown>;
  }

  /**
   * Erases a player (LGPD's deletion): their identities, profile and sessions deleted, their
   * id and name elsewhere replaced by the answer's `pseudonym`; `rows` counts what changed.
   * With the app's key any of its players; with a session (`playerId` empty) its own player,
   * where the app's policy allows it, and the session ends with it. Refused while the player
   * still plays (PLAYER_STILL_PLAYING). Not retried: a retry would erase nothing more.
   */
  async erasePlayer(
    this: TrancaClient,
    playerId = '',
  ): Promise<{ pseudonym: string; rows: Record<string, bigint> }> {
    const out = await this.call((o) => this.sessions.erasePlayer({ playerId }, o), {
      retry: false,
      credential: 'player',
    });
    return { pseudonym: out.pseudonym, rows: out.rows };
  }

  /**
   * Folds one player's account into another's (the app's key; one person with two accounts):
   * identities, seats, ranking points, tournaments, tickets, events and chips move to the kept
   * player, whose profile stays. Refused while either plays (PLAYER_STILL_PLAYING) or where
   * the two played together (ACCOUNTS_SHARED_A_TABLE). Audited. The rows changed, by table.
   */
  async mergePlayers(
    this: TrancaClient,
    mergedPlayerId: string,
    keptPlayerId: string,
  ): Promise<Record<string, bigint>> {
    const out = await this.call((o) => this.admin.mergePlayers({ mergedPlayerId, keptPlayerId }, o), {
      retry: true,
      credential: 'app',
    });
    return out.rows;
  }

  /** The app's audit log (its key): erasures and merges, oldest first, after `afterId`. */
  async auditEntries(this: TrancaClient, afterId = 0n, limit = 0): Promise<AuditEntry[]> {
    const out = await this.call((o) => this.admin.listAuditEntries({ afterId, limit }, o), {
      retry: true,
      credential: 'app',
    });
    return out.entries;
  }

  /** New tokens for a session; `refreshToken` is spent. Not retried: a lost rotation's retry would end the session. */
  async refreshSession(this: TrancaClient, refreshToken: string): Promise<PlayerSession> {
    const out = await this.call((o) => this.sessions.refreshSession({ refreshToken }, o), {
      retry: false,
      credential: 'player',
    });
    if (!out.session) throw new Error('RefreshSession answered without a session');
    return out.session;
  }

  /** Ends this client's session (its token) and the seat tokens it was given; how many were revoked. */
  async signOut(this: TrancaClient): Promise<number> {
    const out = await this.call((o) => this.sessions.signOut({}, o), {
      retry: false,
      credential: 'player',
    });
    return out.seatTokensRevoked;
  }
}
