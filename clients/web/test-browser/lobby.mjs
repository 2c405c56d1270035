// The lobby's open tables through the web table, in two browsers: one guest opens a
// table for two without robots and waits; the other finds it listed
// (ListOpenTables), sits down, and both pages show the game under way. Prints one JSON
// line of what it saw; tests/web/test_web_lobby.py checks it against the API.
//
// Environment: TRANCA_WEB_URL, CHROMIUM.
import { launch, seatedIn, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
if (!baseUrl) throw new Error('TRANCA_WEB_URL is not set');

async function main() {
  const host = await launch({ locale: 'es' });
  const guest = await launch({ locale: 'es' });
  const out = { console_errors: [] };
  try {
    const a = await watchedPage(host.context, out.console_errors);
    await a.goto(`${baseUrl}/?lang=es`);
    await a.fill('[data-testid=name]', 'Lola');
    await a.selectOption('[data-testid=players]', '2');
    await a.uncheck('[data-testid=opt-robots]');
    await a.click('[data-testid=new-table]');
    await a.locator('[data-testid=waiting-players]').waitFor();
    out.host_waiting = await a.locator('[data-testid=waiting-players]').textContent();
    out.host = await seatedIn(a);

    const b = await watchedPage(guest.context, out.console_errors);
    await b.goto(`${baseUrl}/?lang=es`);
    await b.fill('[data-testid=name]', 'Pepe');
    const row = b.locator(`[data-testid=open-tables] li[data-game="${out.host.gameId}"]`);
    await row.waitFor();
    out.listed = await row.textContent();
    await row.locator('[data-testid=join-table]').click();
    for (const page of [a, b]) await page.waitForSelector('[data-testid=status][data-status="2"]');
    out.guest = await seatedIn(b);
    out.host_seats = await a.$$eval('.seat .seat-name', (els) => els.map((e) => e.textContent));
    out.guest_turn = await b.locator('[data-testid=turn]').textContent();
    out.guest_pile = await b.locator('[data-testid=pile] .label').textContent();
  } catch (err) {
    out.error = String(err?.stack ?? err);
  } finally {
    await guest.close();
    await host.close();
  }
  console.log(JSON.stringify(out));
  if (out.error) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
