// The table head (003 "Opciones de mesa") in the web table, in two browsers: Ana opens
// a table for four from the lobby (no robots) and is its head (the star by her name on
// both pages); Bia sits down from the lobby. Ana opens the Options panel and makes the
// table rated with a stake of 10 chips. Bia's page, never reloaded, shows the Options
// button marked as changed and the prompt to agree; her panel shows the new stake,
// read-only. The app seats the last two players (who sat after the change): the table
// is full but does not start while Bia has not agreed (StartGame is refused
// CONSENT_PENDING); she agrees, and the game starts on both pages. Prints one JSON
// line of what it saw; tests/web/test_web_table_head.py checks it against the API.
//
// Environment: TRANCA_WEB_URL, TRANCA_API_KEY, CHROMIUM; TRANCA_ARTIFACTS (where
// screenshots go).
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-web';

import { TrancaClient } from '../dist/index.js';
import { PlayerService } from '../dist/gen/tranca/v1/platform_pb.js';
import { axeViolations, launch, screenshots, seatedIn, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
if (!baseUrl) throw new Error('TRANCA_WEB_URL is not set');
const apiKey = process.env.TRANCA_API_KEY ?? '';
const artifacts = process.env.TRANCA_ARTIFACTS ?? '';
const app = new TrancaClient({ baseUrl, apiKey });
// The app grants its players chips (PlayerService: the app's key).
const players = createClient(PlayerService, createConnectTransport({ baseUrl }));
const grant = (playerId) =>
  players.grantChips({ playerId, amount: 100n, grantId: `head-${playerId}` }, { headers: { 'x-api-key': apiKey } });

const text = async (locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
/** The waiting table's head as a page shows it: the starred seat, and the line that names it. */
const headShown = async (page) => ({
  starred: await page.$$eval('[data-testid=table] .seats-list li[data-head=true]', (els) =>
    els.map((e) => [e.textContent.trim(), getComputedStyle(e, '::after').content]),
  ),
  line: await text(page.locator('[data-testid=table-head]')),
});

async function main() {
  const browsers = [await launch({ locale: 'en' }), await launch({ locale: 'en' })];
  const out = { console_errors: [], screenshots: [] };
  try {
    const ana = await watchedPage(browsers[0].context, out.console_errors);
    await ana.goto(`${baseUrl}/?lang=en`);
    await ana.fill('[data-testid=name]', 'Ana');
    await ana.selectOption('[data-testid=players]', '4');
    await ana.uncheck('[data-testid=opt-robots]');
    await ana.click('[data-testid=new-table]');
    await ana.locator('[data-testid=waiting-players]').waitFor();
    const seated = await seatedIn(ana);
    out.game = seated.gameId;
    out.ana_seat = seated.seat;

    const bia = await watchedPage(browsers[1].context, out.console_errors);
    await bia.goto(`${baseUrl}/?lang=en`);
    await bia.fill('[data-testid=name]', 'Bia');
    const row = bia.locator(`[data-testid=open-tables] li[data-game="${out.game}"]`);
    await row.waitFor({ timeout: 20_000 });
    await row.locator('[data-testid=join-table]').click();
    await bia.locator('[data-testid=waiting-players]').waitFor();
    out.bia_seat = (await seatedIn(bia)).seat;
    await ana.waitForFunction(() => document.querySelectorAll('[data-testid=table] .seats-list li[data-head]').length === 4);
    await ana.locator('[data-testid=waiting-players]:has-text("2 of 4")').waitFor({ timeout: 20_000 });
    out.head_on_ana = await headShown(ana);
    out.head_on_bia = await headShown(bia);

    const view = await app.getView(out.game);
    out.player_ids = view.seats.filter((s) => s.taken).map((s) => s.playerId);
    for (const id of out.player_ids) await grant(id);

    // Ana, the head, makes the table rated with a stake of 10 chips.
    await ana.click('[data-testid=table-options]');
    const panel = ana.locator('[data-testid=options-panel]');
    await panel.waitFor();
    out.ana_panel_editable = await panel.getAttribute('data-editable');
    await ana.check('[data-testid=option-competitive]');
    await ana.fill('[data-testid=option-stake]', '10');
    out.axe_head_panel = await axeViolations(ana, 'the head’s options panel');
    await ana.click('[data-testid=save-options]');
    await panel.waitFor({ state: 'detached' });
    out.ana_marked = await ana.locator('[data-testid=table-options]').getAttribute('data-changed');

    // Bia's page: the Options button turns red, and she is asked to agree.
    await bia.locator('[data-testid=table-options][data-changed=true]').waitFor({ timeout: 20_000 });
    out.bia_marker = await text(bia.locator('[data-testid=options-changed]'));
    await bia.locator('[data-testid=consent-prompt]').waitFor({ timeout: 20_000 });
    out.consent_text = await text(bia.locator('[data-testid=consent-text]'));
    out.axe_consent = await axeViolations(bia, 'the prompt to agree to the new stake');
    await bia.click('[data-testid=table-options]');
    const seen = bia.locator('[data-testid=options-panel]');
    await seen.waitFor();
    out.bia_panel_editable = await seen.getAttribute('data-editable');
    out.bia_stake = await bia.inputValue('[data-testid=option-stake]');
    out.bia_stake_disabled = await bia.isDisabled('[data-testid=option-stake]');
    out.bia_competitive = await bia.isChecked('[data-testid=option-competitive]');
    out.bia_marked_after = await bia.locator('[data-testid=table-options]').getAttribute('data-changed');
    if (artifacts) out.screenshots.push(...(await screenshots(bia, artifacts, 'table-head-consent')));

    // The app seats the last two players: full, but no start while Bia has not agreed.
    for (const [n, name] of ['Caio', 'Dora'].entries()) {
      const id = `${name.toLowerCase()}-${Date.now()}`;
      await grant(id);
      out.player_ids.push(id);
      await app.joinGame({ gameId: out.game, seat: [0, 1, 2, 3].filter((s) => s !== out.ana_seat && s !== out.bia_seat)[n], playerName: name, playerId: id });
    }
    await ana.locator('[data-testid=waiting-players]:has-text("4 of 4")').waitFor({ timeout: 20_000 });
    try {
      await app.startGame(out.game);
      out.early_start = 'started';
    } catch (err) {
      out.early_start = err?.reason ?? String(err);
    }
    out.waiting_before_consent = await ana.locator('[data-testid=waiting-players]').count();

    await bia.click('[data-testid=consent]');
    for (const page of [ana, bia]) await page.waitForSelector('[data-testid=status][data-status="2"]', { timeout: 30_000 });
    out.started = true;
    out.head_star_playing = await ana.locator('.seat [data-testid=head-star]').count();
  } catch (err) {
    out.error = String(err?.stack ?? err);
  } finally {
    for (const b of browsers) await b.close();
  }
  console.log(JSON.stringify(out, (_, v) => (typeof v === 'bigint' ? String(v) : v)));
  if (out.error) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
