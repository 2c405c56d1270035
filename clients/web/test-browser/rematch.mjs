// A rematch at the same table in the web table, in two browsers: two guests, Ana and
// Bia. Ana opens a table for two from the lobby (no robots, one deal); Bia sits at it
// by its id; Ana's page starts it. Ana resigns: both pages show the finished match
// with Rematch. Bia presses it: her page sits at the table's next match, waiting, its
// seat 0 held for Ana with the time left and the table's two matches listed; Ana's
// page, never reloaded, shows that Bia confirmed and the time left. Ana presses it:
// her page sits at the next match too, at her seat, which starts it, and both pages
// play the second match at the same seats as the first.
// Prints one JSON line of what it saw; tests/web/test_web_rematch.py checks it against
// the API.
//
// Environment: TRANCA_WEB_URL, TRANCA_API_KEY, CHROMIUM; TRANCA_ARTIFACTS (where
// screenshots go).
import { axeViolations, launch, screenshots, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
if (!baseUrl) throw new Error('TRANCA_WEB_URL is not set');
const artifacts = process.env.TRANCA_ARTIFACTS ?? '';

/** A guest of that name in the lobby: the name typed, the lobby asked again (the guest signs in with it). */
async function guest(context, errors, name) {
  const page = await watchedPage(context, errors);
  await page.goto(`${baseUrl}/?lang=en`);
  await page.locator('[data-testid=account]:not([data-player=""])').waitFor();
  await page.fill('[data-testid=name]', name);
  await page.click('[data-testid=refresh-tables]');
  await page.waitForFunction((n) => document.querySelector('[data-testid=profile]')?.textContent.endsWith(`: ${n}`), name);
  const player = await page.locator('[data-testid=account]').getAttribute('data-player');
  return { page, player };
}

const text = async (locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
const table = (page) => page.locator('[data-testid=table]');
const playing = (page, gameId) => page.locator(`[data-testid=table][data-game="${gameId}"] [data-testid=status][data-status="2"]`);

async function main() {
  const browsers = [await launch({ locale: 'en' }), await launch({ locale: 'en' })];
  const out = { console_errors: [], screenshots: [] };
  try {
    const ana = await guest(browsers[0].context, out.console_errors, 'Ana Revanche');
    const bia = await guest(browsers[1].context, out.console_errors, 'Bia Revanche');
    out.ana = ana.player;
    out.bia = bia.player;

    // Ana opens a table for two, without robots, of one deal.
    await ana.page.selectOption('[data-testid=players]', '2');
    await ana.page.uncheck('[data-testid=opt-robots]');
    await ana.page.fill('[data-testid=opt-points]', '0');
    await ana.page.click('[data-testid=new-table]');
    await ana.page.locator('[data-testid=waiting-players]').waitFor();
    out.first_game = await table(ana.page).getAttribute('data-game');
    out.ana_seat = Number(await table(ana.page).getAttribute('data-seat'));

    // Bia sits at it by its id; the table starts (by the first seat's page).
    await bia.page.locator('[data-testid=join-by-id] summary').click();
    await bia.page.fill('[data-testid=join-game-id]', out.first_game);
    await bia.page.click('[data-testid=join-by-id-submit]');
    await table(bia.page).and(bia.page.locator(`[data-game="${out.first_game}"]`)).waitFor();
    out.bia_seat = Number(await table(bia.page).getAttribute('data-seat'));
    for (const p of [ana.page, bia.page]) await playing(p, out.first_game).waitFor({ timeout: 30_000 });

    // Ana resigns: the match is over on both pages, each with Rematch.
    await ana.page.click('[data-testid=resign]');
    await ana.page.click('[data-testid=resign-confirm]');
    for (const p of [ana.page, bia.page]) {
      await p.locator('[data-testid=rematch-panel] [data-testid=rematch]').waitFor({ timeout: 30_000 });
    }
    out.ana_before = await text(ana.page.locator('[data-testid=rematch-confirmed]'));
    out.axe_finished = await axeViolations(bia.page, 'a finished match with Rematch');
    out.screenshots.push(...(await screenshots(bia.page, artifacts, 'web-rematch-offered')));

    // Bia confirms: her page sits at the next match, waiting, seat 0 held for Ana.
    await bia.page.click('[data-testid=rematch]');
    await bia.page.locator('[data-testid=rematch-waiting]').waitFor({ timeout: 20_000 });
    out.next_game = await table(bia.page).getAttribute('data-game');
    out.bia_next_seat = Number(await table(bia.page).getAttribute('data-seat'));
    out.bia_waiting_held = await bia.page.locator('[data-testid=rematch-waiting]').getAttribute('data-held');
    out.bia_waiting_time = Number(await bia.page.locator('[data-testid=rematch-waiting] [data-testid=rematch-time]').getAttribute('data-left'));
    out.bia_waiting_seats = await bia.page.$$eval('[data-testid=waiting-seat]', (els) => els.map((e) => e.textContent.trim()));
    await bia.page.locator('[data-testid=table-matches] summary').click({ timeout: 20_000 });
    out.bia_table_matches = await bia.page.$$eval('[data-testid=table-match]', (els) =>
      els.map((e) => ({ game: e.dataset.game, number: Number(e.dataset.number), text: e.textContent.replace(/\s+/g, ' ').trim() })),
    );
    out.axe_waiting = await axeViolations(bia.page, 'the next match, a seat held');

    // Ana's page, never reloaded, shows Bia's confirmation and the time left.
    const confirmed = ana.page.locator('[data-testid=rematch-confirmed][data-seats="1"]');
    await confirmed.waitFor({ timeout: 20_000 });
    out.ana_sees = await text(confirmed);
    out.ana_time_left = Number(await ana.page.locator('[data-testid=rematch-panel] [data-testid=rematch-time]').getAttribute('data-left'));
    out.ana_panel_next = await ana.page.locator('[data-testid=rematch-panel]').getAttribute('data-next');
    out.screenshots.push(...(await screenshots(ana.page, artifacts, 'web-rematch-confirmed-by-other')));

    // Ana confirms: both pages play the next match, at the seats they had.
    await ana.page.click('[data-testid=rematch]');
    for (const p of [ana.page, bia.page]) await playing(p, out.next_game).waitFor({ timeout: 30_000 });
    out.ana_next_seat = Number(await table(ana.page).getAttribute('data-seat'));
    out.bia_next_seat_playing = Number(await table(bia.page).getAttribute('data-seat'));
    out.seat_kept = await ana.page.evaluate(() => JSON.parse(localStorage.getItem('tranca.table') ?? 'null'));
    out.screenshots.push(...(await screenshots(ana.page, artifacts, 'web-rematch-playing')));
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
