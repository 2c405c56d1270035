// The end of a deal stays on the web table when the next deal's first move comes at
// once (as a robot's does), and after a reload. The script opens a 2-seat match
// through the API, the page watching seat 0, and plays both seats through the API
// (melds first, on a short stock) until deal 1 ends, then deal 2's first move at
// once: the page must show deal 1's whole table, which it had only from the watch
// message of the version that ended the deal; reloaded, when no view shows that
// table any more, from GetReplay; closed, it stays closed after a reload. Prints one
// JSON line; tests/web/test_web_deal_end.py checks it against the API.
//
// Environment: TRANCA_WEB_URL, TRANCA_API_KEY (the app's key: it opens the table and
// seats both players), CHROMIUM.
import { TrancaClient } from '../dist/index.js';
import { launch, logOnScreen, readDealEnd, readPage, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
const apiKey = process.env.TRANCA_API_KEY;
if (!baseUrl || !apiKey) throw new Error('TRANCA_WEB_URL and TRANCA_API_KEY must be set');

const int = (n) => ({ value: { case: 'intValue', value: BigInt(n) } });

/** Seat 0's page shows at least this version (the watch delivered it). */
async function pageAt(page, version) {
  await page.waitForFunction(
    (v) => BigInt(document.querySelector('[data-testid=status]')?.dataset.version ?? '-1') >= BigInt(v),
    String(version),
  );
}

/** The page reloaded: its table back, at `version` at least, with the log GetReplay gave it. */
async function reloaded(page, version) {
  await page.reload();
  await pageAt(page, version);
  await page.waitForFunction(
    (v) => [...document.querySelectorAll('[data-testid=log] li[data-version]')].some((li) => li.dataset.version === v),
    String(version),
  );
}

async function main() {
  const app = new TrancaClient({ baseUrl, apiKey });
  // A short stock (20-card hands and mortos, two players) ends a deal in a few dozen
  // moves; a target no deal reaches makes it a match, so deal 2 follows deal 1.
  const created = await app.createGame({
    rules: {
      preset: 'tranca-000',
      overrides: {
        hand_size: int(20),
        morto_size: int(20),
        player_counts: { value: { case: 'intList', value: { values: [2] } } },
      },
    },
    players: 2,
    seed: 7n,
    table: { pointLimit: 100_000n },
  });
  const gameId = created.game.gameId;
  const tokens = [];
  for (const [seat, playerName] of [[0, 'Ana'], [1, 'Bia']]) {
    tokens.push((await app.joinGame({ gameId, seat, playerName })).playerToken);
  }
  const seats = tokens.map((token) => app.withToken(token));
  await seats[0].startGame(gameId);

  const browser = await launch({ locale: 'pt-BR' });
  const out = { console_errors: [], game_id: gameId, seat: 0 };
  try {
    const page = await watchedPage(browser.context, out.console_errors);
    await page.goto(`${baseUrl}/?lang=pt-BR`);
    // The page sits at seat 0, as after a reload.
    await page.evaluate((seated) => localStorage.setItem('tranca.table', JSON.stringify(seated)), {
      gameId,
      seat: 0,
      token: tokens[0],
    });
    await page.reload();
    await page.waitForSelector('[data-testid=status][data-status="2"]');

    let view = await app.getView(gameId);
    for (let i = 0; i < 400 && view.dealNumber < 2; i += 1) {
      const seat = seats[view.turn];
      const legal = await seat.listLegalMoves(gameId);
      const melds = legal.moves.filter((m) => m.kind.case === 'createMeld' || m.kind.case === 'addToMeld');
      view = (await seat.submitMove(gameId, legal.version, melds[0] ?? legal.moves[0])).view;
    }
    if (view.dealNumber !== 2) throw new Error(`deal 1 did not end (deal ${view.dealNumber})`);
    out.ending_version = Number(view.version);
    // Deal 2's first move at once, before the page could ask for anything.
    const seat = seats[view.turn];
    const legal = await seat.listLegalMoves(gameId);
    const first = (await seat.submitMove(gameId, legal.version, legal.moves[0])).view;
    out.first_move_version = Number(first.version);
    out.server_view_has_board = Boolean((await app.getView(gameId)).finalBoard);

    // Live: deal 1's table from the watch message of the version that ended it.
    await pageAt(page, first.version);
    await page.waitForSelector('[data-testid=deal-end][data-deal="1"]', { timeout: 5_000 });
    out.live = await page.evaluate(readDealEnd);
    out.live_version = Number((await page.evaluate(readPage)).version);
    out.log_live = await logOnScreen(page);

    // Reloaded: from GetReplay's deals.
    await reloaded(page, first.version);
    await page.waitForSelector('[data-testid=deal-end][data-deal="1"]', { timeout: 5_000 });
    out.reloaded = await page.evaluate(readDealEnd);
    out.log_reloaded = await logOnScreen(page);

    // Closed, and still closed after a reload.
    await page.click('[data-testid=close-deal-end]');
    await page.locator('[data-testid=deal-end]').waitFor({ state: 'detached' });
    // The replay's tables come with its log, in one change of the page's state: once
    // the log is on screen, a dialog would be too.
    await reloaded(page, first.version);
    out.closed_after_reload = (await page.locator('[data-testid=deal-end]').count()) === 0;
  } catch (err) {
    out.error = String(err?.stack ?? err);
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(out));
  if (out.error) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
