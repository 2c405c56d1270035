// A small typed client of the Tranca service for browsers (and Node.js 20+, which
// has fetch): the generated Connect-ES clients of GameService, SessionService,
// QuickPlayService, SocialService, InvitationService, TableService, NotificationService and
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
//     event or message it delivered, so nothing is missed or repeated (retry.ts).
// This file holds the client's core (options, transport, headers, `call`) and the
// games' calls; each other service's calls are a class of their own, joined to
// TrancaClient at the end: sessions.ts, social.ts, invitations.ts, events.ts,
// chat.ts, quickplay.ts, tables.ts.
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

import { ChatCalls } from './chat.js';
import { TrancaError, required, toTrancaError } from './errors.js';
import { PlayerEventCalls } from './events.js';
import { InvitationCalls } from './invitations.js';
import { ProgressionCalls } from './progression.js';
import { QuickPlayCalls } from './quickplay.js';
import { TableCalls } from './tables.js';
import {
  type CallPolicy,
  type Credential,
  DEFAULT_RETRY,
  type RetryPolicy,
  newRequestId,
  rateLimitWait,
  resumeStream,
  sleep,
} from './retry.js';
import { SessionCalls } from './sessions.js';
import { SocialCalls } from './social.js';
import { AdminService } from './gen/tranca/v1/admin_pb.js';
import { ChatService } from './gen/tranca/v1/chat_pb.js';
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
  type TableOptionsSchema,
  type WatchGameResponse,
} from './gen/tranca/v1/game_pb.js';
import { InvitationService } from './gen/tranca/v1/invitations_pb.js';
import { ProgressionService } from './gen/tranca/v1/progression_pb.js';
import { NotificationService } from './gen/tranca/v1/notifications_pb.js';
import { QuickPlayService } from './gen/tranca/v1/quick_play_pb.js';
import { SessionService } from './gen/tranca/v1/session_pb.js';
import { SocialService } from './gen/tranca/v1/social_pb.js';
import { TableService } from './gen/tranca/v1/tables_pb.js';

/** A table's options as UpdateTableOptions takes them (every field optional). */
export type TableOptionsInit = MessageInitShape<typeof TableOptionsSchema>;

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

export interface SubmitOptions {
  /** The request id (default: a new UUID); every retry sends the same one. */
  requestId?: string;
  /** Ask for the legal moves after this one in the answer. */
  includeLegalMoves?: boolean;
  signal?: AbortSignal;
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
  /** ProgressionService (its call is progression(): the stub keeps the name free). */
  readonly progression_: Client<typeof ProgressionService>;
  readonly notifications: Client<typeof NotificationService>;
  readonly chat: Client<typeof ChatService>;
  readonly tables: Client<typeof TableService>;
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
    this.progression_ = shared?.progression_ ?? createClient(ProgressionService, this.transport);
    this.notifications = shared?.notifications ?? createClient(NotificationService, this.transport);
    this.chat = shared?.chat ?? createClient(ChatService, this.transport);
    this.tables = shared?.tables ?? createClient(TableService, this.transport);
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

  /** @internal The wait before retry number `attempt`: doubling, capped, with jitter. */
  backoff(attempt: number): number {
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

  /**
   * Automatic mode (003: "Juego en modo automático"): on, the server's robot plays
   * the token's seat from now on, shown to every seat (`SeatInfo.automatic`); off,
   * the player takes it back. The view after. Carries a request id: a retry with it
   * changes nothing more.
   */
  async setAutomatic(gameId: string, on: boolean, requestId = newRequestId()): Promise<GameView> {
    const out = await this.call((o) => this.games.setAutomatic({ gameId, on, requestId }, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.view);
  }

  /**
   * As the table head (`view.headSeat`: the first player seated, 003's "jefe de
   * mesa"), sets the waiting table's options, whole (start from `view.table`); the
   * view after. A change of stake or rated play asks every other seat to agree again
   * (`consentToOptions`). `expectedVersion`: the version the head saw (0: the game as
   * it is now; a stale one is ABORTED). Carries a request id.
   */
  async updateTableOptions(
    gameId: string,
    table: TableOptionsInit,
    options: { spectatorsAllowed?: boolean; expectedVersion?: bigint | number; requestId?: string } = {},
  ): Promise<GameView> {
    const request = {
      gameId,
      table,
      spectatorsAllowed: options.spectatorsAllowed ?? false,
      expectedVersion: BigInt(options.expectedVersion ?? 0),
      requestId: options.requestId ?? newRequestId(),
    };
    const out = await this.call((o) => this.games.updateTableOptions(request, o), {
      retry: true,
      conflicts: !options.expectedVersion,
      credential: 'player',
    });
    return required(out.view);
  }

  /**
   * Agrees to the table's stake and rated play as the head last set them
   * (`SeatInfo.consentPending`); the match starts once every seat has. The view after.
   */
  async consentToOptions(gameId: string, requestId = newRequestId()): Promise<GameView> {
    const out = await this.call((o) => this.games.consentToOptions({ gameId, requestId }, o), {
      retry: true,
      conflicts: true,
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
    yield* resumeStream(this, BigInt(fromVersion), options, {
      open: (version, signal) =>
        this.games.watchGame({ gameId, fromVersion: version }, { headers: this.headers('player'), signal }),
      read: (update: WatchGameResponse) => ({ item: update, position: required(update.view).version }),
      delivered: (version, last) => version <= last && last > 0n,
      ends: (update) => required(update.view).status === GameStatus.FINISHED,
      endless: 'the watch stream kept ending',
    });
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

// ----- the other services' calls ------------------------------------------------------
//
// Each area's calls are a class of their own whose methods take `this: TrancaClient`;
// TypeScript's mixin pattern joins them: the interface below merges their methods into
// TrancaClient's type, and the loop copies them onto its prototype, once.

export interface TrancaClient
  extends SessionCalls,
    SocialCalls,
    InvitationCalls,
    PlayerEventCalls,
    ChatCalls,
    QuickPlayCalls,
    TableCalls,
    ProgressionCalls {}

for (const area of [
  SessionCalls,
  SocialCalls,
  InvitationCalls,
  PlayerEventCalls,
  ChatCalls,
  QuickPlayCalls,
  TableCalls,
  ProgressionCalls,
]) {
  for (const name of Object.getOwnPropertyNames(area.prototype)) {
    if (name === 'constructor') continue;
    Object.defineProperty(
      TrancaClient.prototype,
      name,
      Object.getOwnPropertyDescriptor(area.prototype, name) ?? Object.create(null),
    );
  }
}
