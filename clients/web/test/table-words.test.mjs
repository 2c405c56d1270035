// The web table's words and reckonings, without a browser: cards, melds and moves in
// each language (never the engine's notation), wild cards as the server marks them,
// plurals, the server's robots named in the page's language, sides as the server
// names them; the finished deals' tables the page keeps, the deal a logged change
// belongs to, and the turn's timer by the server's clock; the chat's messages with
// their amendments applied, a table's chat mode and who may change a message; the
// muted players' messages left out, a sanction of the player's own chat in words. The page's modules are
// bundled for Node by esbuild first.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { build } from 'esbuild';

let dir;
let m;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tranca-words-'));
  const entry = join(dir, 'entry.ts');
  const src = new URL('../table/src/', import.meta.url).pathname;
  writeFileSync(
    entry,
    `export * from '${src}words.ts';\nexport * from '${src}i18n/index.ts';\nexport * from '${src}people.ts';\n` +
      `export * from '${src}deals.ts';\nexport { timeLeft } from '${src}components/Seats.ts';\n` +
      `export { activeSanction, applyMessage, canAmend, sanctionWords, spectatorsHeld, tableChatMode, unmutedMessages } from '${src}actions/chat.ts';\n` +
      `export { ChatMessageSchema } from '${new URL('../src/gen/tranca/v1/chat_pb.ts', import.meta.url).pathname}';\n` +
      `export { create } from '@bufbuild/protobuf';\nexport * from '${new URL('../src/gen/tranca/v1/game_pb.ts', import.meta.url).pathname}';\n`,
  );
  await build({
    entryPoints: [entry],
    outfile: join(dir, 'words.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
    nodePaths: [new URL('../node_modules', import.meta.url).pathname],
  });
  m = await import(pathToFileURL(join(dir, 'words.mjs')).href);
});

after(() => rmSync(dir, { recursive: true, force: true }));

const move = (kind) => m.create(m.MoveSchema, { kind });
const meld = (kind, cards, wildIndexes, id = 0) =>
  m.create(m.MeldSchema, { id, kind, cards, wilds: wildIndexes.length, wildIndexes });

test('cards are printed with their suit and named in words', () => {
  assert.equal(m.cardShort('TD'), '10♦');
  assert.equal(m.cardShort('AS'), 'A♠');
  assert.equal(m.cardName('pt-BR', 'TD'), 'dez de ouros');
  assert.equal(m.cardName('es', 'QH'), 'reina de corazones');
  assert.equal(m.cardName('en', 'JK'), 'joker');
});

test('the cards marked wild in a meld are those the server marks (wild_indexes)', () => {
  const { RUN, SET } = m.MeldKind;
  assert.deepEqual(m.wildFlags(meld(RUN, ['AH', '2H', '3H'], [])), [false, false, false]);
  assert.deepEqual(m.wildFlags(meld(RUN, ['5H', '2C', '7H'], [1])), [false, true, false]);
  assert.deepEqual(m.wildFlags(meld(SET, ['7C', '7D', 'JK'], [2])), [false, false, true]);
  // A set of 2s is natural: none of its 2s is marked.
  assert.deepEqual(m.wildFlags(meld(SET, ['2C', '2D', '2H'], [])), [false, false, false]);
  // A 2 of the run's suit standing in away from its place is a wild.
  assert.deepEqual(m.wildFlags(meld(RUN, ['4S', '2S', '6S'], [1])), [false, true, false]);
});

test('melds are named with the preposition each language joins to the article', () => {
  const { RUN, SET } = m.MeldKind;
  const sevens = meld(SET, ['7C', '7D', '2S'], [2]);
  const hearts = meld(RUN, ['5H', '6H', '2C', '8H'], [2]);
  const lowHearts = meld(RUN, ['2H', '3H', '4H'], []); // its 2 natural
  const twos = meld(SET, ['2C', '2D', '2S'], []);
  assert.equal(m.meldName('pt-BR', sevens, '_to'), 'ao jogo de 7');
  assert.equal(m.meldName('pt-BR', hearts, '_to'), 'à sequência de copas 5–8');
  assert.equal(m.meldName('es', hearts, '_of'), 'de la escalera de corazones 5–8');
  assert.equal(m.meldName('en', sevens), 'the 7s');
  assert.equal(m.meldName('en', lowHearts), 'the hearts run 2–4');
  assert.equal(m.meldName('en', twos), 'the 2s');
});

test('moves read as words on buttons and in the log, never as notation', () => {
  const melds = [meld(m.MeldKind.SET, ['7C', '7D', '7S'], [], 3)];
  const cases = [
    [{ case: 'draw', value: {} }, 'Comprar do monte', 'comprou do monte'],
    [{ case: 'discard', value: { card: 'TD' } }, 'Descartar 10♦', 'descartou 10♦'],
    [{ case: 'takePile', value: { cards: ['7C', '8C'] } }, 'Pegar o lixo com 7♣ 8♣', 'pegou o lixo com 7♣ 8♣'],
    [{ case: 'takePile', value: { meldId: 3 } }, 'Pegar o lixo para o jogo de 7', 'pegou o lixo para o jogo de 7'],
    [{ case: 'addToMeld', value: { meldId: 3, card: '7H' } }, 'Juntar 7♥ ao jogo de 7', 'juntou 7♥ ao jogo de 7'],
    [{ case: 'createMeld', value: { cards: ['4H', '5H', '6H'] } }, 'Baixar 4♥ 5♥ 6♥', 'baixou 4♥ 5♥ 6♥'],
  ];
  for (const [kind, button, log] of cases) {
    assert.equal(m.moveWords('pt-BR', move(kind), melds, 'button'), button);
    assert.equal(m.moveWords('pt-BR', move(kind), melds, 'log'), log);
  }
  assert.equal(m.moveWords('es', move({ case: 'draw', value: {} }), [], 'button'), 'Robar del mazo');
});

test('counts take the plural the number asks for', () => {
  assert.equal(m.trn('pt-BR', 'cards', 1), '1 carta');
  assert.equal(m.trn('pt-BR', 'cards', 0), '0 cartas');
  assert.equal(m.trn('es', 'cards', 2), '2 cartas');
  assert.equal(m.trn('en', 'timeLeft', 1), '1 second left');
});

test("the server's robots are named in the page's language, seats counted from 1", () => {
  const view = m.create(m.GameViewSchema, {
    players: 4,
    seat: 0,
    seats: [
      { seat: 0, playerName: 'Ana', side: 0 },
      { seat: 1, playerName: 'robot 1', robot: true, side: 1 },
      { seat: 2, playerName: '', side: 0 },
      { seat: 3, playerName: 'robot 3', robot: true, side: 1 },
    ],
  });
  assert.equal(m.seatName('pt-BR', view, 1), 'Robô 2');
  assert.equal(m.seatName('es', view, 2), 'Asiento 3');
  assert.equal(m.sideName('pt-BR', view, 0), 'Nós');
  assert.equal(m.sideName('pt-BR', view, 1), 'Eles');
  assert.deepEqual([0, 1, 2, 3].map((s) => m.sideOf(view, s)), [0, 1, 0, 1]);
  assert.deepEqual([0, 1, 2, 3].map((s) => m.placeOf(view, s)), ['bottom', 'left', 'top', 'right']);
});

const board = (dealNumber, result) => m.create(m.DealBoardSchema, { dealNumber, ...(result ? { result } : {}) });
const result = (dealNumber) => m.create(m.DealResultSchema, { dealNumber, endReason: 'batida' });

test("each finished deal's table is kept once, and the last one is shown", () => {
  let boards = {};
  boards = m.keepBoard(boards, board(1, result(1)));
  const kept = boards;
  assert.equal(m.keepBoard(kept, undefined), kept);
  assert.equal(m.keepBoard(kept, board(1, result(1))), kept); // already kept: no change
  boards = m.keepBoard(kept, board(2, result(2)));
  assert.deepEqual(Object.keys(boards).map(Number), [1, 2]);
  assert.equal(m.latestBoard(boards).dealNumber, 2);
  // A view of deal 3 under way (no final_board any more): the end shown is deal 2's, whole.
  const playing = m.create(m.GameViewSchema, { dealNumber: 3, lastDeal: result(2) });
  const shown = m.lastEnding(playing, boards);
  assert.equal(shown.number, 2);
  assert.equal(shown.board, boards[2]);
  assert.equal(shown.result.dealNumber, 2);
  assert.equal(m.lastEnding(m.create(m.GameViewSchema, {}), {}), null);
});

test("a deal the match's end stopped shows its table without a result; a withheld table its result alone", () => {
  const stopped = m.lastEnding(m.create(m.GameViewSchema, { lastDeal: result(1) }), { 2: board(2) });
  assert.equal(stopped.number, 2);
  assert.equal(stopped.result, null);
  // A duplicate round's table: the server withholds the board, the result is there.
  const withheld = m.lastEnding(m.create(m.GameViewSchema, { lastDeal: result(3) }), { 2: board(2, result(2)) });
  assert.equal(withheld.number, 3);
  assert.equal(withheld.board, null);
  assert.equal(withheld.result.dealNumber, 3);
});

test('the move that ended a deal belongs to that deal, not to the one it dealt', () => {
  const logged = (dealNumber, endedDeal) => m.create(m.LoggedMoveSchema, { dealNumber, endedDeal });
  assert.equal(m.dealOf(logged(2, 1)), 1);
  assert.equal(m.dealOf(logged(2, 0)), 2);
  assert.equal(m.dealOf(logged(3, 3)), 3); // the match's last deal: no deal after it
});

test("the turn's timer counts by the server's clock, not the device's", () => {
  const deviceNow = 1_000_000;
  // The device is five minutes behind the server; 30 s are left by the server's clock.
  const serverNow = deviceNow + 300_000;
  const view = m.create(m.GameViewSchema, {
    status: m.GameStatus.PLAYING,
    turn: 0,
    seats: [{ seat: 0 }, { seat: 1 }],
    turnDeadlineMs: BigInt(serverNow + 30_000),
    serverTimeMs: BigInt(serverNow),
  });
  const offset = m.clockOffset(view, deviceNow);
  assert.equal(offset, 300_000);
  assert.equal(m.timeLeft(view, deviceNow + offset), 30);
  assert.equal(m.timeLeft(view, deviceNow + offset + 10_000), 20);
  assert.equal(m.clockOffset(m.create(m.GameViewSchema, {}), deviceNow), null);
});

test('chat: messages in id order, once each, with their edits and deletes applied', () => {
  const msg = (init) => m.create(m.ChatMessageSchema, init);
  let shown = [];
  shown = m.applyMessage(shown, msg({ id: 2n, kind: 'text', text: 'two' }));
  shown = m.applyMessage(shown, msg({ id: 1n, kind: 'phrase', phrase: 'thanks' }));
  shown = m.applyMessage(shown, msg({ id: 2n, kind: 'text', text: 'two' })); // the stream brings one already shown
  assert.deepEqual(shown.map((x) => x.id), [1n, 2n]);
  shown = m.applyMessage(shown, msg({ id: 3n, kind: 'edit', targetId: 2n, text: 'tw*', filtered: true, createdAtMs: 50n }));
  assert.deepEqual([shown[1].text, shown[1].filtered, shown[1].editedAtMs], ['tw*', true, 50n]);
  shown = m.applyMessage(shown, msg({ id: 4n, kind: 'delete', targetId: 1n }));
  assert.deepEqual([shown[0].deleted, shown[0].text, shown.length], [true, '', 2]);
  // An amendment of a message older than the page read changes nothing.
  assert.deepEqual(m.applyMessage(shown, msg({ id: 5n, kind: 'delete', targetId: 99n })), shown);
});

test('chat: a table\'s mode, the spectators held from a rated table\'s players, who may change a message', () => {
  const view = (table, extra = {}) => m.create(m.GameViewSchema, { players: 4, seat: 0, status: m.GameStatus.PLAYING, table, ...extra });
  assert.equal(m.tableChatMode(view({ competitive: true })), 'phrases');
  assert.equal(m.tableChatMode(view({ competitive: true }, { players: 2 })), 'free');
  assert.equal(m.tableChatMode(view({})), 'free');
  assert.equal(m.tableChatMode(view({ chat: m.ChatMode.OFF })), 'off');
  assert.equal(m.tableChatMode(view({ competitive: true, chat: m.ChatMode.FREE })), 'free');
  assert.equal(m.tableChatMode(view({ chat: m.ChatMode.PHRASES })), 'phrases');
  assert.equal(m.spectatorsHeld(view({ competitive: true })), true);
  assert.equal(m.spectatorsHeld(view({ competitive: true }, { status: m.GameStatus.FINISHED })), false);
  assert.equal(m.spectatorsHeld(view({ competitive: true }, { seat: -1 })), false);
  assert.equal(m.spectatorsHeld(view({})), false);
  const mine = m.create(m.ChatMessageSchema, { id: 1n, kind: 'text', clientMessageId: 'c', createdAtMs: 1_000n });
  assert.equal(m.canAmend(mine, 1_000 + 4 * 60_000), true);
  assert.equal(m.canAmend(mine, 1_000 + 5 * 60_000), false);
  assert.equal(m.canAmend({ ...mine, clientMessageId: '' }, 2_000), false);
  assert.equal(m.canAmend({ ...mine, deleted: true }, 2_000), false);
});

test('chat\'s moderation: a muted player\'s messages left out (one\'s own never), a sanction in words while it lasts', () => {
  const msg = (init) => m.create(m.ChatMessageSchema, init);
  const shown = [
    msg({ id: 1n, kind: 'text', authorId: 'bia', text: 'spam' }),
    msg({ id: 2n, kind: 'text', authorId: 'ana', text: 'hi', clientMessageId: 'c' }),
    msg({ id: 3n, kind: 'phrase', authorId: 'cid', phrase: 'thanks' }),
    msg({ id: 4n, kind: 'text', authorId: '', seat: 1, text: 'a seat without a player' }),
  ];
  assert.deepEqual(m.unmutedMessages(shown, ['bia']).map((x) => x.id), [2n, 3n, 4n]);
  assert.deepEqual(m.unmutedMessages(shown, null).map((x) => x.id), [1n, 2n, 3n, 4n]);
  assert.deepEqual(m.unmutedMessages(shown, ['ana', 'cid']).map((x) => x.id), [1n, 2n, 4n], 'one\'s own always');
  const now = Date.UTC(2030, 0, 1, 12, 0);
  const mute = { playerId: 'bia', kind: 'mute', untilMs: now + 600_000, note: 'be kind' };
  const account = { playerId: 'bia', name: 'Bia', kind: 'guest' };
  assert.equal(m.activeSanction({ chatSanction: mute, account, now: Date.now() }), Date.now() < mute.untilMs ? mute : null);
  assert.equal(m.activeSanction({ chatSanction: { ...mute, untilMs: Date.now() - 1 }, account, now: Date.now() }), null, 'ended');
  assert.equal(m.activeSanction({ chatSanction: mute, account: { ...account, playerId: 'ana' }, now: 0 }), null, 'another account\'s');
  const ban = { ...mute, kind: 'ban', untilMs: 0, note: '' };
  assert.equal(m.activeSanction({ chatSanction: ban, account, now: Date.now() }), ban, 'a ban with no end');
  const words = m.sanctionWords('en', mute);
  assert.match(words, /^Your chat is muted until .+\. The moderator’s note: “be kind”$/);
  assert.equal(m.sanctionWords('pt-BR', ban), 'O seu chat foi fechado pelos moderadores.');
  assert.match(m.sanctionWords('es', { ...ban, untilMs: now }), /^Los moderadores han cerrado tu chat hasta .+\.$/);
});
