'use strict';
// Drives boardgame.io's server (server.js) as bench/service_bench.py drives ours:
// MATCHES concurrent two-player matches of the peer's game, each seat a
// boardgame.io client over the socket API, each move sent as soon as the server's
// answer to the one before arrives (unpaced), a warm-up, then a measured window.
// Prints one JSON line: moves/s (moves the server acknowledged in the window) and
// the latency of a move (sent to its acknowledgement) p50/p99.
//
//   node driver.js ADDRESS MATCHES SECONDS WARMUP

const { Client, LobbyClient } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { DrawDiscard } = require('./game');

const [address, matchesArg, secondsArg, warmupArg] = process.argv.slice(2);
const server = `http://${address}`;
const MATCHES = Number(matchesArg || 16);
const SECONDS = Number(secondsArg || 10);
const WARMUP = Number(warmupArg || 2);

const lobby = new LobbyClient({ server });
const stats = { moves: 0, latencies: [], errors: 0, matches: 0, measuring: false };

async function newMatch() {
  const { matchID } = await lobby.createMatch(DrawDiscard.name, { numPlayers: 2 });
  const seats = [];
  for (const playerID of ['0', '1']) {
    const joined = await lobby.joinMatch(DrawDiscard.name, matchID, {
      playerID,
      playerName: `p${playerID}`,
    });
    seats.push({ playerID, credentials: joined.playerCredentials });
  }
  stats.matches += 1;
  return { matchID, seats };
}

// One match played to its end (or the deadline) by its two seats' clients.
function playMatch(match, deadline, rng) {
  return new Promise((resolve) => {
    const clients = [];
    let sent = null; // {stateID, at}: the move in flight
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      for (const c of clients) c.stop();
      resolve();
    };
    const act = (client, state) => {
      if (finished || !state) return; // null until the server's first answer
      if (state.ctx.gameover || Date.now() >= deadline) {
        finish();
        return;
      }
      if (state.ctx.currentPlayer !== client.playerID || sent !== null) return;
      sent = { stateID: state._stateID, at: process.hrtime.bigint() };
      if (!state.G.drawn) client.moves.draw();
      else client.moves.discard(Math.floor(rng() * state.G.hands[Number(client.playerID)].length));
    };
    for (const seat of match.seats) {
      const client = Client({
        game: DrawDiscard,
        multiplayer: SocketIO({ server }),
        matchID: match.matchID,
        playerID: seat.playerID,
        credentials: seat.credentials,
        debug: false,
      });
      clients.push(client);
    }
    // The acknowledgement of a move whose turn passed reaches the other seat: count
    // it there (each answer is seen by both seats; only the one in flight counts).
    for (const client of clients) {
      client.subscribe((state) => {
        if (sent !== null && state && state._stateID > sent.stateID) {
          if (stats.measuring) {
            stats.moves += 1;
            stats.latencies.push(Number(process.hrtime.bigint() - sent.at) / 1e6);
          }
          sent = null;
        }
        act(client, state);
      });
    }
    for (const client of clients) client.start();
    // Bounded by the deadline even if an answer never comes.
    setTimeout(finish, Math.max(0, deadline - Date.now()) + 100);
  });
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function loop(index, deadline) {
  const rng = mulberry32(index + 1);
  while (Date.now() < deadline) {
    try {
      const match = await newMatch();
      await playMatch(match, deadline, rng);
    } catch (err) {
      stats.errors += 1;
      process.stderr.write(`peer driver: ${err.stack || err}\n`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main() {
  const start = Date.now();
  const deadline = start + (WARMUP + SECONDS) * 1000;
  const loops = Array.from({ length: MATCHES }, (_, i) => loop(i, deadline));
  await new Promise((r) => setTimeout(r, WARMUP * 1000));
  stats.measuring = true;
  process.stderr.write('loadtest: measured window open\n');
  const opened = process.hrtime.bigint();
  await Promise.all(loops);
  const elapsed = Number(process.hrtime.bigint() - opened) / 1e9;
  process.stderr.write('loadtest: measured window closed\n');
  const sorted = stats.latencies.slice().sort((a, b) => a - b);
  const out = {
    matches: MATCHES,
    seconds: Math.round(elapsed * 100) / 100,
    moves: stats.moves,
    moves_per_second: Math.round((stats.moves / elapsed) * 10) / 10,
    move_p50_ms: percentile(sorted, 50),
    move_p99_ms: percentile(sorted, 99),
    matches_started: stats.matches,
    errors: stats.errors,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`peer driver: ${err.stack || err}\n`);
  process.exit(1);
});
