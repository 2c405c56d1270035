// Automatic mode at the web table (003: "Véase también: Juego en modo automático"):
// two players' pages at one table; the player to act switches automatic mode on, the
// other page shows the seat as automatic, the server's robot makes the moves for them
// (told so in the log), and they switch it off from the banner, which the other page
// shows too. Prints one JSON line of what it saw; tests/web/test_web_automatic.py runs
// it against a server it started and checks it against the API.
//
// Environment: TRANCA_WEB_URL, TRANCA_API_KEY (the app's key: it opens the table and
// seats both players), CHROMIUM.
import { TrancaClient } from '../dist/index.js';
import { launch, sleep, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
const apiKey = process.env.TRANCA_API_KEY;
if (!baseUrl || !apiKey) throw new Error('TRANCA_WEB_URL and TRANCA_API_KEY must be set');
const app = new TrancaClient({ baseUrl, apiKey });

const logOf = (page) =>
  page.$$eval('[data-testid=log] li[data-version]', (els) =>
    els.map((e) => ({ version: Number(e.dataset.version), seat: Number(e.dataset.seat), actor: e.dataset.actor, kind: e.dataset.kind, text: e.textContent })),
  );

/** A page in its own browser, seated at ``seat`` of the table (as after a reload). */
async function seatedPage(errors, seated) {
  const browser = await launch({ locale: 'es' });
  const page = await watchedPage(browser.context, errors);
  await page.goto(`${baseUrl}/?lang=es`);
  await page.evaluate((s) => localStorage.setItem('tranca.table', JSON.stringify(s)), seated);
  await page.reload();
  await page.waitForSelector('[data-testid=status][data-status="2"]');
  return { browser, page };
}

const seatOn = (page, seat, automatic) =>
  page.waitForSelector(`.seat[data-seat="${seat}"][data-automatic="${automatic}"]`, { timeout: 20_000 });

async function main() {
  const out = { console_errors: [] };
  const browsers = [];
  try {
    const created = await app.createGame({ rules: { preset: 'tranca-000' }, players: 2, seed: 21n });
    const gameId = created.game.gameId;
    const seats = [];
    for (const seat of [0, 1]) {
      const joined = await app.joinGame({ gameId, seat, playerName: seat === 0 ? 'Ana' : 'Bia' });
      seats.push({ gameId, seat, token: joined.playerToken });
    }
    await app.startGame(gameId);
    const first = (await app.getView(gameId)).turn;
    const me = seats[first];
    const them = seats[1 - first];
    out.game_id = gameId;
    out.seat = me.seat;
    const mine = await seatedPage(out.console_errors, me);
    const theirs = await seatedPage(out.console_errors, them);
    browsers.push(mine.browser, theirs.browser);

    // On: the player's own page, then the other page shows the seat as automatic.
    await mine.page.click('[data-testid=automatic-on]');
    await mine.page.locator('[data-testid=automatic-playing]').waitFor();
    out.banner = await mine.page.locator('[data-testid=automatic-playing] span').textContent();
    await seatOn(theirs.page, me.seat, 'true');
    out.other_role = await theirs.page.locator(`.seat[data-seat="${me.seat}"] .seat-role`).textContent();

    // The server plays for them: the robot's moves appear in the other page's log.
    let robotMoves = [];
    for (let i = 0; i < 300 && robotMoves.length === 0; i += 1) {
      robotMoves = (await logOf(theirs.page)).filter((e) => e.actor === 'robot' && e.seat === me.seat);
      if (robotMoves.length === 0) await sleep(100);
    }
    out.robot_moves = robotMoves;
    out.switch_line = (await logOf(theirs.page)).find((e) => e.kind === 'robot')?.text ?? '';

    // Off, from the banner: the seat is the player's again, on both pages.
    await mine.page.click('[data-testid=automatic-off]');
    await mine.page.locator('[data-testid=automatic-playing]').waitFor({ state: 'detached' });
    await seatOn(theirs.page, me.seat, 'false');
    out.on_button_back = await mine.page.locator('[data-testid=automatic-on]').count();
    out.view_after = (await app.getView(gameId)).seats[me.seat].automatic;
  } catch (err) {
    out.error = String(err?.stack ?? err);
  } finally {
    for (const b of browsers) await b.close();
  }
  console.log(JSON.stringify(out, (_, v) => (typeof v === 'bigint' ? Number(v) : v)));
  if (out.error) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
