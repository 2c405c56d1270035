'use strict';
// A small Node.js client of tranca.v1.GameService.
//
// The contracts are loaded at run time from the repository's proto/ folder with
// @grpc/proto-loader, so this client always speaks the server's current contracts.
// Messages are plain objects with the proto field names (snake_case), enums as
// their names ("GAME_STATUS_PLAYING"), 64-bit integers as decimal strings, and the
// oneof in use named by a virtual field (move.kind === "draw").

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

/** The repository's proto/ folder (clients/node/lib -> proto). */
const PROTO_ROOT = path.resolve(__dirname, '..', '..', '..', 'proto');
const GAME_PROTO = 'tranca/v1/game.proto';
const ERROR_DOMAIN = 'tranca.v1';

const LOADER_OPTIONS = Object.freeze({
  keepCase: true, // game_id, not gameId: the names of the .proto and of the API reference
  longs: String, // int64/uint64 as decimal strings: a seed does not fit a JS number
  enums: String,
  defaults: true, // absent scalars read as 0, "" or false, repeated fields as []
  oneofs: true, // move.kind names the member of the oneof that is set
});

/** gRPC status codes by name, for switching on err.code. */
const Status = grpc.status;

// google.rpc.Status and google.rpc.ErrorInfo, enough to read the error details the
// server sends in the "grpc-status-details-bin" trailer.
const rpcTypes = protobuf.Root.fromJSON({
  nested: {
    google: {
      nested: {
        protobuf: {
          nested: {
            Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
          },
        },
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: 'int32', id: 1 },
                message: { type: 'string', id: 2 },
                details: { rule: 'repeated', type: 'google.protobuf.Any', id: 3 },
              },
            },
            ErrorInfo: {
              fields: {
                reason: { type: 'string', id: 1 },
                domain: { type: 'string', id: 2 },
                metadata: { keyType: 'string', type: 'string', id: 3 },
              },
            },
            LocalizedMessage: {
              fields: {
                locale: { type: 'string', id: 1 },
                message: { type: 'string', id: 2 },
              },
            },
          },
        },
      },
    },
  },
});
const RpcStatus = rpcTypes.lookupType('google.rpc.Status');
const ErrorInfo = rpcTypes.lookupType('google.rpc.ErrorInfo');

/** The first detail of type `type` in a failed call's status details, decoded; or null. */
function statusDetail(err, type) {
  if (!err || !err.metadata || typeof err.metadata.get !== 'function') return null;
  for (const raw of err.metadata.get('grpc-status-details-bin')) {
    const status = RpcStatus.decode(Buffer.isBuffer(raw) ? raw : Buffer.from(raw));
    for (const any of status.details) {
      if (any.type_url.endsWith(`/${type.fullName.slice(1)}`)) {
        return type.toObject(type.decode(any.value), { defaults: true });
      }
    }
  }
  return null;
}

/**
 * The google.rpc.ErrorInfo of a failed call, as {reason, domain, metadata}, or
 * null when the error carries none (a transport error, a deadline...).
 */
function errorInfo(err) {
  const info = statusDetail(err, ErrorInfo);
  return info && { reason: info.reason, domain: info.domain, metadata: info.metadata || {} };
}

const LocalizedMessage = rpcTypes.lookupType('google.rpc.LocalizedMessage');

/**
 * The google.rpc.LocalizedMessage of a failed call, as {locale, message}: the
 * refusal worded for a player in the language the call asked for (the client's
 * `language` option, sent as accept-language), or null when it carries none.
 */
function localizedMessage(err) {
  const text = statusDetail(err, LocalizedMessage);
  return text && { locale: text.locale, message: text.message };
}

/** The error's reason code ("VERSION_CONFLICT", "NOT_YOUR_TURN", ...) or "". */
function reasonOf(err) {
  const info = errorInfo(err);
  return info && info.domain === ERROR_DOMAIN ? info.reason : '';
}

/**
 * For a refused submitTurn: the place of the refused move in the sequence, counted
 * from 1 (ErrorInfo metadata "move_index"); null for any other error. Nothing of
 * the turn was played.
 */
function moveIndex(err) {
  const info = errorInfo(err);
  const value = info && info.domain === ERROR_DOMAIN ? info.metadata.move_index : undefined;
  return value && /^\d+$/.test(value) ? Number.parseInt(value, 10) : null;
}

/** A short description of a gRPC error: "ABORTED/VERSION_CONFLICT: message". */
function describeError(err) {
  const codeName = Object.keys(Status).find((k) => Status[k] === err.code) || String(err.code);
  const reason = reasonOf(err);
  return `${codeName}${reason ? `/${reason}` : ''}: ${err.details || err.message}`;
}

/** A fresh request id for SubmitMove or LeaveGame. */
function newRequestId() {
  return crypto.randomUUID();
}

/** Builders of the six kinds of move, as SubmitMoveRequest.move expects them. */
const moves = Object.freeze({
  draw: () => ({ draw: {} }),
  takePileOnto: (meldId) => ({ take_pile: { meld_id: meldId } }),
  takePileWith: (card1, card2) => ({ take_pile: { cards: [card1, card2] } }),
  createMeld: (cards) => ({ create_meld: { cards: [...cards] } }),
  addToMeld: (meldId, card) => ({ add_to_meld: { meld_id: meldId, card } }),
  replaceWild: (meldId, card) => ({ replace_wild: { meld_id: meldId, card } }),
  discard: (card) => ({ discard: { card } }),
});

/** The kind of a move ("draw", "take_pile", ...). */
function moveKind(move) {
  return (
    move.kind ||
    ['draw', 'take_pile', 'create_meld', 'add_to_meld', 'replace_wild', 'discard'].find(
      (k) => move[k] != null,
    )
  );
}

/**
 * A move as read from ListLegalMoves, rebuilt with only its own fields so that it
 * can be sent back as is (take_pile sets exactly one of meld_id and cards).
 */
function moveForRequest(move) {
  const kind = moveKind(move);
  const body = move[kind] || {};
  switch (kind) {
    case 'draw':
      return moves.draw();
    case 'take_pile':
      // meld_id is a proto3 optional: its synthetic oneof "_meld_id" says it is set.
      return body._meld_id === 'meld_id' || (body.cards || []).length === 0
        ? moves.takePileOnto(body.meld_id)
        : moves.takePileWith(body.cards[0], body.cards[1]);
    case 'create_meld':
      return moves.createMeld(body.cards);
    case 'add_to_meld':
      return moves.addToMeld(body.meld_id, body.card);
    case 'replace_wild':
      return moves.replaceWild(body.meld_id, body.card);
    case 'discard':
      return moves.discard(body.card);
    default:
      throw new Error(`not a move: ${JSON.stringify(move)}`);
  }
}

/** Loads tranca.v1.GameService from the proto files. */
function loadGameService(protoRoot = PROTO_ROOT) {
  const definition = protoLoader.loadSync(GAME_PROTO, {
    ...LOADER_OPTIONS,
    includeDirs: [protoRoot],
  });
  return grpc.loadPackageDefinition(definition).tranca.v1.GameService;
}

const TRANSIENT = new Set([Status.UNAVAILABLE, Status.DEADLINE_EXCEEDED]);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The milliseconds to wait before sending a rate-limited call again, or null. */
function rateLimitWait(err) {
  if (!err || err.code !== Status.RESOURCE_EXHAUSTED) return null;
  const info = errorInfo(err);
  if (!info || info.reason !== 'RATE_LIMITED') return null;
  const hint = Number.parseInt(info.metadata.retry_after_ms || '', 10);
  return (Number.isFinite(hint) && hint > 0 ? hint : 100) + Math.floor(Math.random() * 20);
}

/** Channel credentials: plaintext, or TLS with optional roots and client certificate. */
function channelCredentials(tls) {
  if (!tls) return grpc.credentials.createInsecure();
  const read = (file) => (file ? fs.readFileSync(file) : null);
  const { ca, cert, key } = tls === true ? {} : tls;
  return grpc.credentials.createSsl(read(ca), read(key), read(cert));
}

/**
 * One channel to the game service. App calls send the API key; calls given a
 * player token send it as "authorization: Bearer <token>" instead.
 */
class TrancaClient {
  /**
   * @param {string} address host:port
   * @param {object} [options]
   * @param {string} [options.apiKey] the app's API key (x-api-key)
   * @param {boolean|object} [options.tls] TLS instead of plaintext: true for the
   *   system's roots, or {ca, cert, key} (PEM file paths; cert and key for mutual TLS)
   * @param {number} [options.deadlineMs] deadline of each unary call (default 10 s)
   * @param {string} [options.language] the language refusals are worded in ("pt-BR",
   *   "es", "en"), sent as accept-language: see localizedMessage(err)
   */
  constructor(address, options = {}) {
    const Service = loadGameService(options.protoRoot);
    this.stub = new Service(address, channelCredentials(options.tls));
    this.apiKey = options.apiKey || '';
    this.language = options.language || '';
    this.deadlineMs = options.deadlineMs || 10000;
    this.rateLimitAttempts = options.rateLimitAttempts || 10;
    /** Calls sent again: after a rate limit, after a transport failure. */
    this.retries = { rate_limited: 0, transient: 0 };
  }

  close() {
    this.stub.close();
  }

  /** Call metadata: the player token if given, else the API key. */
  metadata(token) {
    const md = new grpc.Metadata();
    if (token) md.set('authorization', `Bearer ${token}`);
    else if (this.apiKey) md.set('x-api-key', this.apiKey);
    if (this.language) md.set('accept-language', this.language);
    return md;
  }

  /** One unary call as a promise; rejects with the grpc-js error (err.code, err.details). */
  once(method, request, token) {
    const deadline = new Date(Date.now() + this.deadlineMs);
    return new Promise((resolve, reject) => {
      this.stub[method](request, this.metadata(token), { deadline }, (err, response) =>
        err ? reject(err) : resolve(response),
      );
    });
  }

  /**
   * A unary call as a promise. A call refused by the rate limit (RESOURCE_EXHAUSTED,
   * RATE_LIMITED) changed nothing: it is sent again, unchanged, after the
   * retry_after_ms the server asks for.
   */
  async unary(method, request, token) {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.once(method, request, token);
      } catch (err) {
        const wait = rateLimitWait(err);
        if (wait === null || attempt >= this.rateLimitAttempts) throw err;
        this.retries.rate_limited += 1;
        await sleep(wait);
      }
    }
  }

  listPresets() {
    return this.unary('ListPresets', {});
  }

  createGame(request) {
    return this.unary('CreateGame', request);
  }

  joinGame(gameId, seat, playerName, { spectator = false } = {}) {
    return this.unary('JoinGame', { game_id: gameId, seat, player_name: playerName, spectator });
  }

  startGame(gameId, token) {
    return this.unary('StartGame', { game_id: gameId }, token);
  }

  getView(gameId, token) {
    return this.unary('GetView', { game_id: gameId }, token);
  }

  listLegalMoves(gameId, token) {
    return this.unary('ListLegalMoves', { game_id: gameId }, token);
  }

  getReplay(gameId, token) {
    return this.unary('GetReplay', { game_id: gameId }, token);
  }

  listGames(request = {}) {
    return this.unary('ListGames', request);
  }

  leaveGame(gameId, token, requestId = newRequestId()) {
    return this.unary('LeaveGame', { game_id: gameId, request_id: requestId }, token);
  }

  /**
   * Plays one move. A transport failure (UNAVAILABLE, DEADLINE_EXCEEDED) is retried
   * with the same request id, so the move is played at most once; every other
   * error is thrown to the caller (ABORTED: refresh the view and choose again).
   */
  async submitMove(gameId, token, expectedVersion, move, options = {}) {
    const request = {
      game_id: gameId,
      expected_version: String(expectedVersion),
      request_id: options.requestId || newRequestId(),
      move: moveForRequest(move),
    };
    const attempts = options.attempts || 4;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.unary('SubmitMove', request, token);
      } catch (err) {
        if (!TRANSIENT.has(err.code) || attempt >= attempts) throw err;
        this.retries.transient += 1;
        await sleep(100 * 2 ** attempt);
      }
    }
  }

  /**
   * Plays a sequence of moves in one call, all or none (say the melds, adds and
   * discard that follow the turn's draw): each is logged as its own move at its own
   * version, and the answer's version and view are the game after the last. A
   * refused move throws with its place in moveIndex(err) (from 1) and its reason;
   * nothing is played. Transport failures are retried with the same request id, as
   * submitMove's, so the turn is played at most once.
   */
  async submitTurn(gameId, token, expectedVersion, turnMoves, options = {}) {
    const request = {
      game_id: gameId,
      expected_version: String(expectedVersion),
      request_id: options.requestId || newRequestId(),
      moves: turnMoves.map(moveForRequest),
      include_legal_moves: Boolean(options.includeLegalMoves),
    };
    const attempts = options.attempts || 4;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.unary('SubmitTurn', request, token);
      } catch (err) {
        if (!TRANSIENT.has(err.code) || attempt >= attempts) throw err;
        this.retries.transient += 1;
        await sleep(100 * 2 ** attempt);
      }
    }
  }

  /**
   * Every view after fromVersion, in order: an async iterator of WatchGameResponse.
   * A dropped stream (UNAVAILABLE) is reopened from the last version received, so
   * nothing is missed or repeated. Ends when the match is over.
   */
  async *watchGame(gameId, token, fromVersion = 0, { reconnects = 5 } = {}) {
    let last = Number(fromVersion);
    let failures = 0;
    for (;;) {
      const call = this.stub.WatchGame(
        { game_id: gameId, from_version: String(last) },
        this.metadata(token),
      );
      try {
        for await (const update of call) {
          failures = 0;
          last = Number(update.view.version);
          yield update;
          if (update.view.status === 'GAME_STATUS_FINISHED') {
            call.cancel();
            return;
          }
        }
        return; // the server ended the stream: the match is over
      } catch (err) {
        const limited = rateLimitWait(err);
        if ((err.code !== Status.UNAVAILABLE && limited === null) || failures >= reconnects) {
          throw err;
        }
        failures += 1;
        await sleep(limited === null ? 200 * 2 ** failures : limited);
      }
    }
  }
}

module.exports = {
  ERROR_DOMAIN,
  LOADER_OPTIONS,
  PROTO_ROOT,
  Status,
  TrancaClient,
  describeError,
  errorInfo,
  loadGameService,
  localizedMessage,
  moveForRequest,
  moveIndex,
  moveKind,
  moves,
  newRequestId,
  rateLimitWait,
  reasonOf,
};
