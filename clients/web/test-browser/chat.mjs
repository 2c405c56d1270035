// Chat in the web table, in three browsers: Ana (English) and Bia (Portuguese) at a
// practice table for two, Cid (Spanish) watching it as a spectator; the app seats them
// (its key) and each page sits with its token, as after a reload. Ana writes; Bia's page,
// never reloaded, shows it; Ana edits it, and Bia's page shows the new text. Bia sends a
// quick phrase: Ana reads it in English, Cid in Spanish. Ana's word the filter masks
// shows masked; she deletes that message (confirmed in place) and it goes from the
// others' pages. Cid reads the players' room (where he cannot write) and writes in the
// spectators' room, which the players of a practice table read at once.
// Then a rated table for two, Dana and Eva, with Cid watching: his words in the
// spectators' room do not reach the players' pages, which say the room opens when the
// match is over; Eva leaves (the match is over) and both pages then show them.
// Last, in the lobby: Ana and Bia as guests (the app makes them friends); Ana writes in
// the lobby's room, which Bia's page shows, then to Bia directly: Bia's Friends panel
// marks Ana unread without a reload; Bia opens the conversation, reads it and answers,
// and Ana's open conversation shows the answer.
// Prints one JSON line of what it saw; tests/web/test_web_chat.py checks it against
// the API (ListChatMessages with the app's key).
//
// Environment: TRANCA_WEB_URL, TRANCA_API_KEY, CHROMIUM; TRANCA_ARTIFACTS (screenshots).
import { randomUUID } from 'node:crypto';

import { ChatMode, TrancaClient } from '../dist/index.js';
import { axeViolations, launch, screenshots, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
const apiKey = process.env.TRANCA_API_KEY;
if (!baseUrl || !apiKey) throw new Error('TRANCA_WEB_URL and TRANCA_API_KEY must be set');
const artifacts = process.env.TRANCA_ARTIFACTS ?? '';

const SECRET = 'Dana holds two jokers';

/** A started table for two open to spectators: each seat's token, and a spectator's. */
async function table(app, names, competitive, chat = ChatMode.UNSPECIFIED) {
  const created = await app.createGame({
    rules: { preset: 'tranca-000' },
    players: 2,
    spectatorsAllowed: true,
    table: { competitive, chat },
  });
  const gameId = created.game.gameId;
  const tokens = [];
  for (const [seat, playerName] of names.entries()) {
    const joined = await app.joinGame({ gameId, seat, playerName, playerId: `${playerName.toLowerCase()}-${randomUUID()}` });
    tokens.push(joined.playerToken);
  }
  await app.withToken(tokens[0]).startGame(gameId);
  const watcher = await app.joinGame({ gameId, seat: -1, spectator: true, playerName: 'Cid' });
  return { gameId, tokens, spectator: watcher.playerToken };
}

/** The page at a table with a seat's (or a spectator's) token, its chat open. */
async function sitAt(page, lang, gameId, seat, token, status = 'open') {
  if (!page.url().startsWith(baseUrl)) await page.goto(`${baseUrl}/?lang=${lang}`);
  await page.evaluate((seated) => localStorage.setItem('tranca.table', JSON.stringify(seated)), { gameId, seat, token });
  await page.reload();
  await page.waitForSelector(`[data-testid=table][data-game="${gameId}"] [data-testid=status][data-status="2"]`);
  await page.waitForSelector(`[data-testid=chat-table][data-status=${status}]`);
}

/** The page back in the lobby as a guest of that name (signed in anew with it): its player id. */
async function lobbyGuest(page, lang, name) {
  await page.evaluate(() => localStorage.removeItem('tranca.table'));
  await page.goto(`${baseUrl}/?lang=${lang}`);
  await page.locator('[data-testid=account]:not([data-player=""])').waitFor();
  await page.fill('[data-testid=name]', name);
  await page.click('[data-testid=refresh-tables]');
  await page.waitForFunction((n) => document.querySelector('[data-testid=profile]')?.textContent.endsWith(`: ${n}`), name);
  const player = await page.locator('[data-testid=account]').getAttribute('data-player');
  await page.locator(`[data-testid=my-player-id]:text-is("${player}")`).waitFor();
  await page.waitForSelector('[data-testid=chat-lobby][data-status=open]');
  return player;
}

/** A room's messages as a page shows them. */
const lines = (page, room) =>
  page.$$eval(`[data-testid=${room}] [data-testid=chat-message]`, (els) =>
    els.map((e) => ({
      id: Number(e.dataset.id),
      kind: e.dataset.kind,
      author: e.querySelector('[data-testid=chat-author]').textContent,
      text: e.querySelector('[data-testid=chat-text]')?.textContent ?? '',
      mine: e.dataset.mine === 'true',
      edited: e.dataset.edited === 'true',
      deleted: e.dataset.deleted === 'true',
      filtered: e.dataset.filtered === 'true',
    })),
  );

/** Waits until a room on the page shows a message whose words are `text` (and, if given, its state). */
async function shows(page, room, text, { edited, deleted } = {}) {
  await page.waitForFunction(
    ([room, text, edited, deleted]) =>
      [...document.querySelectorAll(`[data-testid=${room}] [data-testid=chat-message]`)].some(
        (e) =>
          e.querySelector('[data-testid=chat-text]')?.textContent === text &&
          (edited === null || (e.dataset.edited === 'true') === edited) &&
          (deleted === null || (e.dataset.deleted === 'true') === deleted),
      ),
    [room, text, edited ?? null, deleted ?? null],
    { timeout: 20_000 },
  );
}

async function write(page, room, text) {
  await page.fill(`[data-testid=${room}] [data-testid=chat-input]`, text);
  await page.click(`[data-testid=${room}] [data-testid=chat-send]`);
}

async function main() {
  const app = new TrancaClient({ baseUrl, apiKey });
  const browsers = [await launch({ locale: 'en' }), await launch({ locale: 'pt-BR' }), await launch({ locale: 'es' })];
  const out = { console_errors: [], screenshots: [] };
  try {
    const pages = [];
    for (const b of browsers) pages.push(await watchedPage(b.context, out.console_errors));
    const [anaPage, biaPage, cidPage] = pages;

    // ----- a practice table -----------------------------------------------------------------
    const practice = await table(app, ['Ana', 'Bia'], false);
    out.practice = practice.gameId;
    await sitAt(anaPage, 'en', practice.gameId, 0, practice.tokens[0]);
    await sitAt(biaPage, 'pt-BR', practice.gameId, 1, practice.tokens[1]);
    await sitAt(cidPage, 'es', practice.gameId, -1, practice.spectator);
    out.spectator_seat = Number(await cidPage.locator('[data-testid=table]').getAttribute('data-seat'));

    // Ana writes; Bia's page, never reloaded, shows it.
    await write(anaPage, 'chat-table', 'Good luck, Bia!');
    await shows(anaPage, 'chat-table', 'Good luck, Bia!');
    out.ana_input_after_send = await anaPage.inputValue('[data-testid=chat-table] [data-testid=chat-input]');
    await shows(biaPage, 'chat-table', 'Good luck, Bia!');
    out.bia_saw_first = await lines(biaPage, 'chat-table');

    // Ana edits it: Bia's page shows the new text, marked edited.
    const mine = anaPage.locator('[data-testid=chat-table] [data-testid=chat-message][data-mine=true]').first();
    out.bia_edit_buttons = await biaPage.locator('[data-testid=chat-table] [data-testid=chat-edit]').count();
    await mine.locator('[data-testid=chat-edit]').click();
    out.axe_editing = await axeViolations(anaPage, 'a chat message being edited');
    await mine.locator('[data-testid=chat-edit-input]').fill('Good luck, everyone!');
    await mine.locator('[data-testid=chat-edit-save]').click();
    await shows(anaPage, 'chat-table', 'Good luck, everyone!', { edited: true });
    await shows(biaPage, 'chat-table', 'Good luck, everyone!', { edited: true });
    out.bia_saw_edit = await lines(biaPage, 'chat-table');

    // Bia's quick phrase, pressed in Portuguese: Ana reads it in English, Cid in Spanish.
    out.bia_phrase_button = await biaPage.locator('[data-testid=chat-table] [data-testid=chat-phrase][data-phrase=thanks]').textContent();
    await biaPage.click('[data-testid=chat-table] [data-testid=chat-phrase][data-phrase=thanks]');
    await shows(biaPage, 'chat-table', 'Obrigado!');
    await shows(anaPage, 'chat-table', 'Thanks!');
    await shows(cidPage, 'chat-table', '¡Gracias!');

    // A word the filter masks shows masked; Ana deletes that message, confirmed in place.
    await write(anaPage, 'chat-table', 'que merda de jogo');
    await shows(biaPage, 'chat-table', 'que *** de jogo');
    out.bia_saw_masked = (await lines(biaPage, 'chat-table')).at(-1);
    const masked = anaPage.locator('[data-testid=chat-table] [data-testid=chat-message][data-mine=true]').last();
    await masked.locator('[data-testid=chat-delete]').click();
    out.delete_question = await masked.locator('.confirm').getAttribute('aria-label');
    out.axe_deleting = await axeViolations(anaPage, 'a chat message asked to be deleted');
    await masked.locator('[data-testid=chat-delete-confirm]').click();
    await shows(biaPage, 'chat-table', 'mensagem apagada', { deleted: true });
    await shows(cidPage, 'chat-table', 'mensaje borrado', { deleted: true });
    out.ana_after_delete = await lines(anaPage, 'chat-table');
    out.bia_after_delete = await lines(biaPage, 'chat-table');

    // Cid, a spectator, reads the players' room (no box there for him) and writes in his.
    out.cid_table = await lines(cidPage, 'chat-table');
    out.cid_table_inputs = await cidPage.locator('[data-testid=chat-table] [data-testid=chat-input]').count();
    out.cid_table_note = await cidPage.locator('[data-testid=chat-table] [data-testid=chat-note]').textContent();
    await write(cidPage, 'chat-spectators', '¡Qué partida!');
    await shows(cidPage, 'chat-spectators', '¡Qué partida!');
    await shows(anaPage, 'chat-spectators', '¡Qué partida!');
    await shows(biaPage, 'chat-spectators', '¡Qué partida!');
    out.ana_spectators = await lines(anaPage, 'chat-spectators');
    out.ana_spectators_inputs = await anaPage.locator('[data-testid=chat-spectators] [data-testid=chat-input]').count();
    out.axe_player = await axeViolations(anaPage, 'the chat at a practice table');
    out.axe_spectator = await axeViolations(cidPage, 'the chat of a spectator');
    out.screenshots.push(...(await screenshots(biaPage, artifacts, 'web-chat-player')));
    out.screenshots.push(...(await screenshots(cidPage, artifacts, 'web-chat-spectator')));

    // ----- a rated table ---------------------------------------------------------------------
    const rated = await table(app, ['Dana', 'Eva'], true);
    out.rated = rated.gameId;
    await sitAt(anaPage, 'en', rated.gameId, 0, rated.tokens[0]); // Dana's page
    await sitAt(biaPage, 'pt-BR', rated.gameId, 1, rated.tokens[1]); // Eva's page
    await sitAt(cidPage, 'es', rated.gameId, -1, rated.spectator);
    await cidPage.waitForSelector('[data-testid=chat-spectators][data-status=open]');
    await write(cidPage, 'chat-spectators', SECRET);
    await shows(cidPage, 'chat-spectators', SECRET);
    await write(anaPage, 'chat-table', 'gg soon');
    await shows(cidPage, 'chat-table', 'gg soon'); // the players' pages had every chance to hear of it
    const held = anaPage.locator('[data-testid=chat-spectators][data-status=held]');
    await held.waitFor();
    out.dana_held = await held.locator('[data-testid=chat-held]').textContent();
    out.eva_held = await biaPage.locator('[data-testid=chat-spectators] [data-testid=chat-held]').textContent();
    out.dana_page_had_secret = (await anaPage.content()).includes(SECRET);
    out.eva_page_had_secret = (await biaPage.content()).includes(SECRET);
    out.axe_held = await axeViolations(anaPage, 'the spectators\' chat held from a rated table\'s player');
    out.screenshots.push(...(await screenshots(anaPage, artifacts, 'web-chat-held')));

    // Eva leaves: the match is over, and both players read the spectators' room.
    await biaPage.click('[data-testid=resign]');
    await biaPage.click('[data-testid=resign-confirm]');
    for (const p of [anaPage, biaPage]) {
      await p.waitForSelector('[data-testid=status][data-status="3"]', { timeout: 20_000 });
      await p.waitForSelector('[data-testid=chat-spectators][data-status=open]');
      await shows(p, 'chat-spectators', SECRET);
    }
    out.dana_after_end = await lines(anaPage, 'chat-spectators');
    out.eva_after_end = await lines(biaPage, 'chat-spectators');

    // ----- tables of quick phrases only, and of no chat -------------------------------------
    const phrasesOnly = await table(app, ['Ana', 'Bia'], false, ChatMode.PHRASES);
    await sitAt(anaPage, 'en', phrasesOnly.gameId, 0, phrasesOnly.tokens[0]);
    out.phrases_only = {
      inputs: await anaPage.locator('[data-testid=chat-table] [data-testid=chat-input]').count(),
      phrases: await anaPage.locator('[data-testid=chat-table] [data-testid=chat-phrase]').count(),
      note: await anaPage.locator('[data-testid=chat-table] [data-testid=chat-note]').textContent(),
    };
    await anaPage.click('[data-testid=chat-table] [data-testid=chat-phrase][data-phrase=good_luck]');
    await shows(anaPage, 'chat-table', 'Good luck!');
    const off = await table(app, ['Ana', 'Bia'], false, ChatMode.OFF);
    await sitAt(anaPage, 'en', off.gameId, 0, off.tokens[0], 'off');
    out.chat_off = await anaPage.locator('[data-testid=chat-table] [data-testid=chat-off]').textContent();
    out.chat_off_inputs = await anaPage.locator('[data-testid=chat-table] button, [data-testid=chat-table] input').count();
    out.phrases_only_game = phrasesOnly.gameId;

    // ----- the lobby, and a friend's conversation ----------------------------------------------
    const ana = await lobbyGuest(anaPage, 'en', 'Ana Lobby');
    const bia = await lobbyGuest(biaPage, 'pt-BR', 'Bia Lobby');
    out.ana_player = ana;
    out.bia_player = bia;
    await app.addFriend(bia, ana);
    await app.acceptFriend(ana, bia);
    const friendRow = (page, id) => page.locator(`[data-testid=friends] li[data-testid=friend][data-player="${id}"][data-relation=friend]`);
    await friendRow(anaPage, bia).waitFor({ timeout: 20_000 });
    await friendRow(biaPage, ana).waitFor({ timeout: 20_000 });
    await write(anaPage, 'chat-lobby', 'Anyone for a game?');
    await shows(biaPage, 'chat-lobby', 'Anyone for a game?');
    out.bia_lobby = await lines(biaPage, 'chat-lobby');
    await friendRow(anaPage, bia).locator('[data-testid=direct-open]').click();
    await anaPage.waitForSelector('[data-testid=chat-direct][data-status=open]');
    await write(anaPage, 'chat-direct', 'Hi Bia, a rematch?');
    await shows(anaPage, 'chat-direct', 'Hi Bia, a rematch?');
    // Bia's panel marks Ana unread: her event stream told it.
    const open = friendRow(biaPage, ana).locator('[data-testid=direct-open]');
    await biaPage.locator(`[data-testid=friends] li[data-player="${ana}"] [data-testid=direct-open][data-unread="1"]`).waitFor({ timeout: 20_000 });
    out.bia_unread_label = await open.getAttribute('aria-label');
    out.bia_unread_mark = await open.locator('[data-testid=unread]').textContent();
    out.axe_unread = await axeViolations(biaPage, 'the lobby with a direct message unread');
    await open.click();
    await shows(biaPage, 'chat-direct', 'Hi Bia, a rematch?');
    out.bia_unread_after_open = await open.getAttribute('data-unread');
    out.bia_direct = await lines(biaPage, 'chat-direct');
    await write(biaPage, 'chat-direct', 'Sim!');
    await shows(anaPage, 'chat-direct', 'Sim!');
    out.ana_direct = await lines(anaPage, 'chat-direct');
    out.ana_unread_while_open = await friendRow(anaPage, bia).locator('[data-testid=direct-open]').getAttribute('data-unread');
    out.axe_direct = await axeViolations(biaPage, 'a friend\'s conversation open');
    // Bia's session, for the test to read her conversation as the service keeps it.
    out.bia_session = await biaPage.evaluate(() => JSON.parse(localStorage.getItem('tranca.session')).accessToken);
    out.screenshots.push(...(await screenshots(biaPage, artifacts, 'web-chat-direct')));
  } catch (err) {
    out.error = String(err?.stack ?? err);
  } finally {
    for (const b of browsers.reverse()) await b.close();
  }
  console.log(JSON.stringify(out));
  if (out.error) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
