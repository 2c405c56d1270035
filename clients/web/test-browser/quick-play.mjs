// Quick play through the web table in a real browser (Debian's chromium, driven by
// playwright-core): the page asks for a table and waits; reloaded, it finds its
// ticket again (ListQuickPlayTickets) instead of asking anew; Cancel takes the
// ticket out of the queue, so another guest who asks next is not matched with the
// player who left but with the next one to come; asked again, the page is seated when another player
// (asked through the app's key) fills the table. Prints one JSON line of what it
// saw; tests/web/test_web_quick_play.py runs it against a server it started and
// checks the line against the API.
//
// Environment: TRANCA_WEB_URL (the server's browser port, serving the page),
// TRANCA_API_KEY (the app's key, for the other player), CHROMIUM (default
// /usr/bin/chromium).
import { TrancaClient } from '../dist/index.js';
import { launch, sleep, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
const apiKey = process.env.TRANCA_API_KEY;
if (!baseUrl || !apiKey) throw new Error('TRANCA_WEB_URL and TRANCA_API_KEY must be set');


const listed = async (client) =>
  (await client.listQuickPlayTickets()).tickets.map((t) => ({
    ticket_id: t.ticketId,
    status: t.status,
    player_ids: [...t.playerIds],
    game_id: t.gameId,
  }));

async function main() {
  const browser = await launch({ locale: 'en' });
  const out = { console_errors: [] };
  try {
    const page = await watchedPage(browser.context, out.console_errors);
    await page.goto(`${baseUrl}/?lang=en`);
    await page.selectOption('[data-testid=players]', '2');

    // Asked: the page waits.
    await page.click('[data-testid=quick-play]');
    const waiting = page.locator('[data-testid=waiting]');
    await waiting.waitFor();
    out.asked = await waiting.getAttribute('data-ticket');
    const token = await page.evaluate(() => JSON.parse(localStorage.getItem('tranca.session')).accessToken);
    const me = new TrancaClient({ baseUrl, token });

    // Reloaded while waiting: the page follows the same ticket.
    await page.evaluate(() => {
      window.__trancaLoaded = 'once';
    });
    await page.reload();
    await waiting.waitFor();
    out.reloaded = (await page.evaluate(() => window.__trancaLoaded ?? '')) === '';
    await page.waitForFunction(() => document.querySelector('[data-testid=waiting]')?.dataset.ticket);
    out.resumed = await waiting.getAttribute('data-ticket');
    out.after_reload = await listed(me);

    // Cancelled: back in the lobby, the ticket out of the queue.
    await page.click('[data-testid=cancel-quick-play]');
    await page.locator('[data-testid=quick-play]').waitFor();
    out.after_cancel = await listed(me);

    // Another guest (another browser) asks: nobody is left for it to meet, the player
    // who cancelled least of all; a third player (through the app's key) makes the
    // table with it.
    const other = await launch({ locale: 'en' });
    try {
      const page2 = await watchedPage(other.context, out.console_errors);
      await page2.goto(`${baseUrl}/?lang=en`);
      await page2.selectOption('[data-testid=players]', '2');
      await page2.click('[data-testid=quick-play]');
      const waiting2 = page2.locator('[data-testid=waiting]');
      await waiting2.waitFor();
      await page2.waitForFunction(() => document.querySelector('[data-testid=waiting]')?.dataset.ticket);
      out.other_ticket = await waiting2.getAttribute('data-ticket');
      const token2 = await page2.evaluate(() => JSON.parse(localStorage.getItem('tranca.session')).accessToken);
      const guest2 = new TrancaClient({ baseUrl, token: token2 });
      await sleep(2_000); // several passes of the matchmaker
      out.other_alone = (await guest2.getTicket(out.other_ticket)).status;
      const third = await new TrancaClient({ baseUrl, apiKey }).askQuickPlay({
        preset: 'tranca-000',
        players: 2,
        playerIds: ['third'],
      });
      out.third = third.ticketId;
      await page2.waitForSelector('[data-testid=table][data-game]');
      out.other_seated = await page2.evaluate(() => JSON.parse(localStorage.getItem('tranca.table') ?? 'null'));
      out.other_tickets = await listed(guest2);
    } finally {
      await other.close();
    }

    // Asked again, and reloaded: another player fills the table, the page sits.
    await page.click('[data-testid=quick-play]');
    await waiting.waitFor();
    out.second = await waiting.getAttribute('data-ticket');
    await page.reload();
    await page.waitForFunction(() => document.querySelector('[data-testid=waiting]')?.dataset.ticket);
    out.second_resumed = await waiting.getAttribute('data-ticket');
    const app = new TrancaClient({ baseUrl, apiKey });
    const rival = await app.askQuickPlay({ preset: 'tranca-000', players: 2, playerIds: ['rival'] });
    out.rival = rival.ticketId;
    await page.waitForSelector('[data-testid=table][data-game]');
    const seated = await page.evaluate(() => JSON.parse(localStorage.getItem('tranca.table') ?? 'null'));
    out.game_id = seated.gameId;
    out.seat = seated.seat;
    out.token = seated.token;
    out.after_match = await listed(me);
  } catch (err) {
    out.error = String(err?.stack ?? err);
    out.page_text = await browser.context.pages()[0]?.innerText('body').catch(() => '');
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
