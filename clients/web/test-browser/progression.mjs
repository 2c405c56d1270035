// Experience, levels and achievements on the web table: a guest's page opens (its
// session's player), the app seats that player and a rival at a competitive table
// (each from its own address: 003 "No se puntúa si 2 jugadores de la mesa comparten la
// misma IP"), the page sits at its seat; the rival resigns, the match ends, and once
// the server's sweeper settles it the page shows the player's level and XP and the
// achievement unlocked, told in words as the events come. Prints one JSON line;
// tests/web/test_web_progression.py checks it against the API.
//
// Environment: TRANCA_WEB_URL, TRANCA_API_KEY (the app's key: it opens the table and
// seats both players), CHROMIUM.
import { TrancaClient } from '../dist/index.js';
import { axeViolations, launch, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
const apiKey = process.env.TRANCA_API_KEY;
if (!baseUrl || !apiKey) throw new Error('TRANCA_WEB_URL and TRANCA_API_KEY must be set');

async function main() {
  const app = new TrancaClient({ baseUrl, apiKey });
  const browser = await launch({ locale: 'es' });
  const out = { console_errors: [] };
  try {
    const page = await watchedPage(browser.context, out.console_errors);
    await page.goto(`${baseUrl}/?lang=es`);
    await page.fill('[data-testid=name]', 'Lucía');
    // The lobby's first call opens the guest's session.
    await page.waitForSelector('[data-testid=account][data-kind=guest]');
    const playerId = await page.locator('[data-testid=account]').getAttribute('data-player');
    out.player = playerId;
    await page.waitForSelector('[data-testid=progress][data-level="1"]');
    out.before = await page.locator('[data-testid=level]').textContent();

    const created = await app.createGame({
      rules: { preset: 'tranca-003' },
      players: 2,
      seed: 3n,
      table: { competitive: true }, // a match to points: 100 XP to its winner, level 2
    });
    const gameId = created.game.gameId;
    out.game_id = gameId;
    const mine = await app.joinGame({ gameId, seat: 0, playerName: 'Lucía', playerId, playerAddress: '10.3.0.1' });
    const rival = await app.joinGame({ gameId, seat: 1, playerName: 'Rival', playerId: 'rival-web', playerAddress: '10.3.0.2' });
    await app.withToken(mine.playerToken).startGame(gameId);
    await page.evaluate((seated) => localStorage.setItem('tranca.table', JSON.stringify(seated)), {
      gameId,
      seat: 0,
      token: mine.playerToken,
    });
    await page.reload();
    await page.waitForSelector('[data-testid=status][data-status="2"]');
    await app.withToken(rival.playerToken).leaveGame(gameId); // the rival resigns: Lucía wins
    await page.waitForSelector('[data-testid=status][data-status="3"]');
    // The match's last deal shows its table first: closed, the header is the player's.
    const dealEnd = page.locator('[data-testid=close-deal-end]');
    if (await dealEnd.isVisible().catch(() => false)) await dealEnd.click();

    // Settled by the sweeper within moments: the events bring the news and the progress.
    await page.waitForSelector('[data-testid=progress][data-level="2"]', { timeout: 20_000 });
    out.level_at_table = await page.locator('[data-testid=level]').textContent();
    // Back in the lobby, the player opens the panel.
    await page.click('[data-testid=leave-table]');
    await page.waitForSelector('[data-testid=new-table]');
    await page.click('[data-testid=progress] summary');
    await page.waitForSelector('[data-testid=achievements] li[data-achievement="first-win"][data-unlocked=yes]');
    out.level = await page.locator('[data-testid=level]').textContent();
    out.to_next = await page.locator('[data-testid=xp-to-next]').textContent();
    out.unlocked = await page.$$eval('[data-testid=achievements] li[data-unlocked=yes]', (els) =>
      els.map((e) => e.dataset.achievement),
    );
    out.towards = await page.locator('[data-testid=achievements] li[data-achievement="hundred-matches"]').textContent();
    await page.waitForSelector('[data-testid=progress-notice]');
    out.notice = await page.locator('[data-testid=progress-notice]').textContent();
    out.axe = await axeViolations(page, 'the progress panel, open');
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
