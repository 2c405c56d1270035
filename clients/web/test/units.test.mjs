// The wrapper without a server: a fake fetch speaks the Connect protocol (JSON), so
// these run anywhere `npm run build` did.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { create, toBinary } from '@bufbuild/protobuf';

import {
  Code,
  PresenceStatus,
  PresenceVisibility,
  Relation,
  RoomKind,
  TrancaClient,
  TrancaError,
  codeName,
  groupBySuit,
  moves,
  newRequestId,
  phraseLocale,
  ReportStatus,
  Resolution,
  rooms,
} from '../dist/index.js';
import { ErrorInfoSchema, LocalizedMessageSchema } from '../dist/gen/google/rpc/error_details_pb.js';

const b64 = (bytes) => Buffer.from(bytes).toString('base64').replace(/=+$/, '');

/** A Connect error body with an ErrorInfo and a LocalizedMessage. */
function connectError(code, message, reason, metadata, localized) {
  const details = [
    {
      type: 'google.rpc.ErrorInfo',
      value: b64(toBinary(ErrorInfoSchema, create(ErrorInfoSchema, { reason, domain: 'tranca.v1', metadata }))),
    },
  ];
  if (localized) {
    details.push({
      type: 'google.rpc.LocalizedMessage',
      value: b64(toBinary(LocalizedMessageSchema, create(LocalizedMessageSchema, localized))),
    });
  }
  return { code, message, details };
}

/** A fake fetch answering each call with the next scripted reply; records the requests. */
function fakeFetch(replies) {
  const calls = [];
  const fetch = async (url, init) => {
    const body = init.body ? JSON.parse(new TextDecoder().decode(init.body)) : null;
    calls.push({ path: new URL(url).pathname, headers: new Headers(init.headers), body });
    const reply = replies.shift();
    if (reply instanceof Error) throw reply;
    const [status, json] = reply;
    return new Response(JSON.stringify(json), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { fetch, calls };
}

const FAST = { maxAttempts: 4, initialBackoffMs: 1, maxBackoffMs: 2 };

test('codeName spells codes as gRPC does', () => {
  assert.equal(codeName(Code.FailedPrecondition), 'FAILED_PRECONDITION');
  assert.equal(codeName(Code.Unavailable), 'UNAVAILABLE');
  assert.equal(codeName(Code.Aborted), 'ABORTED');
});

test('request ids are UUIDs, new each time', () => {
  const a = newRequestId();
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(a, newRequestId());
});

test('a hand grouped by suit, each suit in rank order, jokers apart', () => {
  assert.deepEqual(groupBySuit(['KH', 'JK', '2C', 'AH', 'TC', '5S']), [
    { suit: 'C', cards: ['2C', 'TC'] },
    { suit: 'H', cards: ['AH', 'KH'] },
    { suit: 'S', cards: ['5S'] },
    { suit: 'JK', cards: ['JK'] },
  ]);
});

test('credentials and language go out as headers', async () => {
  const { fetch, calls } = fakeFetch([
    [200, { view: { gameId: 'g1', version: '3' } }],
    [200, { presets: [] }],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', apiKey: 'k1', language: 'es', fetch });
  const seat = client.withToken('tp_seat');
  const view = await seat.getView('g1');
  assert.equal(view.version, 3n);
  await seat.listPresets();
  assert.equal(calls[0].path, '/tranca.v1.GameService/GetView');
  assert.equal(calls[0].headers.get('authorization'), 'Bearer tp_seat');
  assert.equal(calls[0].headers.get('x-api-key'), null);
  assert.equal(calls[0].headers.get('accept-language'), 'es');
  assert.equal(calls[1].headers.get('x-api-key'), 'k1', 'an app call sends the key');
});

test('a refusal becomes a TrancaError with its reason, metadata and wording', async () => {
  const { fetch } = fakeFetch([
    [
      400,
      connectError('failed_precondition', 'not your turn: seat 1 is to play', 'NOT_YOUR_TURN', { seat: '1' }, {
        locale: 'pt-BR',
        message: 'Não é a sua vez: é a vez do lugar 1.',
      }),
    ],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', token: 't', retry: FAST, fetch });
  const err = await client.submitMove('g', 4, moves.draw()).catch((e) => e);
  assert.ok(err instanceof TrancaError);
  assert.equal(err.code, Code.FailedPrecondition);
  assert.equal(err.reason, 'NOT_YOUR_TURN');
  assert.deepEqual({ ...err.metadata }, { seat: '1' });
  assert.deepEqual(err.localized, { locale: 'pt-BR', message: 'Não é a sua vez: é a vez do lugar 1.' });
  assert.equal(err.message, 'Não é a sua vez: é a vez do lugar 1.');
  assert.equal(err.rawMessage, 'not your turn: seat 1 is to play');
  assert.equal(err.transient, false);
  assert.equal(err.describe(), 'FAILED_PRECONDITION/NOT_YOUR_TURN: not your turn: seat 1 is to play');
});

test('a move is sent again after a transport failure with the same request id', async () => {
  const { fetch, calls } = fakeFetch([
    new TypeError('fetch failed'),
    [503, { code: 'unavailable', message: 'down' }],
    [200, { version: '5', replayed: true, view: { version: '5' } }],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', token: 't', retry: FAST, fetch });
  const out = await client.submitMove('g', 4n, moves.discard('4H'));
  assert.equal(out.replayed, true);
  assert.equal(calls.length, 3);
  const ids = calls.map((c) => c.body.requestId);
  assert.equal(new Set(ids).size, 1);
  assert.ok(ids[0]);
  assert.deepEqual(calls[0].body.move, { discard: { card: '4H' } });
  assert.equal(calls[0].body.expectedVersion, '4');
  assert.equal(client.retries.transient, 2);
});

test('a table is not created twice: CreateGame is not retried after a transport failure', async () => {
  const { fetch, calls } = fakeFetch([[503, { code: 'unavailable', message: 'down' }]]);
  const client = new TrancaClient({ baseUrl: 'http://x', apiKey: 'k', retry: FAST, fetch });
  await assert.rejects(client.createGame({ players: 2 }), { code: Code.Unavailable });
  assert.equal(calls.length, 1);
});

test('a rate-limited call waits the server hint and is sent again, whatever the call', async () => {
  const { fetch, calls } = fakeFetch([
    [429, connectError('resource_exhausted', 'slow down', 'RATE_LIMITED', { retry_after_ms: '5' })],
    [200, { game: { gameId: 'g9' } }],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', apiKey: 'k', retry: FAST, fetch });
  const out = await client.createGame({ players: 2 });
  assert.equal(out.game.gameId, 'g9');
  assert.equal(calls.length, 2);
  assert.equal(client.retries.rateLimited, 1);
});

test('a change of friends is sent again after a transport failure: each is idempotent', async () => {
  const { fetch, calls } = fakeFetch([
    [503, { code: 'unavailable', message: 'down' }],
    [200, { friend: { playerId: 'bia', relation: 'RELATION_REQUEST_SENT', sinceMs: '7' }, changed: true }],
    [200, { friend: { playerId: 'bia', relation: 'RELATION_BLOCKED' }, changed: false }],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', apiKey: 'k', retry: FAST, fetch });
  const sent = await client.addFriend('bia', 'ana');
  assert.deepEqual([sent.friend.playerId, sent.friend.relation, sent.friend.sinceMs, sent.changed], ['bia', Relation.REQUEST_SENT, 7n, true]);
  assert.equal(calls.length, 2);
  assert.equal(calls[0].path, '/tranca.v1.SocialService/AddFriend');
  assert.deepEqual(calls[1].body, { playerId: 'bia', actingPlayerId: 'ana' });
  assert.equal(calls[1].headers.get('x-api-key'), 'k', 'the app acts for its player with its key');
  const blocked = await client.blockPlayer('bia', 'ana');
  assert.deepEqual([blocked.friend.relation, blocked.changed], [Relation.BLOCKED, false]);
  assert.equal(calls[2].path, '/tranca.v1.SocialService/BlockPlayer');
});

test('a refusal of a friend request is a TrancaError; the list is asked for by relation and page', async () => {
  const { fetch, calls } = fakeFetch([
    [400, connectError('failed_precondition', 'that player blocked you', 'FRIEND_REQUEST_REFUSED', {})],
    [200, { friends: [{ playerId: 'bia', relation: 'RELATION_REQUEST_RECEIVED', profile: { displayName: 'Bia' } }], nextPageToken: 'n1' }],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', token: 't', retry: FAST, fetch });
  const err = await client.addFriend('bia').catch((e) => e);
  assert.ok(err instanceof TrancaError);
  assert.equal(err.reason, 'FRIEND_REQUEST_REFUSED');
  assert.equal(calls.length, 1, 'a refusal is not sent again');
  const page = await client.listFriends({ relations: [Relation.REQUEST_RECEIVED], pageSize: 20, pageToken: 'p0' });
  assert.deepEqual(page.friends.map((f) => [f.playerId, f.relation, f.profile?.displayName]), [['bia', Relation.REQUEST_RECEIVED, 'Bia']]);
  assert.equal(page.nextPageToken, 'n1');
  assert.equal(calls[1].path, '/tranca.v1.SocialService/ListFriends');
  assert.deepEqual(calls[1].body, { relations: ['RELATION_REQUEST_RECEIVED'], pageSize: 20, pageToken: 'p0' });
  assert.equal(calls[1].headers.get('authorization'), 'Bearer t');
});

test('presence is asked for a batch of players, and a change of the caller\u2019s own sends only what changes', async () => {
  const { fetch, calls } = fakeFetch([
    [200, { presences: [{ playerId: 'bia', visible: true, status: 'PRESENCE_STATUS_AWAY', lastSeenMs: '9' }, { playerId: 'caio' }] }],
    [503, { code: 'unavailable', message: 'down' }],
    [200, { presence: { playerId: 'ana', visible: true, status: 'PRESENCE_STATUS_ONLINE', away: true, visibility: 'PRESENCE_VISIBILITY_NOBODY' } }],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', token: 't', retry: FAST, fetch });
  const shown = await client.getPresence(['bia', 'caio']);
  assert.deepEqual(shown.map((p) => [p.playerId, p.visible, p.status, p.lastSeenMs]), [
    ['bia', true, PresenceStatus.AWAY, 9n],
    ['caio', false, PresenceStatus.UNSPECIFIED, 0n],
  ]);
  assert.equal(calls[0].path, '/tranca.v1.SocialService/GetPresence');
  assert.deepEqual(calls[0].body, { playerIds: ['bia', 'caio'] });
  const mine = await client.setPresence({ away: true, visibility: PresenceVisibility.NOBODY });
  assert.deepEqual([mine.away, mine.visibility], [true, PresenceVisibility.NOBODY]);
  assert.equal(calls.length, 3, 'SetPresence is sent again after a transport failure: it is idempotent');
  assert.deepEqual(calls[2].body, { away: true, visibility: 'PRESENCE_VISIBILITY_NOBODY' });
});

test('a chat message is sent again after a transport failure with the same client message id', async () => {
  const { fetch, calls } = fakeFetch([
    new TypeError('fetch failed'),
    [503, { code: 'unavailable', message: 'down' }],
    [200, { message: { id: '7', kind: 'text', text: 'oi', clientMessageId: 'x' } }],
    [200, { message: { id: '8', kind: 'phrase', phrase: 'thanks', clientMessageId: 'mine-1' } }],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', token: 'tp_seat', retry: FAST, fetch });
  const sent = await client.sendChatMessage(rooms.table('g1'), { text: 'oi' });
  assert.deepEqual([sent.id, sent.kind, sent.text], [7n, 'text', 'oi']);
  assert.equal(calls.length, 3);
  assert.equal(calls[0].path, '/tranca.v1.ChatService/SendChatMessage');
  const ids = calls.map((c) => c.body.clientMessageId);
  assert.equal(new Set(ids).size, 1, 'every attempt carries the same id');
  assert.match(ids[0], /^[0-9a-f]{8}-[0-9a-f]{4}-4/);
  assert.deepEqual(calls[0].body.room, { kind: 'ROOM_KIND_TABLE', id: 'g1' });
  assert.equal(calls[0].headers.get('authorization'), 'Bearer tp_seat');
  // An id given is the one sent; a phrase goes without text.
  const phrase = await client.sendChatMessage(rooms.spectators('g1'), { phrase: 'thanks', clientMessageId: 'mine-1' });
  assert.equal(phrase.phrase, 'thanks');
  assert.deepEqual(calls[3].body, {
    room: { kind: 'ROOM_KIND_SPECTATORS', id: 'g1' },
    phrase: 'thanks',
    clientMessageId: 'mine-1',
  });
});

test('a chat refusal is a TrancaError and is not sent again; a flood waits the hint', async () => {
  const { fetch, calls } = fakeFetch([
    [400, connectError('failed_precondition', 'quick phrases only', 'CHAT_PHRASES_ONLY', {})],
    [429, connectError('resource_exhausted', 'slow down', 'RATE_LIMITED', { retry_after_ms: '3' })],
    [200, { message: { id: '9', kind: 'text', text: 'again' } }],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', token: 't', retry: FAST, fetch });
  const err = await client.sendChatMessage(rooms.table('g'), { text: 'hi' }).catch((e) => e);
  assert.ok(err instanceof TrancaError);
  assert.equal(err.reason, 'CHAT_PHRASES_ONLY');
  assert.equal(calls.length, 1);
  const out = await client.sendChatMessage(rooms.lobby('main'), { text: 'again', clientMessageId: 'c2' });
  assert.equal(out.id, 9n);
  assert.deepEqual(calls.slice(1).map((c) => c.body.clientMessageId), ['c2', 'c2']);
  assert.equal(client.retries.rateLimited, 1);
});

test('edits, deletes and a page of chat history; a delete whose answer was lost is done', async () => {
  const { fetch, calls } = fakeFetch([
    [200, { amendment: { id: '4', kind: 'edit', targetId: '2', text: 'fixed' } }],
    [200, { messages: [{ id: '2', kind: 'text', text: 'fixed', editedAtMs: '99' }], nextBeforeId: '2' }],
    new TypeError('fetch failed'),
    [404, connectError('not_found', 'no such message', 'MESSAGE_NOT_FOUND', {})],
    [404, connectError('not_found', 'no such message', 'MESSAGE_NOT_FOUND', {})],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', token: 't', retry: FAST, fetch });
  const edit = await client.editChatMessage(rooms.direct('bia'), 2n, 'fixed');
  assert.deepEqual([edit.kind, edit.targetId, edit.text], ['edit', 2n, 'fixed']);
  assert.deepEqual(calls[0].body, { room: { kind: 'ROOM_KIND_DIRECT', id: 'bia' }, messageId: '2', text: 'fixed' });
  const page = await client.listChatMessages(rooms.lobby('main'), { beforeId: 10n, pageSize: 20 });
  assert.deepEqual(page.messages.map((m) => [m.id, m.text, m.editedAtMs]), [[2n, 'fixed', 99n]]);
  assert.equal(page.nextBeforeId, 2n);
  assert.equal(calls[1].path, '/tranca.v1.ChatService/ListChatMessages');
  assert.deepEqual(calls[1].body, { room: { kind: 'ROOM_KIND_LOBBY', id: 'main' }, beforeId: '10', pageSize: 20 });
  // The first delete's answer was lost; its retry finds the message gone: deleted.
  const deleted = await client.deleteChatMessage(rooms.table('g'), 3);
  assert.deepEqual([deleted.kind, deleted.targetId, deleted.deleted], ['delete', 3n, true]);
  // Without a lost answer, MESSAGE_NOT_FOUND is the caller's to know.
  const err = await client.deleteChatMessage(rooms.table('g'), 3).catch((e) => e);
  assert.equal(err.reason, 'MESSAGE_NOT_FOUND');
});

test('quick phrases are asked for in the language named, or the client\'s', async () => {
  const { fetch, calls } = fakeFetch([
    [200, { phrases: [{ id: 'going_out', text: 'Vou bater' }] }],
    [200, { phrases: [] }],
    [200, { phrases: [] }],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', token: 't', language: 'es', retry: FAST, fetch });
  const phrases = await client.listQuickPhrases('pt-BR');
  assert.deepEqual(phrases.map((p) => [p.id, p.text]), [['going_out', 'Vou bater']]);
  await client.listQuickPhrases();
  await client.withLanguage('').listQuickPhrases();
  assert.deepEqual(calls.map((c) => c.body), [{ locale: 'pt' }, { locale: 'es' }, {}]);
  assert.deepEqual(['pt-BR', 'es-AR', 'EN', 'fr'].map(phraseLocale), ['pt', 'es', 'en', 'fr']);
  assert.deepEqual(rooms.direct('ana'), { kind: RoomKind.DIRECT, id: 'ana' });
});

test('mutes, unmutes and the muted list are a session\'s, each sent again after a transport failure', async () => {
  const { fetch, calls } = fakeFetch([
    new TypeError('fetch failed'),
    [200, { changed: true }],
    [503, { code: 'unavailable', message: 'down' }],
    [200, {}],
    [200, { playerIds: ['bia', 'cid'] }],
    [400, connectError('invalid_argument', 'not yourself', 'MALFORMED_REQUEST', {})],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', apiKey: 'k', token: 'ts_ana', retry: FAST, fetch });
  assert.equal(await client.muteChatPlayer('bia'), true);
  assert.deepEqual(calls.slice(0, 2).map((c) => [c.path, c.body]), [
    ['/tranca.v1.ChatService/MuteChatPlayer', { playerId: 'bia' }],
    ['/tranca.v1.ChatService/MuteChatPlayer', { playerId: 'bia' }],
  ]);
  assert.equal(calls[0].headers.get('authorization'), 'Bearer ts_ana', 'the session, not the app\'s key');
  assert.equal(calls[0].headers.get('x-api-key'), null);
  assert.equal(await client.unmuteChatPlayer('cid'), false, 'not muted: nothing changed');
  assert.equal(calls[3].path, '/tranca.v1.ChatService/UnmuteChatPlayer');
  assert.deepEqual(await client.listMutedChatPlayers(), ['bia', 'cid']);
  assert.equal(calls[4].path, '/tranca.v1.ChatService/ListMutedChatPlayers');
  const err = await client.muteChatPlayer('ana').catch((e) => e);
  assert.ok(err instanceof TrancaError);
  assert.equal(err.reason, 'MALFORMED_REQUEST');
  assert.equal(calls.length, 6, 'a refusal is not sent again');
});

test('a report is sent again after a transport failure: the same report comes back', async () => {
  const report = { id: '5', reporterId: 'ana', reportedId: 'bia', room: { kind: 'ROOM_KIND_LOBBY', id: 'main' }, messageId: '12', reason: 'spam', status: 'REPORT_STATUS_OPEN', evidence: [{ id: '12', kind: 'text', text: 'buy chips' }] };
  const { fetch, calls } = fakeFetch([
    new TypeError('fetch failed'),
    [200, { report }],
    [200, { report: { ...report, reason: '' } }],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', token: 'ts_ana', retry: FAST, fetch });
  const out = await client.reportChatMessage(rooms.lobby('main'), 12, 'spam');
  assert.deepEqual([out.id, out.reportedId, out.status, out.evidence.map((m) => m.text)], [5n, 'bia', ReportStatus.OPEN, ['buy chips']]);
  assert.equal(calls.length, 2);
  assert.deepEqual(calls[0].body, { room: { kind: 'ROOM_KIND_LOBBY', id: 'main' }, messageId: '12', reason: 'spam' });
  assert.deepEqual(calls[1].body, calls[0].body);
  await client.reportChatMessage(rooms.table('g'), 3n);
  assert.deepEqual(calls[2].body, { room: { kind: 'ROOM_KIND_TABLE', id: 'g' }, messageId: '3' });
});

test('the app\'s queue is read with its key, and a resolution is not sent again after a transport failure', async () => {
  const { fetch, calls } = fakeFetch([
    [503, { code: 'unavailable', message: 'down' }],
    [200, { reports: [{ id: '5', status: 'REPORT_STATUS_OPEN' }], nextPageToken: 'n2' }],
    [200, { report: { id: '5', status: 'REPORT_STATUS_RESOLVED', resolution: 'RESOLUTION_MUTE', untilMs: '1700000600000', note: 'be kind' } }],
    new TypeError('fetch failed'),
    [400, connectError('failed_precondition', 'resolved already', 'REPORT_RESOLVED', {})],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', apiKey: 'app-key', token: 'ts_ana', retry: FAST, fetch });
  const page = await client.listChatReports({ status: ReportStatus.OPEN, pageSize: 10, pageToken: 'n1' });
  assert.deepEqual([page.reports.map((r) => r.id), page.nextPageToken], [[5n], 'n2']);
  assert.equal(calls.length, 2, 'a read is sent again');
  assert.equal(calls[0].path, '/tranca.v1.ChatService/ListChatReports');
  assert.deepEqual(calls[0].body, { status: 'REPORT_STATUS_OPEN', pageSize: 10, pageToken: 'n1' });
  assert.equal(calls[0].headers.get('x-api-key'), 'app-key', 'the app\'s key, though the client holds a token');
  assert.equal(calls[0].headers.get('authorization'), null);
  const done = await client.resolveChatReport(5, Resolution.MUTE, { seconds: 600, note: 'be kind' });
  assert.deepEqual([done.status, done.resolution, done.untilMs, done.note], [ReportStatus.RESOLVED, Resolution.MUTE, 1700000600000n, 'be kind']);
  assert.deepEqual(calls[2].body, { reportId: '5', resolution: 'RESOLUTION_MUTE', seconds: '600', note: 'be kind' });
  assert.equal(calls[2].headers.get('x-api-key'), 'app-key');
  // A lost answer is the caller's to read in the queue: sent again it would be REPORT_RESOLVED.
  const lost = await client.resolveChatReport(6n, Resolution.WARN, { note: 'careful' }).catch((e) => e);
  assert.ok(lost instanceof TrancaError);
  assert.equal(lost.transient, true);
  assert.equal(calls.length, 4, 'a resolution is not sent again');
  assert.deepEqual(calls[3].body, { reportId: '6', resolution: 'RESOLUTION_WARN', note: 'careful' });
  const again = await client.resolveChatReport(5, Resolution.DISMISS).catch((e) => e);
  assert.equal(again.reason, 'REPORT_RESOLVED');
});

test('a sanctioned author\'s message is refused with the sanction\'s end and note', async () => {
  const { fetch, calls } = fakeFetch([
    [403, connectError('permission_denied', 'your chat is muted: be kind', 'CHAT_MUTED', { until_ms: '1700000600000', note: 'be kind' }, { locale: 'en', message: 'Your chat is muted for now.' })],
  ]);
  const client = new TrancaClient({ baseUrl: 'http://x', token: 'ts_bia', retry: FAST, fetch });
  const err = await client.sendChatMessage(rooms.lobby('main'), { text: 'hello?' }).catch((e) => e);
  assert.ok(err instanceof TrancaError);
  assert.deepEqual([err.codeName, err.reason, err.metadata.until_ms, err.metadata.note], ['PERMISSION_DENIED', 'CHAT_MUTED', '1700000600000', 'be kind']);
  assert.equal(err.message, 'Your chat is muted for now.');
  assert.equal(calls.length, 1);
});
