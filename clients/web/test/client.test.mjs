// The typed client (dist/, from `npm run build`) against a real server's browser
// port: TRANCA_WEB_URL (http://127.0.0.1:PORT), TRANCA_API_KEY (an app's key) and
// TRANCA_APP_ID (that app's id). tests/web/test_web_client.py starts `tranca serve`
// and runs `node --test` with them; without TRANCA_WEB_URL every test skips.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { test } from 'node:test';

import { create } from '@bufbuild/protobuf';

import {
  ChatMode,
  Code,
  ConnectError,
  GameStatus,
  Relation,
  TicketStatus,
  TrancaClient,
  TrancaError,
  isOpen,
  moves,
  rooms,
  waitingTicketId,
} from '../dist/index.js';
import { CustomTokenKeySchema } from '../dist/gen/tranca/v1/session_pb.js';

const baseUrl = process.env.TRANCA_WEB_URL ?? '';
const apiKey = process.env.TRANCA_API_KEY ?? '';
const appId = process.env.TRANCA_APP_ID ?? '';
const skip = baseUrl ? false : 'TRANCA_WEB_URL is not set (tests/web runs these against a server)';

const FAST = { maxAttempts: 5, initialBackoffMs: 10, maxBackoffMs: 50 };
const app = (options = {}) => new TrancaClient({ baseUrl, apiKey, retry: FAST, ...options });

/** A 2-seat table with two people seated by the app, started: its view and both seats' tokens. */
async function startedTable(client, table = {}) {
  const created = await client.createGame({ rules: { preset: 'tranca-000' }, players: 2, table });
  const gameId = created.game.gameId;
  const tokens = [];
  for (const seat of [0, 1]) {
    tokens.push((await client.joinGame({ gameId, seat, playerName: `p${seat}` })).playerToken);
  }
  const view = await client.withToken(tokens[0]).startGame(gameId);
  return { gameId, tokens, view };
}

/** The app's policy with guests and players' tables allowed (the rest as it was). */
async function allowGuests(client) {
  const headers = client.headers('app');
  const { policy } = await client.sessions.getAppPolicy({}, { headers });
  await client.sessions.setAppPolicy(
    { policy: { ...policy, guestSignIn: true, playersCreateTables: true } },
    { headers },
  );
}

/** A compact JWT signed with an Ed25519 private key (EdDSA), as an app's backend makes one. */
function customToken(privateKey, claims) {
  const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${part({ alg: 'EdDSA', kid: 'backend-1' })}.${part(claims)}`;
  return `${signed}.${sign(null, Buffer.from(signed), privateKey).toString('base64url')}`;
}

test('a custom token signs the app\'s player in once, and the session refreshes and signs out', { skip, timeout: 90_000 }, async () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const client = app();
  const headers = client.headers('app');
  const { policy } = await client.sessions.getAppPolicy({}, { headers });
  const key = create(CustomTokenKeySchema, {
    keyId: 'backend-1',
    algorithm: 'EdDSA',
    publicKey: JSON.stringify(publicKey.export({ format: 'jwk' })),
  });
  await client.sessions.setAppPolicy({ policy: { ...policy, customTokenKeys: [key] } }, { headers });
  const now = Math.floor(Date.now() / 1000);
  const claims = () => ({ aud: appId, sub: 'web-player-1', iat: now, exp: now + 300, jti: randomUUID() });
  const anonymous = new TrancaClient({ baseUrl, retry: FAST });
  const token = customToken(privateKey, claims());
  const first = await anonymous.signInWithIdentity(appId, 'custom', token, { displayName: 'Web' });
  assert.equal(first.newPlayer, true);
  assert.equal(first.session.playerId, 'web-player-1');
  const replayed = await anonymous.signInWithIdentity(appId, 'custom', token).catch((e) => e);
  assert.ok(replayed instanceof TrancaError, String(replayed));
  assert.equal(replayed.reason, 'ID_TOKEN_REPLAYED');
  const again = await anonymous.signInWithIdentity(appId, 'custom', customToken(privateKey, claims()));
  assert.equal(again.newPlayer, false);
  assert.equal(again.session.playerId, 'web-player-1');
  // A guest links a custom identity, which then signs the guest's player in.
  await client.sessions.setAppPolicy(
    { policy: { ...(await client.sessions.getAppPolicy({}, { headers })).policy, guestSignIn: true } },
    { headers },
  );
  const guest = await anonymous.signInGuest(appId, 'Guest');
  const guestClient = anonymous.withToken(guest.accessToken);
  const linkedClaims = { ...claims(), sub: 'web-linked-1' };
  const linked = await guestClient.linkIdentity('custom', customToken(privateKey, linkedClaims));
  assert.equal(linked.provider, 'custom');
  assert.deepEqual((await guestClient.listIdentities()).map((i) => i.subject), ['web-linked-1']);
  const back = await anonymous.signInWithIdentity(appId, 'custom', customToken(privateKey, { ...claims(), sub: 'web-linked-1' }));
  assert.equal(back.session.playerId, guest.playerId);
  await guestClient.unlinkIdentity('custom', 'web-linked-1');
  assert.deepEqual(await guestClient.listIdentities(), []);
  // Its profile: the name it set, read back by another player's session.
  const mine = anonymous.withToken(again.session.accessToken);
  const profile = await mine.updateProfile({ displayName: 'Web Player', country: 'br' });
  assert.equal(profile.displayName, 'Web Player');
  assert.equal(profile.country, 'BR');
  assert.equal((await guestClient.playerProfile('web-player-1')).displayName, 'Web Player');
  const many = await guestClient.playerProfiles(['nobody', 'web-player-1']);
  assert.deepEqual(many.map((p) => [p.playerId, p.country]), [['web-player-1', 'BR']]);
  const exported = await app().exportPlayerData('web-player-1');
  assert.equal(exported.player_id, 'web-player-1');
  assert.equal(exported.profile.display_name, 'Web Player');
  const renewed = await anonymous.refreshSession(again.session.refreshToken);
  assert.equal(renewed.sessionId, again.session.sessionId);
  const me = anonymous.withToken(renewed.accessToken);
  assert.equal(await me.signOut(), 0);
  const ended = await me.signOut().catch((e) => e);
  assert.equal(ended.code, Code.Unauthenticated);
});

for (const [name, options] of [
  ['Connect JSON', {}],
  ['Connect binary', { binary: true }],
  ['gRPC-Web', { protocol: 'grpc-web' }],
]) {
  test(`${name}: a unary call and a refusal with its ErrorInfo and LocalizedMessage`, { skip, timeout: 90_000 }, async () => {
    const client = app({ ...options, language: 'pt-BR' });
    const presets = await client.listPresets();
    assert.ok(presets.presets.some((p) => p.name === 'tranca-000'));
    const { gameId, tokens, view } = await startedTable(client);
    const idle = client.withToken(tokens[1 - view.turn]);
    const err = await idle.submitMove(gameId, view.version, moves.draw()).then(
      () => assert.fail('a move out of turn was accepted'),
      (e) => e,
    );
    assert.ok(err instanceof TrancaError, String(err));
    assert.equal(err.code, Code.FailedPrecondition);
    assert.equal(err.codeName, 'FAILED_PRECONDITION');
    assert.equal(err.reason, 'NOT_YOUR_TURN');
    assert.equal(err.domain, 'tranca.v1');
    assert.equal(err.metadata.seat, String(view.turn));
    assert.deepEqual(err.localized, {
      locale: 'pt-BR',
      message: `Não é a sua vez: é a vez do lugar ${view.turn}.`,
    });
    assert.equal(err.message, err.localized.message);
    assert.ok(err.cause instanceof ConnectError);
  });
}

test('the app erases a player, and its audit log names the pseudonym', { skip, timeout: 90_000 }, async () => {
  await allowGuests(app());
  const anonymous = new TrancaClient({ baseUrl, retry: FAST });
  const guest = await anonymous.signInGuest(appId, 'Apagável');
  const erased = await app().erasePlayer(guest.playerId);
  assert.match(erased.pseudonym, /^erased-[0-9a-f]{16}$/);
  assert.equal(erased.rows.player_sessions, 1n);
  const gone = await anonymous.withToken(guest.accessToken).profile().catch((e) => e);
  assert.equal(gone.code, Code.Unauthenticated);
  const entries = await app().auditEntries();
  const mine = entries.filter((e) => e.subject === erased.pseudonym);
  assert.deepEqual(mine.map((e) => [e.action, e.actor]), [['erase_player', 'app']]);
  assert.deepEqual(await app().auditEntries(mine[0].id), entries.filter((e) => e.id > mine[0].id));
  // Two guests of one person: the second account folded into the first.
  const first = await anonymous.signInGuest(appId, 'Uma');
  const second = await anonymous.signInGuest(appId, 'Uma');
  const rows = await app().mergePlayers(second.playerId, first.playerId);
  assert.equal(rows.player_sessions, 1n);
  const merged = (await app().auditEntries()).filter((e) => e.action === 'merge_players');
  assert.equal(merged.at(-1).subject, first.playerId);
});

test('the language option picks the wording; English without one', { skip, timeout: 90_000 }, async () => {
  const { gameId, tokens, view } = await startedTable(app());
  const idle = tokens[1 - view.turn];
  const wording = {};
  for (const language of ['es', 'en', '']) {
    const client = app({ language }).withToken(idle);
    const err = await client.submitMove(gameId, view.version, moves.draw()).catch((e) => e);
    assert.equal(err.reason, 'NOT_YOUR_TURN');
    wording[language || 'none'] = err.localized;
  }
  assert.deepEqual(wording.es, { locale: 'es', message: `No es tu turno: juega el asiento ${view.turn}.` });
  assert.equal(wording.en.locale, 'en');
  assert.equal(wording.none.locale, 'en');
});

test('a guest signs in with the app id alone, opens a table with robots and plays', { skip, timeout: 90_000 }, async () => {
  await allowGuests(app());
  const anonymous = new TrancaClient({ baseUrl, retry: FAST });
  const session = await anonymous.signInGuest(appId, 'Convidada');
  assert.match(session.playerId, /^guest:/);
  assert.match(session.accessToken, /^ts_/);
  const lobby = anonymous.withToken(session.accessToken);
  const created = await lobby.createGame({
    rules: { preset: 'tranca-000' },
    players: 2,
    table: { robotGraceSeconds: 60, express: true },
  });
  const gameId = created.game.gameId;
  const me = await lobby.joinGame({ gameId, seat: 0 });
  const robot = await lobby.joinGame({ gameId, seat: 1, robot: true });
  assert.equal(robot.playerToken, '');
  const seat = lobby.withToken(me.playerToken);
  let view = await seat.startGame(gameId);
  assert.equal(view.status, GameStatus.PLAYING);
  assert.equal(view.seats[1].robot, true);
  assert.equal(view.seats[0].playerName, 'Convidada');
  // A session token is not a seat's: the table's calls need the seat token.
  const wrong = await lobby.listLegalMoves(gameId).catch((e) => e);
  assert.ok(wrong instanceof TrancaError);
  assert.equal(wrong.reason, 'SEAT_TOKEN_REQUIRED');
  // Play until the deal is over, the robot playing its turns on the server.
  for (let i = 0; i < 400 && view.status !== GameStatus.FINISHED; i += 1) {
    if (view.turn !== view.seat) {
      await new Promise((r) => setTimeout(r, 50));
      view = await seat.getView(gameId);
      continue;
    }
    const legal = await seat.listLegalMoves(gameId);
    if (legal.version !== view.version || legal.moves.length === 0) {
      view = await seat.getView(gameId);
      continue;
    }
    const pick =
      legal.moves.find((m) => m.kind.case === 'draw') ??
      legal.moves.find((m) => m.kind.case === 'createMeld' || m.kind.case === 'addToMeld') ??
      legal.moves.find((m) => m.kind.case === 'discard') ??
      legal.moves[0];
    view = (await seat.submitMove(gameId, view.version, pick)).view;
  }
  assert.equal(view.status, GameStatus.FINISHED);
  assert.ok(view.lastDeal);
  assert.equal(view.lastDeal.scores.length, 2);
});

test('a move whose answer was lost is sent again with the same request id and played once', { skip, timeout: 90_000 }, async () => {
  const seen = [];
  let lose = 1;
  const dropAnswer = (next) => async (req) => {
    const res = await next(req);
    if (req.method.name === 'SubmitMove') {
      seen.push(req.message.requestId);
      if (lose > 0) {
        lose -= 1;
        throw new ConnectError('answer lost (injected)', Code.Unavailable);
      }
    }
    return res;
  };
  const client = app({ interceptors: [dropAnswer] });
  const { gameId, tokens, view } = await startedTable(client);
  const player = client.withToken(tokens[view.turn]);
  const before = client.retries.transient;
  const out = await player.submitMove(gameId, view.version, moves.draw(), { requestId: 'req-lost-1' });
  assert.deepEqual(seen, ['req-lost-1', 'req-lost-1']);
  assert.equal(out.replayed, true);
  assert.equal(out.version, view.version + 1n);
  assert.equal(client.retries.transient - before, 1);
  const now = await player.getView(gameId);
  assert.equal(now.version, view.version + 1n, 'the move was played once');
  const replay = await player.getReplay(gameId);
  assert.equal(replay.moves.filter((m) => m.move?.kind.case === 'draw').length, 1);
});

test('a refusal is not retried; a call that is not safe to repeat is not retried', { skip, timeout: 90_000 }, async () => {
  let submits = 0;
  let creates = 0;
  const failCreate = (next) => async (req) => {
    if (req.method.name === 'SubmitMove') submits += 1;
    if (req.method.name === 'CreateGame') {
      creates += 1;
      if (creates === 2) throw new ConnectError('unreachable (injected)', Code.Unavailable);
    }
    return next(req);
  };
  const client = app({ interceptors: [failCreate] });
  const { gameId, tokens, view } = await startedTable(client);
  const idle = client.withToken(tokens[1 - view.turn]);
  await assert.rejects(idle.submitMove(gameId, view.version, moves.draw()), { reason: 'NOT_YOUR_TURN' });
  assert.equal(submits, 1);
  await assert.rejects(client.createGame({ rules: { preset: 'tranca-000' }, players: 2 }), (e) => {
    assert.ok(e instanceof TrancaError);
    assert.equal(e.code, Code.Unavailable);
    assert.equal(e.transient, true);
    return true;
  });
  assert.equal(creates, 2);
});

for (const [name, options] of [
  ['Connect', {}],
  ['gRPC-Web', { protocol: 'grpc-web' }],
]) {
  test(`${name}: a dropped watch stream resumes from its last version, with no gap and no repeat`, { skip, timeout: 90_000 }, async () => {
    const opened = [];
    let breaks = 2;
    const breakStreams = (next) => async (req) => {
      if (req.method.name !== 'WatchGame') return next(req);
      // A stream's request is an async iterable of messages: read it, then send it on.
      const sent = [];
      for await (const m of req.message) sent.push(m);
      opened.push(sent[0].fromVersion);
      const res = await next({ ...req, message: (async function* () { yield* sent; })() });
      if (breaks <= 0) return res;
      breaks -= 1;
      return {
        ...res,
        message: (async function* () {
          let n = 0;
          for await (const m of res.message) {
            yield m;
            n += 1;
            if (n >= 2) throw new ConnectError('stream dropped (injected)', Code.Unavailable);
          }
        })(),
      };
    };
    const client = app({ ...options, interceptors: [breakStreams] });
    const { gameId, tokens, view } = await startedTable(client);
    const watcher = client.withToken(tokens[0]);
    const abort = new AbortController();
    const versions = [];
    const reconnects = [];
    const watching = (async () => {
      for await (const update of watcher.watchGame(gameId, view.version, {
        signal: abort.signal,
        onReconnect: (from) => reconnects.push(from),
      })) {
        versions.push(update.view.version);
      }
    })();
    // Six moves: the turn's player draws and discards, three turns.
    let v = view;
    for (let i = 0; i < 3; i += 1) {
      const player = client.withToken(tokens[v.turn]);
      v = (await player.submitMove(gameId, v.version, moves.draw())).view;
      v = (await player.submitMove(gameId, v.version, moves.discard(v.hand[0]))).view;
    }
    const target = v.version;
    const deadline = Date.now() + 15_000;
    while (versions.at(-1) !== target && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    abort.abort();
    await watching;
    const expected = [];
    for (let x = view.version + 1n; x <= target; x += 1n) expected.push(x);
    assert.deepEqual(versions, expected);
    assert.equal(reconnects.length, 2);
    assert.deepEqual(opened, [view.version, view.version + 2n, view.version + 4n]);
    assert.deepEqual(reconnects, [view.version + 2n, view.version + 4n]);
  });
}

test('quick play: two guests are seated at one table, each with its seat token', { skip, timeout: 90_000 }, async () => {
  await allowGuests(app());
  const anonymous = new TrancaClient({ baseUrl, retry: FAST });
  const players = [];
  for (const name of ['Ana', 'Bea']) {
    const session = await anonymous.signInGuest(appId, name);
    players.push(anonymous.withToken(session.accessToken));
  }
  const tickets = [];
  for (const p of players) tickets.push(await p.askQuickPlay({ preset: 'tranca-000', players: 2 }));
  const again = await players[0].askQuickPlay({
    preset: 'tranca-000',
    players: 2,
    requestId: 'qp-same-id',
  }).catch((e) => e);
  // Still waiting: a second ticket is refused, not made. Already seated (the
  // matchmaker's pass came first): the ask is a ticket of her own, cancelled here.
  if (!(again instanceof TrancaError) && again.ticketId !== tickets[0].ticketId) {
    const first = await players[0].getTicket(tickets[0].ticketId);
    assert.equal(first.status, TicketStatus.MATCHED, 'a second ticket while the first waits');
    await players[0].cancelTicket(again.ticketId);
  } else {
    assert.ok(again instanceof TrancaError ? again.reason === 'ALREADY_WAITING' : true, String(again));
  }
  const done = await Promise.all(tickets.map((t, i) => players[i].waitForTicket(t.ticketId)));
  assert.equal(done[0].gameId, done[1].gameId);
  const seats = done.map((t) => t.seats[0].seat).sort();
  assert.deepEqual(seats, [0, 1]);
  const view = await anonymous.withToken(done[0].seats[0].playerToken).getView(done[0].gameId);
  assert.equal(view.seat, done[0].seats[0].seat);
});

test('quick play: a guest lost its ticket id finds it again, by ALREADY_WAITING and by listing, and cancels it', { skip, timeout: 90_000 }, async () => {
  await allowGuests(app());
  const anonymous = new TrancaClient({ baseUrl, retry: FAST });
  const session = await anonymous.signInGuest(appId, 'Cid');
  const me = anonymous.withToken(session.accessToken);
  // A rated 4-player table: nobody else asks for one here, so the ticket waits.
  const asked = await me.askQuickPlay({ preset: 'tranca-000', players: 4, competitive: true });
  const refused = await me.askQuickPlay({ preset: 'tranca-000', players: 2 }).catch((e) => e);
  assert.ok(refused instanceof TrancaError, String(refused));
  assert.equal(refused.reason, 'ALREADY_WAITING');
  assert.equal(waitingTicketId(refused), asked.ticketId);
  assert.equal(waitingTicketId(new Error('another')), null);
  const open = await me.openTicket();
  assert.equal(open?.ticketId, asked.ticketId);
  assert.ok(isOpen(open));
  const cancelled = await me.cancelTicket(asked.ticketId);
  assert.equal(cancelled.status, TicketStatus.CANCELLED);
  assert.equal(await me.openTicket(), null);
  const page = await me.listQuickPlayTickets({ pageSize: 5 });
  assert.deepEqual(
    page.tickets.map((t) => [t.ticketId, t.status]),
    [[asked.ticketId, TicketStatus.CANCELLED]],
  );
  assert.equal(page.nextPageToken, '');
});

test('two guests become friends by a request, each told on its event stream; a block refuses the next request', { skip, timeout: 90_000 }, async () => {
  await allowGuests(app());
  const anonymous = new TrancaClient({ baseUrl, retry: FAST, language: 'es' });
  const [ana, bia] = [await anonymous.signInGuest(appId, 'Ana'), await anonymous.signInGuest(appId, 'Bia')];
  const asAna = anonymous.withToken(ana.accessToken);
  const asBia = anonymous.withToken(bia.accessToken);
  // Bia follows her events from now on: the request comes on the stream.
  const stop = new AbortController();
  const events = asBia.watchPlayerEvents(0n, { signal: stop.signal });
  const sent = await asAna.addFriend(bia.playerId);
  assert.deepEqual([sent.friend.relation, sent.changed], [Relation.REQUEST_SENT, true]);
  assert.equal(sent.friend.profile?.displayName, 'Bia');
  assert.equal((await asAna.addFriend(bia.playerId)).changed, false, 'asking again changes nothing');
  let told;
  for await (const e of events) {
    if (e.kind !== 'friendship') continue;
    told = JSON.parse(e.payloadJson);
    break;
  }
  stop.abort();
  assert.deepEqual(told, { player_id: ana.playerId, relation: 'request_received', change: 'requested', by: ana.playerId });
  const received = await asBia.listFriends({ relations: [Relation.REQUEST_RECEIVED] });
  assert.deepEqual(received.friends.map((f) => [f.playerId, f.profile?.displayName]), [[ana.playerId, 'Ana']]);
  const accepted = await asBia.acceptFriend(ana.playerId);
  assert.deepEqual([accepted.friend.relation, accepted.changed], [Relation.FRIEND, true]);
  assert.deepEqual((await asAna.listFriends()).friends.map((f) => [f.playerId, f.relation]), [[bia.playerId, Relation.FRIEND]]);
  // Ana's events, read after the last one she had: Bia accepted.
  const page = await asAna.listPlayerEvents({ afterId: 0n, pageSize: 500 });
  const mine = page.events.filter((e) => e.kind === 'friendship').map((e) => JSON.parse(e.payloadJson));
  assert.deepEqual(mine.at(-1), { player_id: bia.playerId, relation: 'friend', change: 'accepted', by: bia.playerId });
  assert.equal(page.nextAfterId, page.events.at(-1).id);
  // Ana blocks Bia: the friendship ends, and Bia's next request is refused in her language.
  const blocked = await asAna.blockPlayer(bia.playerId);
  assert.deepEqual([blocked.friend.relation, blocked.changed], [Relation.BLOCKED, true]);
  assert.deepEqual((await asBia.listFriends()).friends, []);
  const refused = await asBia.addFriend(ana.playerId).catch((e) => e);
  assert.ok(refused instanceof TrancaError, String(refused));
  assert.equal(refused.reason, 'FRIEND_REQUEST_REFUSED');
  assert.equal(refused.message, 'Ese jugador no acepta tus solicitudes de amistad.');
  const own = await asAna.addFriend(bia.playerId).catch((e) => e);
  assert.equal(own.reason, 'PLAYER_BLOCKED');
  assert.equal((await asAna.unblockPlayer(bia.playerId)).changed, true);
  // Declined, withdrawn, removed: each answers the relation now; the app acts for a player.
  await asBia.addFriend(ana.playerId);
  assert.equal((await asAna.declineFriend(bia.playerId)).friend.relation, Relation.UNSPECIFIED);
  await asBia.addFriend(ana.playerId);
  assert.equal((await asBia.cancelFriendRequest(ana.playerId)).changed, true);
  assert.equal((await app().addFriend(bia.playerId, ana.playerId)).friend.relation, Relation.REQUEST_SENT);
  assert.equal((await asBia.acceptFriend(ana.playerId)).friend.relation, Relation.FRIEND);
  assert.equal((await asBia.removeFriend(ana.playerId)).changed, true);
  assert.equal((await asBia.removeFriend(ana.playerId)).changed, false, 'removed already: nothing changes');
  const paged = await app().listFriends({ actingPlayerId: ana.playerId, pageSize: 1 });
  assert.deepEqual(paged.friends, []);
  assert.equal(paged.nextPageToken, '');
});

/** A started 2-seat table open to spectators, its seats' clients and a spectator's. */
async function chatTable(client, table = {}) {
  const created = await client.createGame({ rules: { preset: 'tranca-000' }, players: 2, spectatorsAllowed: true, table });
  const gameId = created.game.gameId;
  const seats = [];
  for (const seat of [0, 1]) {
    const joined = await client.joinGame({ gameId, seat, playerName: `P${seat}`, playerId: `chat-${randomUUID()}` });
    seats.push(client.withToken(joined.playerToken));
  }
  await seats[0].startGame(gameId);
  const watcher = await client.joinGame({ gameId, seat: -1, spectator: true, playerName: 'Watcher' });
  return { gameId, seats, spectator: client.withToken(watcher.playerToken) };
}

/** Two seats talk at a table: a message (and its retry), a phrase, an edit, a delete, one more. */
async function talk(ana, bia, at) {
  const first = await ana.sendChatMessage(at, { text: 'Boa sorte!', clientMessageId: 'ana-1' });
  assert.deepEqual([first.id, first.seat, first.clientMessageId], [1n, 0, 'ana-1']);
  // The same client id again is the message already kept.
  assert.equal((await ana.sendChatMessage(at, { text: 'Boa sorte!', clientMessageId: 'ana-1' })).id, 1n);
  const thanks = await bia.sendChatMessage(at, { phrase: 'thanks' });
  const edit = await ana.editChatMessage(at, first.id, 'Boa sorte a todos!');
  assert.deepEqual([edit.kind, edit.targetId], ['edit', 1n]);
  const gone = await bia.deleteChatMessage(at, thanks.id);
  assert.deepEqual([gone.kind, gone.targetId], ['delete', thanks.id]);
  const refused = await bia.editChatMessage(at, first.id, 'not mine').catch((e) => e);
  assert.equal(refused.reason, 'NOT_YOUR_MESSAGE');
  await ana.sendChatMessage(at, { text: 'tchau' });
}

test('chat at a table: a watch dropped twice resumes after its last message; edits and deletes come as amendments', { skip, timeout: 90_000 }, async () => {
  const opened = [];
  let breaks = 2;
  const breakStreams = (next) => async (req) => {
    if (req.method.name !== 'WatchChat') return next(req);
    const sent = [];
    for await (const m of req.message) sent.push(m);
    opened.push(sent[0].afterId);
    const res = await next({ ...req, message: (async function* () { yield* sent; })() });
    if (breaks <= 0) return res;
    breaks -= 1;
    return {
      ...res,
      message: (async function* () {
        for await (const m of res.message) {
          yield m;
          throw new ConnectError('stream dropped (injected)', Code.Unavailable);
        }
      })(),
    };
  };
  const client = app({ interceptors: [breakStreams] });
  const { gameId, seats: [ana, bia], spectator } = await chatTable(client);
  const at = rooms.table(gameId);
  const stop = new AbortController();
  const seen = [];
  const reconnects = [];
  const watching = (async () => {
    for await (const m of spectator.watchChat(at, 0n, { signal: stop.signal, onReconnect: (after) => reconnects.push(after) })) {
      seen.push([m.id, m.kind, m.text || m.phrase, m.targetId]);
      if (seen.length === 5) stop.abort();
    }
  })();
  try {
    await talk(ana, bia, at);
  } finally {
    setTimeout(() => stop.abort(), 15_000).unref();
    await watching;
  }
  // A message read after its edit (or deletion) comes as it is now: the watch and
  // the talk run side by side, so the first two may come either way; their
  // amendments follow in any case.
  const [one, two, ...rest] = seen;
  assert.ok(['Boa sorte!', 'Boa sorte a todos!'].includes(one[2]), String(one));
  assert.ok(['thanks', ''].includes(two[2]), String(two));
  assert.deepEqual([one[0], one[1], two[0], two[1]], [1n, 'text', 2n, 'phrase']);
  assert.deepEqual(rest, [
    [3n, 'edit', 'Boa sorte a todos!', 1n],
    [4n, 'delete', '', 2n],
    [5n, 'text', 'tchau', 0n],
  ]);
  assert.deepEqual(opened, [0n, 1n, 2n]);
  assert.deepEqual(reconnects, [1n, 2n]);
  const page = await spectator.listChatMessages(at);
  assert.deepEqual(page.messages.map((m) => [m.id, m.text, m.deleted]), [[1n, 'Boa sorte a todos!', false], [2n, '', true], [5n, 'tchau', false]]);
  // A spectator reads the players' room and writes in its own.
  const refusedSpectator = await spectator.sendChatMessage(at, { text: 'psst' }).catch((e) => e);
  assert.equal(refusedSpectator.reason, 'CHAT_NOT_ALLOWED');
  await spectator.sendChatMessage(rooms.spectators(gameId), { text: 'que jogo' });
  assert.deepEqual((await ana.listChatMessages(rooms.spectators(gameId))).messages.map((m) => m.text), ['que jogo']);
});

test('chat at a rated table: the spectators\' room is held from the players until the match is over', { skip, timeout: 90_000 }, async () => {
  const client = app();
  const { gameId, seats: [ana, bia], spectator } = await chatTable(client, { competitive: true });
  const theirs = rooms.spectators(gameId);
  await spectator.sendChatMessage(theirs, { text: 'Ana holds two aces' });
  const listed = await ana.listChatMessages(theirs).catch((e) => e);
  assert.equal(listed.reason, 'SPECTATOR_CHAT_HELD');
  // A held watch is a refusal, thrown at once rather than retried.
  const watched = await (async () => {
    for await (const m of ana.watchChat(theirs)) return m;
    return null;
  })().catch((e) => e);
  assert.ok(watched instanceof TrancaError, String(watched));
  assert.equal(watched.reason, 'SPECTATOR_CHAT_HELD');
  await bia.leaveGame(gameId);
  assert.deepEqual((await ana.listChatMessages(theirs)).messages.map((m) => m.text), ['Ana holds two aces']);
});

test('chat at a table of quick phrases: free text refused, a phrase posted in words of each language', { skip, timeout: 90_000 }, async () => {
  const client = app();
  const { gameId, seats: [ana] } = await chatTable(client, { chat: ChatMode.PHRASES });
  const at = rooms.table(gameId);
  const refused = await ana.sendChatMessage(at, { text: 'oi' }).catch((e) => e);
  assert.equal(refused.reason, 'CHAT_PHRASES_ONLY');
  const pt = await ana.listQuickPhrases('pt-BR');
  const es = await ana.withLanguage('es').listQuickPhrases();
  assert.ok(pt.length > 0 && pt.length === es.length);
  assert.ok(pt.some((p) => p.id === 'going_out' && p.text === 'Vou bater'));
  const sent = await ana.sendChatMessage(at, { phrase: pt[0].id });
  assert.deepEqual([sent.kind, sent.phrase, sent.text], ['phrase', pt[0].id, '']);
});
