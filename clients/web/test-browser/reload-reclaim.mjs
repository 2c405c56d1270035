// The web table coming back: a table reloaded ten times in one turn plays on (each
// reload's watch stream released by the server) with its log kept; a player who
// closed the browser long enough for a robot to take the seat opens it again and takes
// the seat back from the page; a turn the timer played is told as such in the log.
// Prints one JSON line of what it saw; tests/web/test_web_reload.py runs it against a
// server it started and checks it against the API.
//
// Environment: TRANCA_WEB_URL, TRANCA_API_KEY (the app's key: it watches the seat
// without counting as the player's presence), TRANCA_RELOADS (10), TRANCA_PARTS
// (reload,reclaim,timer), CHROMIUM.
import { TrancaClient } from '../dist/index.js';
import { canMove, clickAMove, launch, readPage, seatedIn, sleep, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
const apiKey = process.env.TRANCA_API_KEY;
if (!baseUrl || !apiKey) throw new Error('TRANCA_WEB_URL and TRANCA_API_KEY must be set');
const app = new TrancaClient({ baseUrl, apiKey });
const reloads = Number(process.env.TRANCA_RELOADS ?? 10);
const parts = (process.env.TRANCA_PARTS ?? 'reload,reclaim,timer').split(',');

const logOf = (page) =>
  page.$$eval('[data-testid=log] li[data-version]', (els) =>
    els.map((e) => ({ version: Number(e.dataset.version), actor: e.dataset.actor, kind: e.dataset.kind, text: e.textContent })),
  );

/** A table of the page's own against robots, with these options; the page's seat. */
async function openTable(page, { players = '2', turn = '0', grace = '60', name = 'Ana' } = {}) {
  await page.goto(`${baseUrl}/?lang=pt-BR`);
  // Back to the lobby: the browser forgets the table it sat at before.
  await page.evaluate(() => localStorage.removeItem('tranca.table'));
  await page.reload();
  await page.fill('[data-testid=name]', name);
  await page.selectOption('[data-testid=players]', players);
  await page.fill('[data-testid=opt-turn]', turn);
  await page.fill('[data-testid=opt-grace]', grace);
  await page.click('[data-testid=new-table]');
  await page.waitForSelector('[data-testid=status][data-status="2"]');
  return seatedIn(page);
}

async function untilMyTurn(page) {
  for (let i = 0; i < 400; i += 1) {
    const s = await page.evaluate(readPage);
    if (canMove(s)) return s;
    await sleep(25);
  }
  throw new Error('the page never got the turn');
}

async function main() {
  const browser = await launch({ locale: 'pt-BR' });
  const out = { console_errors: [] };
  let s; // what the page shows, read from it
  try {
    let page = await watchedPage(browser.context, out.console_errors);

    // 1. Ten reloads in one turn, then play on.
    if (parts.includes('reload')) {
    const first = await openTable(page);
    out.reload = { game_id: first.gameId, token: first.token };
    s = await untilMyTurn(page);
    await clickAMove(page, s); // drawn: the turn is half played
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=log] li[data-version]').length > 0);
    const before = await logOf(page);
    const version = (await page.evaluate(readPage)).version;
    out.reload.reloads = 0;
    for (let i = 0; i < reloads; i += 1) {
      await page.reload();
      try {
        await page.waitForSelector(`[data-testid=status][data-version="${version}"]`, { timeout: 10_000 });
      } catch (err) {
        const refusal = await page.locator('[data-testid=refusal]').textContent().catch(() => '');
        throw new Error(`reload ${i + 1} did not show the table: ${refusal}`);
      }
      out.reload.reloads += 1;
    }
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=log] li[data-version]').length >= n, before.length);
    out.reload.log_before = before.map((e) => e.version);
    out.reload.log_after = (await logOf(page)).map((e) => e.version);
    out.reload.refusal = (await page.evaluate(readPage)).refusal;
    let turns = 0;
    for (let i = 0; i < 200 && turns < 2; i += 1) {
      s = await untilMyTurn(page);
      if ((await clickAMove(page, s)) === 'discard') turns += 1;
    }
    out.reload.turns_after = turns;
    out.reload.refusal_after = (await page.evaluate(readPage)).refusal;
    out.reload.version = (await page.evaluate(readPage)).version;
    }

    // 2. Away until a robot takes the seat, back, and the seat taken back from the page.
    if (parts.includes('reclaim')) {
    const away = await openTable(page, { grace: '2', name: 'Bia' });
    out.reclaim = { game_id: away.gameId, token: away.token, seat: away.seat };
    await browser.quit(); // the browser closed: no watch stream, no call
    const seatIsRobot = async () => (await app.getView(away.gameId)).seats[away.seat].robot;
    for (let i = 0; i < 200 && !(await seatIsRobot()); i += 1) await sleep(100);
    out.reclaim.robot_took_it = await seatIsRobot();
    // The browser opened again: it remembers the seat.
    page = await watchedPage(await browser.reopen(), out.console_errors);
    await page.goto(`${baseUrl}/?lang=pt-BR`);
    await page.locator('[data-testid=robot-playing]').waitFor();
    out.reclaim.banner = await page.locator('[data-testid=robot-playing]').textContent();
    await page.click('[data-testid=reclaim-seat]');
    await page.locator('[data-testid=robot-playing]').waitFor({ state: 'detached' });
    out.reclaim.robot_after = await seatIsRobot();
    s = await untilMyTurn(page);
    out.reclaim.played = await clickAMove(page, s);
    out.reclaim.log = await logOf(page);
    }

    // 3. A turn the timer played, told as such.
    if (parts.includes('timer')) {
    const timed = await openTable(page, { turn: '2', grace: '60', name: 'Caio' });
    out.timer = { game_id: timed.gameId };
    await page.waitForSelector('[data-testid=log] li[data-actor=timeout]', { timeout: 20_000 });
    out.timer.log = (await logOf(page)).filter((e) => e.actor === 'timeout');
    }
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
