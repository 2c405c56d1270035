// A small typed client of the Tranca service for browsers (and Node.js 20+, which
// has fetch): the generated Connect-ES clients of GameService, SessionService,
// QuickPlayService, SocialService, InvitationService, NotificationService and
// ChatService, over the Connect protocol (JSON, or binary) or gRPC-Web, with
//   - credentials and language as headers: x-api-key (an app), authorization: Bearer
//     (a player's session token or a seat's token), accept-language;
//   - typed errors (TrancaError: the ErrorInfo reason and metadata, the localized
//     message);
//   - retries that are safe: reads, and calls that carry a request id (the same id on
//     every attempt, so a move whose answer was lost is played once), are sent again
//     after a transport failure; nothing else is. A call refused by the rate limit
//     (RATE_LIMITED) changed nothing and is sent again after the server's hint;
//   - watches that reopen a dropped WatchGame stream from the last version it
//     delivered, and a dropped WatchPlayerEvents or WatchChat stream after the last
//     event or message it delivered, so nothing is missed or repeated.
import { type MessageInitShape, create } from '@bufbuild/protobuf';
import {
  Code,
  type CallOptions,
  type Client,
  type Interceptor,
  type Transport,
  createClient,
} from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-web';

import { TrancaError, toTrancaError } from './errors.js';
import {
  CreateGameRequestSchema,
  type CreateGameResponse,
  type GameView,
  GameService,
  GameStatus,
  type GetReplayResponse,
  JoinGameRequestSchema,
  type JoinGameResponse,
  type ListOpenTablesRequestSchema,
  type ListOpenTablesResponse,
  type ListLegalMovesResponse,
  type ListPresetsResponse,
  type Move,
  MoveSchema,
  type SubmitMoveResponse,
  type WatchGameResponse,
} from './gen/tranca/v1/game_pb.js';
import { AdminService, type AuditEntry } from './gen/tranca/v1/admin_pb.js';
import {
  ChatService,
  type ChatMessage,
  ChatMessageSchema,
  type ChatReport,
  type ChatRoom,
  type ListChatMessagesResponse,
  type ListChatReportsResponse,
  type QuickPhrase,
  ReportStatus,
  type Resolution,
  RoomKind,
} from './gen/tranca/v1/chat_pb.js';
import {
  AskQuickPlayRequestSchema,
  type ListQuickPlayTicketsRequestSchema,
  type ListQuickPlayTicketsResponse,
  QuickPlayService,
  type Ticket,
  TicketStatus,
} from './gen/tranca/v1/quick_play_pb.js';
import {
  NotificationService,
  type ListPlayerEventsResponse,
  type PlayerEvent,
} from './gen/tranca/v1/notifications_pb.js';
import {
  type Friend,
  type ListFriendsResponse,
  type Presence,
  PresenceVisibility,
  type Relation,
  SocialService,
} from './gen/tranca/v1/social_pb.js';
import {
  type AcceptInvitationResponse,
  InvitationDirection,
  InvitationKind,
  InvitationService,
  InvitationStatus,
  type ListInvitationsResponse,
  type TableInvitation,
} from './gen/tranca/v1/invitations_pb.js';
import {
  type LinkedIdentity,
  type PlayerSession,
  type Profile,
  SessionService,
  type SignInWithIdentityResponse,
} from './gen/tranca/v1/session_pb.js';

/** How calls that are safe to repeat are retried after a transport failure. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: no retries). */
  maxAttempts: number;
  /** The wait before the first retry; it doubles each time, with jitter. */
  initialBackoffMs: number;
  /** The longest wait. */
  maxBackoffMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  maxAttempts: 4,
  initialBackoffMs: 100,
  maxBackoffMs: 2000,
});

export interface TrancaClientOptions {
  /** The server's browser port: "http://127.0.0.1:8080" (a page on it: its origin). */
  baseUrl: string;
  /** "connect" (the default) or "grpc-web". */
  protocol?: 'connect' | 'grpc-web';
  /** The Connect protocol's binary format instead of JSON (gRPC-Web is always binary). */
  binary?: boolean;
  /** An app's API key (x-api-key): never in a page a player can read. */
  apiKey?: string;
  /** A player's session access token or a seat's token (authorization: Bearer). */
  token?: string;
  /** The language refusals are worded in ("pt-BR", "es", "en"), sent as accept-language. */
  language?: string;
  /** Deadline of each unary call (default 10 s). */
  timeoutMs?: number;
  /** Retries after transport failures. */
  retry?: Partial<RetryPolicy>;
  /** Connect interceptors (logging, tests' fault injection). */
  interceptors?: Interceptor[];
  /** The fetch to use (default: globalThis.fetch). */
  fetch?: typeof globalThis.fetch;
  /** A transport made elsewhere (the options above about transport are then ignored). */
  transport?: Transport;
}

/** Which credential a call sends when the client holds both. */
type Credential = 'app' | 'player';

interface CallPolicy {
  /** Send again after a transport failure (reads, and calls with a request id). */
  retry: boolean;
  /** Send again after ABORTED: calls that send no expected version, which lost a race for the row and did nothing. */
  conflicts?: boolean;
  credential: Credential;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A random request id (a UUID v4), also where crypto.randomUUID is missing (plain http on a LAN address). */
export function newRequestId(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The milliseconds to wait before sending a rate-limited call again, or null. */
export function rateLimitWait(err: TrancaError): number | null {
  if (err.code !== Code.ResourceExhausted || err.reason !== 'RATE_LIMITED') return null;
  const hint = Number.parseInt(err.metadata.retry_after_ms ?? '', 10);
  return (Number.isFinite(hint) && hint > 0 ? hint : 100) + Math.floor(Math.random() * 20);
}

/** Builders of moves, as SubmitMove takes them. */
export const moves = Object.freeze({
  draw: (): Move => create(MoveSchema, { kind: { case: 'draw', value: {} } }),
  takePileOnto: (meldId: number): Move =>
    create(MoveSchema, { kind: { case: 'takePile', value: { meldId } } }),
  takePileWith: (card1: string, card2: string): Move =>
    create(MoveSchema, { kind: { case: 'takePile', value: { cards: [card1, card2] } } }),
  createMeld: (cards: readonly string[]): Move =>
    create(MoveSchema, { kind: { case: 'createMeld', value: { cards: [...cards] } } }),
  addToMeld: (meldId: number, card: string): Move =>
    create(MoveSchema, { kind: { case: 'addToMeld', value: { meldId, card } } }),
  replaceWild: (meldId: number, card: string): Move =>
    create(MoveSchema, { kind: { case: 'replaceWild', value: { meldId, card } } }),
  discard: (card: string): Move =>
    create(MoveSchema, { kind: { case: 'discard', value: { card } } }),
});

/** A chat room (ChatService), by kind and id. */
export type ChatRoomRef = Pick<ChatRoom, 'kind' | 'id'>;

/** Builders of chat rooms, as ChatService's calls take them. */
export const rooms = Object.freeze({
  /** A table's players' room: its players write (their seat's token), its spectators read. */
  table: (gameId: string): ChatRoomRef => ({ kind: RoomKind.TABLE, id: gameId }),
  /** A table's spectators' room: its spectators write; its players read at a practice table, at a rated one once the match is over. */
  spectators: (gameId: string): ChatRoomRef => ({ kind: RoomKind.SPECTATORS, id: gameId }),
  /** One of the app's lobby rooms, by name ("main"), with a player's session. */
  lobby: (name: string): ChatRoomRef => ({ kind: RoomKind.LOBBY, id: name }),
  /** The conversation with a friend, by their player id, with a player's session. */
  direct: (playerId: string): ChatRoomRef => ({ kind: RoomKind.DIRECT, id: playerId }),
});

/** A message to post: free text or a quick phrase's id (one of the two). */
export interface ChatSend {
  text?: string;
  phrase?: string;
  /** The author's id of this message (default: a new UUID); every retry sends the same one. */
  clientMessageId?: string;
  signal?: AbortSignal;
}

export interface ChatWatchOptions {
  /** Reconnections in a row without a message before the error is thrown (default 8). */
  maxReconnects?: number;
  /** Stops the watch (the iterator then ends). */
  signal?: AbortSignal;
  /** Told of each reconnection: the message id it resumes after and the error that ended the stream. */
  onReconnect?: (afterId: bigint, error: TrancaError | null) => void;
}

export interface ListChatReportsOptions {
  /** Only reports in this status (the default: any). */
  status?: ReportStatus;
  /** Reports per page: 1 to 200 (0: 50). */
  pageSize?: number;
  /** The previous page's nextPageToken, exactly as it came; empty for the first page. */
  pageToken?: string;
}

export interface ResolveChatReportOptions {
  /** How long a mute (1 to 2,592,000) or a ban (0: no end) lasts, in seconds; 0 for a dismissal or a warning. */
  seconds?: bigint | number;
  /** The administrator's note, sent to the author with a warning or a sanction (at most 500 characters). */
  note?: string;
}

export interface SubmitOptions {
  /** The request id (default: a new UUID); every retry sends the same one. */
  requestId?: string;
  /** Ask for the legal moves after this one in the answer. */
  includeLegalMoves?: boolean;
  signal?: AbortSignal;
}

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

export interface WatchOptions {
  /** Reconnections in a row without an update before the error is thrown (default 8). */
  maxReconnects?: number;
  /** Stops the watch (the iterator then ends). */
  signal?: AbortSignal;
  /** Told of each reconnection: the version it resumes from and the error that ended the stream. */
  onReconnect?: (fromVersion: bigint, error: TrancaError | null) => void;
}

/**
 * One connection's worth of calls to the service. A client holds at most an API key
 * and a token; withToken() makes another one on the same transport for another
 * credential (a session's token for the lobby, a seat's token at the table).
 */
export class TrancaClient {
  readonly transport: Transport;
  readonly games: Client<typeof GameService>;
  readonly sessions: Client<typeof SessionService>;
  readonly quickPlay: Client<typeof QuickPlayService>;
  readonly admin: Client<typeof AdminService>;
  readonly social: Client<typeof SocialService>;
  readonly invitations: Client<typeof InvitationService>;
  readonly notifications: Client<typeof NotificationService>;
  readonly chat: Client<typeof ChatService>;
  readonly apiKey: string;
  readonly token: string;
  readonly language: string;
  readonly timeoutMs: number;
  readonly retryPolicy: RetryPolicy;
  /** Calls sent again, by cause (shared by the clients made with withToken). */
  readonly retries: { transient: number; rateLimited: number; conflicts: number };

  constructor(options: TrancaClientOptions, shared?: TrancaClient) {
    this.transport = shared?.transport ?? options.transport ?? makeTransport(options);
    this.games = shared?.games ?? createClient(GameService, this.transport);
    this.sessions = shared?.sessions ?? createClient(SessionService, this.transport);
    this.quickPlay = shared?.quickPlay ?? createClient(QuickPlayService, this.transport);
    this.admin = shared?.admin ?? createClient(AdminService, this.transport);
    this.social = shared?.social ?? createClient(SocialService, this.transport);
    this.invitations = shared?.invitations ?? createClient(InvitationService, this.transport);
    this.notifications = shared?.notifications ?? createClient(NotificationService, this.transport);
    this.chat = shared?.chat ?? createClient(ChatService, this.transport);
    this.retries = shared?.retries ?? { transient: 0, rateLimited: 0, conflicts: 0 };
    this.apiKey = options.apiKey ?? '';
    this.token = options.token ?? '';
    this.language = options.language ?? '';
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  }

  /** A client with another token (and the same transport, key, language and retries). */
  withToken(token: string): TrancaClient {
    return new TrancaClient(this.options({ token }), this);
  }

  /** A client asking for refusals in another language. */
  withLanguage(language: string): TrancaClient {
    return new TrancaClient(this.options({ language }), this);
  }

  private options(over: Partial<TrancaClientOptions>): TrancaClientOptions {
    return {
      baseUrl: '',
      apiKey: this.apiKey,
      token: this.token,
      language: this.language,
      timeoutMs: this.timeoutMs,
      retry: this.retryPolicy,
      ...over,
    };
  }

  /** The headers of a call: one credential, and the language. */
  headers(credential: Credential = 'player'): Headers {
    const h = new Headers();
    const useKey = this.apiKey && (credential === 'app' || !this.token);
    if (useKey) h.set('x-api-key', this.apiKey);
    else if (this.token) h.set('authorization', `Bearer ${this.token}`);
    if (this.language) h.set('accept-language', this.language);
    return h;
  }

  private backoff(attempt: number): number {
    const p = this.retryPolicy;
    const base = Math.min(p.maxBackoffMs, p.initialBackoffMs * 2 ** Math.max(0, attempt - 1));
    return base / 2 + Math.random() * (base / 2);
  }

  /**
   * Runs one unary call under a policy: errors become TrancaErrors; rate-limited
   * calls are sent again after the server's hint; transport failures only where the
   * policy says the call is safe to repeat.
   */
  async call<T>(
    send: (options: CallOptions) => Promise<T>,
    policy: CallPolicy,
    signal?: AbortSignal,
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await send({
          headers: this.headers(policy.credential),
          timeoutMs: this.timeoutMs,
          signal,
        });
      } catch (raw) {
        const err = toTrancaError(raw);
        if (signal?.aborted || attempt >= this.retryPolicy.maxAttempts) throw err;
        const limited = rateLimitWait(err);
        if (limited !== null) {
          this.retries.rateLimited += 1;
          await sleep(limited, signal);
        } else if (policy.retry && err.transient) {
          this.retries.transient += 1;
          await sleep(this.backoff(attempt), signal);
        } else if (policy.conflicts && err.code === Code.Aborted) {
          this.retries.conflicts += 1;
          await sleep(this.backoff(attempt) / 4, signal);
        } else {
          throw err;
        }
      }
    }
  }

  // ----- sessions --------------------------------------------------------------------

  /** A guest's session (where the app's policy allows it): its tokens. Not retried: a lost answer made a player. */
  async signInGuest(appId: string, displayName = ''): Promise<PlayerSession> {
    const out = await this.call((o) => this.sessions.signInGuest({ appId, displayName }, o), {
      retry: false,
      credential: 'player',
    });
    if (!out.session) throw new Error('SignInGuest answered without a session');
    return out.session;
  }

  /** A device's session: the same device id is the same player every time (so retried). */
  async signInDevice(appId: string, deviceId: string, displayName = ''): Promise<PlayerSession> {
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
  async linkIdentity(provider: string, idToken: string, nonce = ''): Promise<LinkedIdentity> {
    const out = await this.call((o) => this.sessions.linkIdentity({ provider, idToken, nonce }, o), {
      retry: false,
      credential: 'player',
    });
    if (!out.identity) throw new Error('LinkIdentity answered without an identity');
    return out.identity;
  }

  /** This client's session's player's identities, the oldest link first. */
  async listIdentities(): Promise<LinkedIdentity[]> {
    const out = await this.call((o) => this.sessions.listIdentities({}, o), {
      retry: true,
      credential: 'player',
    });
    return out.identities;
  }

  /** Unlinks one of the player's identities (LAST_IDENTITY: an account's only way in is kept). */
  async unlinkIdentity(issuer: string, subject: string): Promise<void> {
    await this.call((o) => this.sessions.unlinkIdentity({ issuer, subject }, o), {
      retry: true,
      credential: 'player',
    });
  }

  /** This client's session's player's profile. */
  async profile(): Promise<Profile> {
    const out = await this.call((o) => this.sessions.getProfile({}, o), { retry: true, credential: 'player' });
    if (!out.profile) throw new Error('GetProfile answered without a profile');
    return out.profile;
  }

  /** Changes the player's profile: each field given is changed, the others kept. */
  async updateProfile(change: {
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
  async playerProfile(playerId: string): Promise<Profile> {
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
  async uploadAvatar(image: Uint8Array): Promise<Profile> {
    const out = await this.call((o) => this.sessions.uploadAvatar({ image }, o), {
      retry: false,
      credential: 'player',
    });
    if (!out.profile) throw new Error('UploadAvatar answered without a profile');
    return out.profile;
  }

  /** The public profiles of up to 100 players at once, in the order asked; those who set none are left out. */
  async playerProfiles(playerIds: readonly string[]): Promise<Profile[]> {
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
  async exportPlayerData(playerId = ''): Promise<Record<string, unknown>> {
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
  async erasePlayer(playerId = ''): Promise<{ pseudonym: string; rows: Record<string, bigint> }> {
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
  async mergePlayers(mergedPlayerId: string, keptPlayerId: string): Promise<Record<string, bigint>> {
    const out = await this.call((o) => this.admin.mergePlayers({ mergedPlayerId, keptPlayerId }, o), {
      retry: true,
      credential: 'app',
    });
    return out.rows;
  }

  /** The app's audit log (its key): erasures and merges, oldest first, after `afterId`. */
  async auditEntries(afterId = 0n, limit = 0): Promise<AuditEntry[]> {
    const out = await this.call((o) => this.admin.listAuditEntries({ afterId, limit }, o), {
      retry: true,
      credential: 'app',
    });
    return out.entries;
  }

  /** New tokens for a session; `refreshToken` is spent. Not retried: a lost rotation's retry would end the session. */
  async refreshSession(refreshToken: string): Promise<PlayerSession> {
    const out = await this.call((o) => this.sessions.refreshSession({ refreshToken }, o), {
      retry: false,
      credential: 'player',
    });
    if (!out.session) throw new Error('RefreshSession answered without a session');
    return out.session;
  }

  /** Ends this client's session (its token) and the seat tokens it was given; how many were revoked. */
  async signOut(): Promise<number> {
    const out = await this.call((o) => this.sessions.signOut({}, o), {
      retry: false,
      credential: 'player',
    });
    return out.seatTokensRevoked;
  }

  // ----- tables ----------------------------------------------------------------------

  listPresets(): Promise<ListPresetsResponse> {
    return this.call((o) => this.games.listPresets({}, o), { retry: true, credential: 'app' });
  }

  /** Not retried after a transport failure: a lost answer may have made a game. */
  createGame(request: MessageInitShape<typeof CreateGameRequestSchema>): Promise<CreateGameResponse> {
    return this.call((o) => this.games.createGame(request, o), {
      retry: false,
      credential: 'app',
    });
  }

  /** Not retried after a transport failure (a lost answer may have taken the seat); retried after ABORTED. */
  joinGame(request: MessageInitShape<typeof JoinGameRequestSchema>): Promise<JoinGameResponse> {
    return this.call((o) => this.games.joinGame(request, o), {
      retry: false,
      conflicts: true,
      credential: 'app',
    });
  }

  /** Deals the first deal; a retry that finds the game started returns its view. */
  async startGame(gameId: string): Promise<GameView> {
    const before = this.retries.transient;
    try {
      const out = await this.call((o) => this.games.startGame({ gameId }, o), {
        retry: true,
        conflicts: true,
        credential: 'player',
      });
      return required(out.view);
    } catch (err) {
      // Sent again after a lost answer, and refused: the first attempt may have started it.
      if (err instanceof TrancaError && this.retries.transient > before && err.code === Code.FailedPrecondition) {
        const view = await this.getView(gameId);
        if (view.status !== GameStatus.WAITING) return view;
      }
      throw err;
    }
  }

  async getView(gameId: string): Promise<GameView> {
    const out = await this.call((o) => this.games.getView({ gameId }, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.view);
  }

  listLegalMoves(gameId: string): Promise<ListLegalMovesResponse> {
    return this.call((o) => this.games.listLegalMoves({ gameId }, o), {
      retry: true,
      credential: 'player',
    });
  }

  /**
   * Plays one move for the token's seat at `expectedVersion`. Every attempt sends the
   * same request id: a move whose answer was lost is played once, and the retry gets
   * the first answer (`replayed`). ABORTED (VERSION_CONFLICT: the game moved on) is
   * thrown to the caller, except after a lost answer, where it may be the retry
   * racing its own first attempt: it is sent once more, and the server replays the
   * first answer if the move was played.
   */
  async submitMove(
    gameId: string,
    expectedVersion: bigint | number,
    move: Move,
    options: SubmitOptions = {},
  ): Promise<SubmitMoveResponse> {
    const request = {
      gameId,
      expectedVersion: BigInt(expectedVersion),
      requestId: options.requestId ?? newRequestId(),
      move,
      includeLegalMoves: options.includeLegalMoves ?? false,
    };
    const before = this.retries.transient;
    try {
      return await this.call((o) => this.games.submitMove(request, o), {
        retry: true,
        credential: 'player',
      }, options.signal);
    } catch (err) {
      if (err instanceof TrancaError && err.code === Code.Aborted && this.retries.transient > before) {
        return this.call((o) => this.games.submitMove(request, o), {
          retry: true,
          credential: 'player',
        }, options.signal);
      }
      throw err;
    }
  }

  /** Frees the seat before the start, or resigns; carries a request id. */
  async leaveGame(gameId: string, requestId = newRequestId()): Promise<bigint> {
    const out = await this.call((o) => this.games.leaveGame({ gameId, requestId }, o), {
      retry: true,
      conflicts: true,
      credential: 'player',
    });
    return out.version;
  }

  /**
   * Gives the token's seat back to its player after a robot took it over (the
   * player was away longer than the table's robot grace period); the view after.
   * Carries a request id: a retry with it changes nothing more.
   */
  async reclaimSeat(gameId: string, requestId = newRequestId()): Promise<GameView> {
    const out = await this.call((o) => this.games.reclaimSeat({ gameId, requestId }, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.view);
  }

  /** Tells the server the token's player is at the table (an open watch does too); whether a robot plays the seat now. */
  async heartbeat(gameId: string): Promise<boolean> {
    const out = await this.call((o) => this.games.heartbeat({ gameId }, o), {
      retry: true,
      credential: 'player',
    });
    return out.robotSeated;
  }

  /**
   * The lobby: public tables waiting for players that the caller may join, oldest
   * first (a player's session sees those its app's policy lets it join).
   */
  listOpenTables(
    request: MessageInitShape<typeof ListOpenTablesRequestSchema> = {},
  ): Promise<ListOpenTablesResponse> {
    return this.call((o) => this.games.listOpenTables(request, o), {
      retry: true,
      credential: 'player',
    });
  }

  getReplay(gameId: string): Promise<GetReplayResponse> {
    return this.call((o) => this.games.getReplay({ gameId }, o), {
      retry: true,
      credential: 'player',
    });
  }

  /**
   * Every view after `fromVersion` (0: from the current one), in order, with the move
   * that made it. A stream that drops (a transport failure, or an end before the
   * match is over) is opened again from the last version delivered, after a backoff;
   * after maxReconnects reconnections in a row without an update, the error is
   * thrown. Ends when the match is over, or when `signal` aborts.
   */
  async *watchGame(
    gameId: string,
    fromVersion: bigint | number = 0n,
    options: WatchOptions = {},
  ): AsyncGenerator<WatchGameResponse> {
    let last = BigInt(fromVersion);
    let failures = 0;
    const maxReconnects = options.maxReconnects ?? 8;
    const { signal } = options;
    for (;;) {
      let error: TrancaError | null = null;
      try {
        const stream = this.games.watchGame(
          { gameId, fromVersion: last },
          { headers: this.headers('player'), signal },
        );
        for await (const update of stream) {
          failures = 0;
          const view = required(update.view);
          if (view.version <= last && last > 0n) continue; // never twice
          last = view.version;
          yield update;
          if (view.status === GameStatus.FINISHED) return;
        }
      } catch (raw) {
        if (signal?.aborted) return;
        error = toTrancaError(raw);
        const limited = rateLimitWait(error);
        if (!error.transient && limited === null) throw error;
      }
      if (signal?.aborted) return;
      failures += 1;
      if (failures > maxReconnects) {
        throw error ?? new TrancaError(Code.Unavailable, 'the watch stream kept ending', null, null);
      }
      this.retries.transient += 1;
      options.onReconnect?.(last, error);
      const limited = error ? rateLimitWait(error) : null;
      try {
        await sleep(limited ?? this.backoff(failures), signal);
      } catch {
        return;
      }
    }
  }

  // ----- friends and blocks ------------------------------------------------------------
  //
  // A session acts for its own player (actingPlayerId empty); the app's key for any of
  // its players (actingPlayerId required). Every change is idempotent (asking again for
  // what holds answers changed = false), so each is retried after a transport failure.

  /**
   * Asks a player to be the caller's friend (under mutual follow: follows them); where
   * they asked first, the two are friends at once. FRIEND_REQUEST_REFUSED: they blocked
   * the caller; PLAYER_BLOCKED: the caller blocked them; PLAYER_NOT_FOUND: no such player.
   */
  addFriend(playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return this.relate((o) => this.social.addFriend({ playerId, actingPlayerId }, o), 'AddFriend');
  }

  /** Accepts a request received (under mutual follow: follows back). NO_FRIEND_REQUEST: none waits. */
  acceptFriend(playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return this.relate((o) => this.social.acceptFriend({ playerId, actingPlayerId }, o), 'AcceptFriend');
  }

  /** Turns a request received away (under mutual follow: removes a follower); the sender is told. */
  declineFriend(playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return this.relate((o) => this.social.declineFriend({ playerId, actingPlayerId }, o), 'DeclineFriend');
  }

  /** Withdraws a request sent (under mutual follow: unfollows). */
  cancelFriendRequest(playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return this.relate(
      (o) => this.social.cancelFriendRequest({ playerId, actingPlayerId }, o),
      'CancelFriendRequest',
    );
  }

  /** Ends a friendship (under mutual follow: the caller unfollows). */
  removeFriend(playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return this.relate((o) => this.social.removeFriend({ playerId, actingPlayerId }, o), 'RemoveFriend');
  }

  /** Blocks a player: a friendship or request between them ends, and they are not told. */
  blockPlayer(playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return this.relate((o) => this.social.blockPlayer({ playerId, actingPlayerId }, o), 'BlockPlayer');
  }

  /** Lifts the caller's block (the friendship does not come back). */
  unblockPlayer(playerId: string, actingPlayerId = ''): Promise<FriendChange> {
    return this.relate((o) => this.social.unblockPlayer({ playerId, actingPlayerId }, o), 'UnblockPlayer');
  }

  /**
   * A page of the caller's relations (friends, requests sent and received, blocks), by
   * the other player's id, each with their public profile where they set one.
   */
  listFriends(options: ListFriendsOptions = {}): Promise<ListFriendsResponse> {
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
  async getPresence(playerIds: readonly string[], actingPlayerId = ''): Promise<Presence[]> {
    const out = await this.call((o) => this.social.getPresence({ playerIds: [...playerIds], actingPlayerId }, o), {
      retry: true,
      credential: 'player',
    });
    return out.presences;
  }

  /** Changes the caller's own presence (away, who sees it); their presence now. */
  async setPresence(change: PresenceChange): Promise<Presence> {
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

  /** One change of relation, retried (each is idempotent), its friend required. */
  private async relate(
    send: (options: CallOptions) => Promise<{ friend?: Friend; changed: boolean }>,
    name: string,
  ): Promise<FriendChange> {
    const out = await this.call(send, { retry: true, credential: 'player' });
    if (!out.friend) throw new Error(`${name} answered without a friend`);
    return { friend: out.friend, changed: out.changed };
  }

  // ----- invitations to a table ---------------------------------------------------------
  //
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
    return this.invitation((o) => this.invitations.inviteToTable(request, o), 'InviteToTable');
  }

  /** Accepts an invitation received: the seat (-1: a spectator's place) and its token. */
  acceptInvitation(invitationId: string, actingPlayerId = ''): Promise<AcceptInvitationResponse> {
    const request = { invitationId, actingPlayerId, tokenLifetimeSeconds: 0n };
    return this.call((o) => this.invitations.acceptInvitation(request, o), { retry: true, credential: 'player' });
  }

  /** Turns an invitation received away; the inviter is told. */
  declineInvitation(invitationId: string, actingPlayerId = ''): Promise<InvitationChange> {
    return this.invitation(
      (o) => this.invitations.declineInvitation({ invitationId, actingPlayerId }, o),
      'DeclineInvitation',
    );
  }

  /** Withdraws an invitation sent; the invitee is told. */
  cancelInvitation(invitationId: string, actingPlayerId = ''): Promise<InvitationChange> {
    return this.invitation(
      (o) => this.invitations.cancelInvitation({ invitationId, actingPlayerId }, o),
      'CancelInvitation',
    );
  }

  /** A page of the caller's invitations, newest first. */
  listInvitations(options: ListInvitationsOptions = {}): Promise<ListInvitationsResponse> {
    const request = {
      direction: options.direction ?? InvitationDirection.UNSPECIFIED,
      status: options.status ?? InvitationStatus.UNSPECIFIED,
      pageSize: options.pageSize ?? 0,
      pageToken: options.pageToken ?? '',
      actingPlayerId: options.actingPlayerId ?? '',
    };
    return this.call((o) => this.invitations.listInvitations(request, o), { retry: true, credential: 'player' });
  }

  /** One invitation change, retried (each is idempotent), its invitation required. */
  private async invitation(
    send: (options: CallOptions) => Promise<{ invitation?: TableInvitation; changed: boolean }>,
    name: string,
  ): Promise<InvitationChange> {
    const out = await this.call(send, { retry: true, credential: 'player' });
    if (!out.invitation) throw new Error(`${name} answered without an invitation`);
    return { invitation: out.invitation, changed: out.changed };
  }

  // ----- a player's events -------------------------------------------------------------

  /** A page of a player's events after `afterId`, oldest first (pageSize 1 to 500; 0: 50). */
  listPlayerEvents(
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
    afterId: bigint | number = 0n,
    options: PlayerEventsOptions = {},
  ): AsyncGenerator<PlayerEvent> {
    let last = BigInt(afterId);
    let failures = 0;
    const maxReconnects = options.maxReconnects ?? 8;
    const { signal } = options;
    for (;;) {
      let error: TrancaError | null = null;
      try {
        const stream = this.notifications.watchPlayerEvents(
          { playerId: options.playerId ?? '', afterId: last },
          { headers: this.headers('player'), signal },
        );
        for await (const update of stream) {
          failures = 0;
          const event = required(update.event);
          if (event.id <= last) continue; // never twice
          last = event.id;
          yield event;
        }
      } catch (raw) {
        if (signal?.aborted) return;
        error = toTrancaError(raw);
        const limited = rateLimitWait(error);
        if (!error.transient && limited === null) throw error;
      }
      if (signal?.aborted) return;
      failures += 1;
      if (failures > maxReconnects) {
        throw error ?? new TrancaError(Code.Unavailable, 'the event stream kept ending', null, null);
      }
      this.retries.transient += 1;
      options.onReconnect?.(last, error);
      const limited = error ? rateLimitWait(error) : null;
      try {
        await sleep(limited ?? this.backoff(failures), signal);
      } catch {
        return;
      }
    }
  }

  // ----- chat ---------------------------------------------------------------------------
  //
  // A table's rooms with its seat's token (a player's, or a spectator's); the lobby's and
  // direct rooms with a player's session. rooms.table(gameId) and the like name them.

  /**
   * Posts a message (free text, or a quick phrase's id) to a room; the message as kept.
   * Every attempt carries the same client message id (a new UUID unless given), so a
   * message whose answer was lost is sent again and kept once: the retry is answered
   * with the message already kept. Refusals: CHAT_PHRASES_ONLY (free text at a table
   * of quick phrases), CHAT_NOT_ALLOWED, SPECTATOR_CHAT_HELD, NOT_FRIENDS,
   * RATE_LIMITED (sent again after the server's hint, up to the retry policy's
   * attempts), MALFORMED_REQUEST.
   */
  async sendChatMessage(room: ChatRoomRef, message: ChatSend): Promise<ChatMessage> {
    const request = {
      room: { kind: room.kind, id: room.id },
      text: message.text ?? '',
      phrase: message.phrase ?? '',
      clientMessageId: message.clientMessageId || newRequestId(),
    };
    const out = await this.call((o) => this.chat.sendChatMessage(request, o), {
      retry: true,
      credential: 'player',
    }, message.signal);
    return required(out.message);
  }

  /**
   * Changes the text of one's own message, within 5 minutes of posting it; the
   * amendment (kind "edit") the room's readers receive. Retried after a transport
   * failure: a repeat leaves the same text. EDIT_WINDOW_PASSED, NOT_YOUR_MESSAGE,
   * MESSAGE_NOT_FOUND.
   */
  async editChatMessage(room: ChatRoomRef, messageId: bigint | number, text: string): Promise<ChatMessage> {
    const request = { room: { kind: room.kind, id: room.id }, messageId: BigInt(messageId), text };
    const out = await this.call((o) => this.chat.editChatMessage(request, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.amendment);
  }

  /**
   * Deletes one's own message, within 5 minutes; the amendment (kind "delete") the
   * room's readers receive. Retried after a transport failure; a retry answered
   * MESSAGE_NOT_FOUND found the message deleted by the attempt whose answer was lost,
   * and returns an amendment of its own making (id 0).
   */
  async deleteChatMessage(room: ChatRoomRef, messageId: bigint | number): Promise<ChatMessage> {
    const request = { room: { kind: room.kind, id: room.id }, messageId: BigInt(messageId) };
    const before = this.retries.transient;
    try {
      const out = await this.call((o) => this.chat.deleteChatMessage(request, o), {
        retry: true,
        credential: 'player',
      });
      return required(out.amendment);
    } catch (err) {
      if (err instanceof TrancaError && err.reason === 'MESSAGE_NOT_FOUND' && this.retries.transient > before) {
        return create(ChatMessageSchema, { kind: 'delete', targetId: request.messageId, deleted: true });
      }
      throw err;
    }
  }

  /**
   * A page of a room's history as it is now (edited texts, deleted messages without
   * their text), oldest first: the newest page below `beforeId` (0: the newest);
   * `nextBeforeId` is where the older page starts (0: none). pageSize 1 to 200 (0: 50).
   */
  listChatMessages(
    room: ChatRoomRef,
    request: { beforeId?: bigint | number; pageSize?: number } = {},
  ): Promise<ListChatMessagesResponse> {
    const full = {
      room: { kind: room.kind, id: room.id },
      beforeId: BigInt(request.beforeId ?? 0n),
      pageSize: request.pageSize ?? 0,
    };
    return this.call((o) => this.chat.listChatMessages(full, o), { retry: true, credential: 'player' });
  }

  /**
   * A room's messages and amendments (kind "edit" or "delete", naming the message in
   * targetId) after `afterId` (0: from the oldest kept), in order, then each new one as
   * it is posted. A stream that drops is opened again after the last message delivered,
   * after a backoff; after maxReconnects reconnections in a row without a message the
   * error is thrown (a refusal, SPECTATOR_CHAT_HELD say, at once). Ends when `signal`
   * aborts.
   */
  async *watchChat(
    room: ChatRoomRef,
    afterId: bigint | number = 0n,
    options: ChatWatchOptions = {},
  ): AsyncGenerator<ChatMessage> {
    let last = BigInt(afterId);
    let failures = 0;
    const maxReconnects = options.maxReconnects ?? 8;
    const { signal } = options;
    for (;;) {
      let error: TrancaError | null = null;
      try {
        const stream = this.chat.watchChat(
          { room: { kind: room.kind, id: room.id }, afterId: last },
          { headers: this.headers('player'), signal },
        );
        for await (const update of stream) {
          failures = 0;
          const message = required(update.message);
          if (message.id <= last) continue; // never twice
          last = message.id;
          yield message;
        }
      } catch (raw) {
        if (signal?.aborted) return;
        error = toTrancaError(raw);
        const limited = rateLimitWait(error);
        if (!error.transient && limited === null) throw error;
      }
      if (signal?.aborted) return;
      failures += 1;
      if (failures > maxReconnects) {
        throw error ?? new TrancaError(Code.Unavailable, 'the chat stream kept ending', null, null);
      }
      this.retries.transient += 1;
      options.onReconnect?.(last, error);
      const limited = error ? rateLimitWait(error) : null;
      try {
        await sleep(limited ?? this.backoff(failures), signal);
      } catch {
        return;
      }
    }
  }

  /**
   * The quick phrases, with their words in `locale` ("en", "pt", "es"; "pt-BR" is
   * Portuguese; empty: the client's language, else English).
   */
  async listQuickPhrases(locale = ''): Promise<QuickPhrase[]> {
    const out = await this.call(
      (o) => this.chat.listQuickPhrases({ locale: phraseLocale(locale || this.language) }, o),
      { retry: true, credential: 'player' },
    );
    return out.phrases;
  }

  // ----- chat's moderation ----------------------------------------------------------------
  //
  // A player's session mutes players (their messages hidden from it in every room) and
  // reports messages; the app's key pages the reports and resolves them. Muting,
  // unmuting and reporting are idempotent (again: changed = false, or the same report),
  // so they are retried after a transport failure; a resolution is not.

  /**
   * Hides a player's messages from the session's player in every room (at most 1,000
   * players: MUTE_LIMIT_REACHED). Whether anything changed (false: muted already).
   */
  async muteChatPlayer(playerId: string): Promise<boolean> {
    const out = await this.call((o) => this.chat.muteChatPlayer({ playerId }, o), {
      retry: true,
      credential: 'player',
    });
    return out.changed;
  }

  /** Shows a muted player's messages again. Whether anything changed (false: not muted). */
  async unmuteChatPlayer(playerId: string): Promise<boolean> {
    const out = await this.call((o) => this.chat.unmuteChatPlayer({ playerId }, o), {
      retry: true,
      credential: 'player',
    });
    return out.changed;
  }

  /** The ids of the players the session's player muted, in order. */
  async listMutedChatPlayers(): Promise<string[]> {
    const out = await this.call((o) => this.chat.listMutedChatPlayers({}, o), {
      retry: true,
      credential: 'player',
    });
    return out.playerIds;
  }

  /**
   * Reports another player's message of a room the caller reads, with a reason (at
   * most 500 characters; may be empty), into the app's queue; the report, with the
   * messages around it as they are now. A message is reported once by a player: again
   * (a retry after a lost answer) is the same report. MESSAGE_NOT_FOUND,
   * CHAT_NOT_ALLOWED (a room the caller does not read), MALFORMED_REQUEST (the caller's own message).
   */
  async reportChatMessage(room: ChatRoomRef, messageId: bigint | number, reason = ''): Promise<ChatReport> {
    const request = { room: { kind: room.kind, id: room.id }, messageId: BigInt(messageId), reason };
    const out = await this.call((o) => this.chat.reportChatMessage(request, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.report);
  }

  /** A page of the app's queue of reports, newest first (the app's key only: APP_KEY_REQUIRED). */
  listChatReports(options: ListChatReportsOptions = {}): Promise<ListChatReportsResponse> {
    const request = {
      status: options.status ?? ReportStatus.UNSPECIFIED,
      pageSize: options.pageSize ?? 0,
      pageToken: options.pageToken ?? '',
    };
    return this.call((o) => this.chat.listChatReports(request, o), { retry: true, credential: 'app' });
  }

  /**
   * Resolves an open report (the app's key only): dismiss, warn the author (a
   * "chat_warning" event), mute their chat for `seconds` or ban it (0: no end; a
   * "chat_sanction" event, and their messages refused CHAT_MUTED or CHAT_BANNED until
   * it ends). The report resolved. Not retried after a transport failure: a report is
   * resolved once, and a repeat answers REPORT_RESOLVED (listChatReports tells whether
   * a lost answer's resolution was made).
   */
  async resolveChatReport(
    reportId: bigint | number,
    resolution: Resolution,
    options: ResolveChatReportOptions = {},
  ): Promise<ChatReport> {
    const request = {
      reportId: BigInt(reportId),
      resolution,
      seconds: BigInt(options.seconds ?? 0n),
      note: options.note ?? '',
    };
    const out = await this.call((o) => this.chat.resolveChatReport(request, o), {
      retry: false,
      credential: 'app',
    });
    return required(out.report);
  }

  // ----- quick play ------------------------------------------------------------------

  /** Queues the session's player for a table; a retry with the same request id gets the same ticket. */
  async askQuickPlay(request: MessageInitShape<typeof AskQuickPlayRequestSchema>): Promise<Ticket> {
    const full = { ...request, requestId: request.requestId || newRequestId() };
    const out = await this.call((o) => this.quickPlay.askQuickPlay(full, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.ticket);
  }

  async getTicket(ticketId: string): Promise<Ticket> {
    const out = await this.call((o) => this.quickPlay.getTicket({ ticketId }, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.ticket);
  }

  /** Takes a ticket out of the queue; one matched first answers with the caller's seats. */
  async cancelTicket(ticketId: string): Promise<Ticket> {
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
  async openTicket(playerId = ''): Promise<Ticket | null> {
    const page = await this.listQuickPlayTickets({ playerId, pageSize: 1 });
    const newest = page.tickets[0];
    return newest && isOpen(newest) ? newest : null;
  }

  /**
   * Waits for a ticket to be matched or to end, by WatchTicket; a dropped stream is
   * followed by GetTicket and a new stream. Returns the ticket as it ended.
   */
  async waitForTicket(ticketId: string, signal?: AbortSignal): Promise<Ticket> {
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

function makeTransport(options: TrancaClientOptions): Transport {
  const common = {
    baseUrl: options.baseUrl,
    interceptors: options.interceptors ?? [],
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  return options.protocol === 'grpc-web'
    ? createGrpcWebTransport(common)
    : createConnectTransport({ ...common, useBinaryFormat: options.binary ?? false });
}

/** The language ListQuickPhrases is asked in: "pt-BR" is "pt", "es-AR" is "es"; others as given. */
export function phraseLocale(locale: string): string {
  const l = locale.toLowerCase();
  for (const short of ['pt', 'es', 'en']) if (l === short || l.startsWith(`${short}-`)) return short;
  return locale;
}

/** A ticket that may still change: a party forming, or waiting for a table. */
export function isOpen(ticket: Ticket): boolean {
  return ticket.status === TicketStatus.WAITING || ticket.status === TicketStatus.FORMING;
}

function required<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('the answer lacks a field the contract promises');
  return value;
}
