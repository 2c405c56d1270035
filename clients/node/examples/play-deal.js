#!/usr/bin/env node
'use strict';
// Plays one whole deal of Tranca through the game service and prints the final
// scores as one JSON line on stdout.
//
//   node examples/play-deal.js [ADDRESS] [API_KEY] [--preset tranca-000] [--players 2]
//                              [--seed N] [--bot-seed N] [--watch] [--exercise-errors]
//                              [--verbose] [--tls] [--ca FILE] [--cert FILE --key FILE]
//
// ADDRESS and API_KEY may also come from TRANCA_ADDRESS and TRANCA_API_KEY (the
// address defaults to 127.0.0.1:50051). The program creates a game of the preset
// as a single deal (override target_score = 0), seats itself and a bot it drives,
// starts it, and then, for the seat to act, lists the legal moves and submits one
// with the version it saw and a fresh request id, until the deal is over: a turn's
// draw alone, then the rest of the turn in one SubmitTurn call (--single-moves: one
// SubmitMove a move). A version conflict (ABORTED) is handled by reading the view
// again and choosing again.
//
// --tls uses TLS with the system's roots; --ca FILE trusts that CA instead; --cert
// and --key present a client certificate (servers that require mutual TLS).
// --watch     also follows the game with WatchGame and checks that it sees every
//             version, in order, without a gap.
// --exercise-errors
//             before playing, provokes and checks the refusals an app meets:
//             VERSION_CONFLICT, NOT_YOUR_TURN, MALFORMED_MOVE, MUST_DRAW_FIRST, a
//             retried request id (replayed) and REQUEST_ID_REUSED; then, once, a
//             move made stale by another device of the same player (ABORTED,
//             refreshed and chosen again).

const { parseArgs } = require('node:util');

const {
  Status,
  TrancaClient,
  describeError,
  errorInfo,
  moveIndex,
  moveKind,
  moves,
  newRequestId,
  reasonOf,
} = require('../lib/client');

const PLAYING = 'GAME_STATUS_PLAYING';
const FINISHED = 'GAME_STATUS_FINISHED';

function parseArguments(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      address: { type: 'string' },
      'api-key': { type: 'string' },
      preset: { type: 'string', default: 'tranca-000' },
      players: { type: 'string', default: '2' },
      seed: { type: 'string', default: '0' },
      'bot-seed': { type: 'string', default: '1' },
      'max-moves': { type: 'string', default: '5000' },
      watch: { type: 'boolean', default: false },
      'exercise-errors': { type: 'boolean', default: false },
      tls: { type: 'boolean', default: false },
      ca: { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      'single-moves': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: play-deal.js [ADDRESS] [API_KEY] [--preset NAME] [--players N] [--seed N]\n' +
        '                    [--bot-seed N] [--watch] [--exercise-errors] [--verbose]\n' +
        '                    [--tls] [--ca FILE] [--cert FILE --key FILE]\n' +
        'ADDRESS and API_KEY default to $TRANCA_ADDRESS and $TRANCA_API_KEY.\n',
    );
    process.exit(0);
  }
  const args = {
    address: values.address || positionals[0] || process.env.TRANCA_ADDRESS || '127.0.0.1:50051',
    apiKey: values['api-key'] || positionals[1] || process.env.TRANCA_API_KEY || '',
    preset: values.preset,
    players: Number.parseInt(values.players, 10),
    seed: values.seed,
    botSeed: Number.parseInt(values['bot-seed'], 10),
    maxMoves: Number.parseInt(values['max-moves'], 10),
    watch: values.watch,
    exerciseErrors: values['exercise-errors'],
    tls:
      values.tls || values.ca || values.cert
        ? { ca: values.ca, cert: values.cert, key: values.key }
        : false,
    verbose: values.verbose,
    singleMoves: values['single-moves'],
  };
  if (!args.apiKey) {
    throw new Error('an API key is required (second argument, --api-key or TRANCA_API_KEY)');
  }
  if (!/^\d+$/.test(args.seed)) throw new Error('--seed is a non-negative integer');
  return args;
}

// A small seeded generator (mulberry32): the bot's choices repeat for a seed.
function randomFrom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The bot: draws most of the time (sometimes takes the pile), lays melds and adds
 * to them for a few moves a turn, and discards often enough that the stock runs
 * down, so every deal ends.
 */
function chooseMove(legal, random, playedThisTurn) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const byKind = {};
  for (const move of legal) (byKind[moveKind(move)] ||= []).push(move);
  const draws = byKind.draw || [];
  const takes = byKind.take_pile || [];
  if (draws.length || takes.length) {
    if (takes.length && (!draws.length || random() < 0.3)) return pick(takes);
    return draws[0];
  }
  const plays = [
    ...(byKind.create_meld || []),
    ...(byKind.add_to_meld || []),
    ...(byKind.replace_wild || []),
  ];
  const discards = byKind.discard || [];
  if (plays.length && (!discards.length || (playedThisTurn < 6 && random() < 0.75))) {
    return pick(plays);
  }
  return discards.length ? pick(discards) : pick(legal);
}

/** The cards of the hand a move uses. */
function cardsOf(move) {
  const kind = moveKind(move);
  const body = move[kind] || {};
  if (kind === 'create_meld' || kind === 'take_pile') return [...(body.cards || [])];
  return body.card ? [body.card] : [];
}

/**
 * The rest of a turn after its draw, to be sent in one submitTurn: chooseMove again
 * and again over the legal moves still open (their cards still in the hand, at most
 * one move on each meld, which may not be legal once the first is played), until a
 * discard or nothing is left to choose.
 */
function planTurn(legal, hand, random) {
  const left = new Map();
  for (const card of hand) left.set(card, (left.get(card) || 0) + 1);
  const touched = new Set();
  const plan = [];
  while (plan.length < 64) {
    const open = legal.filter((move) => {
      const kind = moveKind(move);
      if (kind === 'draw' || kind === 'take_pile') return false;
      const meld = move[kind].meld_id;
      if ((kind === 'add_to_meld' || kind === 'replace_wild') && touched.has(meld)) return false;
      const need = new Map();
      for (const card of cardsOf(move)) need.set(card, (need.get(card) || 0) + 1);
      return [...need].every(([card, n]) => (left.get(card) || 0) >= n);
    });
    if (open.length === 0) break;
    const move = chooseMove(open, random, plan.length);
    plan.push(move);
    for (const card of cardsOf(move)) left.set(card, left.get(card) - 1);
    const kind = moveKind(move);
    if (kind === 'add_to_meld' || kind === 'replace_wild') touched.add(move[kind].meld_id);
    if (kind === 'discard') break;
  }
  return plan;
}

/** Follows the game from a version and checks that no version is skipped. */
function startWatcher(client, gameId, fromVersion) {
  const seen = { from_version: Number(fromVersion), updates: 0, last_version: Number(fromVersion) };
  const done = (async () => {
    for await (const update of client.watchGame(gameId, undefined, fromVersion)) {
      const version = Number(update.view.version);
      if (version !== seen.last_version + 1) {
        throw new Error(`watch: version ${version} after ${seen.last_version}`);
      }
      seen.last_version = version;
      seen.updates += 1;
    }
    return seen;
  })();
  return done;
}

/** Expects a call to fail with a status code and reason; returns "CODE/REASON". */
async function expectRefusal(promise, code, reason) {
  try {
    await promise;
  } catch (err) {
    const got = reasonOf(err);
    if (err.code !== code || got !== reason) {
      throw new Error(`expected ${reason}, got ${describeError(err)}`);
    }
    return { code: err.code, reason: got, message: err.details, metadata: errorInfo(err).metadata };
  }
  throw new Error(`expected ${reason}, the call succeeded`);
}

/** Provokes the refusals an app must handle, on the first turn; returns the view after. */
async function exerciseErrors(client, gameId, tokens, view, checks, stats) {
  const seat = view.turn;
  const token = tokens[seat];
  const other = tokens[(seat + 1) % tokens.length];
  const version = Number(view.version);
  const mine = (await client.getView(gameId, token)).view;

  const conflict = await expectRefusal(
    client.submitMove(gameId, token, version - 1, moves.draw()),
    Status.ABORTED,
    'VERSION_CONFLICT',
  );
  if (conflict.metadata.current_version !== String(version)) {
    throw new Error(`current_version ${conflict.metadata.current_version}, expected ${version}`);
  }
  checks.VERSION_CONFLICT = conflict.metadata;
  await expectRefusal(
    client.submitMove(gameId, other, version, moves.draw()),
    Status.FAILED_PRECONDITION,
    'NOT_YOUR_TURN',
  );
  checks.NOT_YOUR_TURN = true;
  await expectRefusal(
    client.submitMove(gameId, token, version, moves.discard('1X')),
    Status.INVALID_ARGUMENT,
    'MALFORMED_MOVE',
  );
  checks.MALFORMED_MOVE = true;
  await expectRefusal(
    client.submitMove(gameId, token, version, moves.discard(mine.hand[0])),
    Status.FAILED_PRECONDITION,
    'MUST_DRAW_FIRST',
  );
  checks.MUST_DRAW_FIRST = true;

  // A turn whose second move is refused: nothing played, the refusal names move 2.
  const refusedTurn = await expectRefusal(
    client.submitTurn(gameId, token, version, [moves.draw(), moves.draw()]),
    Status.FAILED_PRECONDITION,
    'ALREADY_DREW',
  );
  if (refusedTurn.metadata.move_index !== '2') {
    throw new Error(`a refused turn named move ${refusedTurn.metadata.move_index}, not 2`);
  }
  checks.TURN_MOVE_REFUSED = refusedTurn.metadata;

  // The same request sent twice is played once: the retry is answered from the log.
  const requestId = newRequestId();
  const first = await client.submitMove(gameId, token, version, moves.draw(), { requestId });
  const again = await client.submitMove(gameId, token, version, moves.draw(), { requestId });
  if (!again.replayed || again.version !== first.version || first.replayed) {
    throw new Error('a retried request id was not answered from the log');
  }
  checks.replayed = true;
  stats.moves += 1;
  await expectRefusal(
    client.submitMove(gameId, token, first.version, moves.discard(mine.hand[0]), { requestId }),
    Status.ALREADY_EXISTS,
    'REQUEST_ID_REUSED',
  );
  checks.REQUEST_ID_REUSED = true;
  return first.view;
}

async function playDeal(args) {
  const client = new TrancaClient(args.address, { apiKey: args.apiKey, tls: args.tls });
  const log = args.verbose ? (line) => process.stderr.write(`${line}\n`) : () => {};
  try {
    const created = await client.createGame({
      rules: { preset: args.preset, overrides: { target_score: { int_value: 0 } } },
      players: args.players,
      seed: args.seed,
      label: 'play-deal example',
    });
    const gameId = created.game.game_id;
    const tokens = [];
    for (let seat = 0; seat < args.players; seat += 1) {
      const name = seat === 0 ? 'play-deal' : `bot ${seat}`;
      const joined = await client.joinGame(gameId, seat, name);
      tokens.push(joined.player_token);
    }
    let view = (await client.startGame(gameId)).view;
    log(`game ${gameId} started at version ${view.version}, seat ${view.turn} to act`);
    const watcher = args.watch ? startWatcher(client, gameId, view.version) : null;

    const checks = {};
    const stats = { moves: 0, conflicts: 0, empty_lists: 0, turns: 0, turns_refused: 0 };
    if (args.exerciseErrors) {
      view = await exerciseErrors(client, gameId, tokens, view, checks, stats);
    }

    const random = randomFrom(args.botSeed);
    let playedThisTurn = 0;
    while (view.status === PLAYING) {
      if (stats.moves >= args.maxMoves) throw new Error(`no end after ${stats.moves} moves`);
      const seat = view.turn;
      const token = tokens[seat];
      const legal = await client.listLegalMoves(gameId, token);
      if (legal.moves.length === 0) {
        // Our view was out of date: another seat is to act, or the deal ended.
        stats.empty_lists += 1;
        if (stats.empty_lists > 100) throw new Error('no legal moves, again and again');
        view = (await client.getView(gameId)).view;
        continue;
      }
      if (!args.singleMoves && playedThisTurn === 0 && legal.moves.every((m) => {
        const kind = moveKind(m);
        return kind !== 'draw' && kind !== 'take_pile';
      })) {
        // After the draw: the rest of the turn in one call (its moves each logged
        // at their own version). A refused move: the ones before it are played,
        // and the rest of this turn goes move by move.
        const hand = (await client.getView(gameId, token)).view.hand;
        const plan = planTurn(legal.moves, hand, random);
        try {
          let done = null;
          try {
            done = await client.submitTurn(gameId, token, legal.version, plan);
          } catch (err) {
            const k = moveIndex(err);
            if (k === null) throw err;
            stats.turns_refused += 1;
            log(`seat ${seat}: ${describeError(err)}`);
            if (k > 1) done = await client.submitTurn(gameId, token, legal.version, plan.slice(0, k - 1));
            playedThisTurn = Math.max(1, k - 1);
            if (done === null) continue;
          }
          const sent = Number(done.version) - Number(legal.version);
          stats.moves += sent;
          stats.turns += 1;
          view = done.view;
          if (moveKind(plan[sent - 1]) === 'discard') playedThisTurn = 0;
          else playedThisTurn += sent;
          log(`v${done.version} seat ${seat}: ${plan.slice(0, sent).map((m) => m.text).join(', ')}`);
        } catch (err) {
          if (err.code !== Status.ABORTED) throw err;
          stats.conflicts += 1;
          view = (await client.getView(gameId)).view;
        }
        continue;
      }
      const move = chooseMove(legal.moves, random, playedThisTurn);
      if (args.exerciseErrors && !checks.stale_move_refreshed && moveKind(move) === 'draw') {
        // The same player draws from another device first: the move about to be
        // sent was chosen at a version the game has left, and must be refused.
        await client.submitMove(gameId, token, legal.version, moves.draw());
        stats.moves += 1;
        checks.stale_move_refreshed = true;
      }
      try {
        const done = await client.submitMove(gameId, token, legal.version, move);
        view = done.view;
        stats.moves += 1;
        const kind = moveKind(move);
        if (kind === 'draw' || kind === 'take_pile' || kind === 'discard') playedThisTurn = 0;
        else playedThisTurn += 1;
        log(`v${done.version} seat ${seat}: ${move.text}`);
      } catch (err) {
        if (err.code !== Status.ABORTED) throw err;
        // VERSION_CONFLICT: the game moved on since we listed the moves. Read the
        // view again and choose again; the refused move changed nothing.
        stats.conflicts += 1;
        log(`seat ${seat}: ${describeError(err)}; refreshing`);
        view = (await client.getView(gameId)).view;
      }
    }

    // The final view as the app sees it (no hands), with the deal's scores.
    const final = (await client.getView(gameId)).view;
    if (final.status !== FINISHED || !final.last_deal) {
      throw new Error(`the game is ${final.status}, not finished`);
    }
    const out = {
      game_id: gameId,
      preset: args.preset,
      version: Number(final.version),
      moves: stats.moves,
      turns: stats.turns,
      turns_refused: stats.turns_refused,
      conflicts: stats.conflicts,
      end_reason: final.last_deal.end_reason,
      went_out_seat: final.last_deal.went_out_seat,
      winner_side: final.match_result ? final.match_result.winner_side : -1,
      scores: final.last_deal.scores.map((s) => ({ side: s.side, total: Number(s.total) })),
      retries: client.retries,
    };
    if (args.exerciseErrors) out.checks = checks;
    if (watcher) out.watch = await watcher;
    return out;
  } finally {
    client.close();
  }
}

async function main() {
  const args = parseArguments(process.argv.slice(2));
  const result = await playDeal(args);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(
      `play-deal: ${err.code !== undefined ? describeError(err) : err.stack || err}\n`,
    );
    process.exit(1);
  });
}

module.exports = { chooseMove, planTurn, playDeal };
