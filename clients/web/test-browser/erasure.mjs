// Erasing one's account from the web table, in two browsers: a player signs in with
// the development server's test identity provider, saves their country and opens a
// table for two; a guest finds it in the lobby with the host's country by the name,
// and sits down. Asking to erase their data mid-match is refused (they still play);
// they leave the match (confirming it), and erase their account (confirming it): the
// page is a stranger's again. Prints one JSON line of what it saw; tests/web/test_web_erasure.py checks the
// database: the player's name and id are in none of its text columns.
//
// Environment: TRANCA_WEB_URL, CHROMIUM.
import { axeViolations, canMove, clickAMove, launch, readPage, seatedIn, sleep, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
if (!baseUrl) throw new Error('TRANCA_WEB_URL is not set');

const NAME = 'Rui Apagado Teixeira';

const account = (page) =>
  page.locator('[data-testid=account]').evaluate((e) => ({ player: e.dataset.player, kind: e.dataset.kind }));

/** Waits for either page's turn with a move to make, and makes one there. */
async function playAMove(pages) {
  for (let i = 0; i < 200; i += 1) {
    for (const page of pages) {
      const s = await page.evaluate(readPage);
      if (canMove(s)) return clickAMove(page, s);
    }
    await sleep(100);
  }
  throw new Error('neither seat had a move to make');
}

async function main() {
  const browser = await launch({ locale: 'en' });
  const visitor = await launch({ locale: 'en' });
  const out = { console_errors: [] };
  try {
    const page = await watchedPage(browser.context, out.console_errors);
    await page.goto(`${baseUrl}/?lang=en`);
    await page.fill('[data-testid=name]', NAME);
    await page.click('[data-testid=dev-sign-in]');
    await page.waitForSelector('[data-testid=account][data-kind=identity]');
    out.signed_in = await account(page);
    await page.click('[data-testid=profile-form] summary');
    await page.fill('[data-testid=profile-country]', 'pt');
    await page.click('[data-testid=profile-save]');
    await page.waitForSelector('.notice');
    await page.selectOption('[data-testid=players]', '2');
    await page.uncheck('[data-testid=opt-robots]');
    await page.click('[data-testid=new-table]');
    await page.locator('[data-testid=waiting-players]').waitFor();
    out.seat = await seatedIn(page);

    // A guest sees the table in the lobby, the host's country by the name, and sits.
    const other = await watchedPage(visitor.context, out.console_errors);
    await other.goto(`${baseUrl}/?lang=en`);
    await other.fill('[data-testid=name]', 'Visita');
    const row = other.locator(`[data-testid=open-tables] li[data-game="${out.seat.gameId}"]`);
    await row.waitFor();
    const players = row.locator('[data-testid=table-players]');
    await other.waitForFunction(
      (id) => document.querySelector(`li[data-game="${id}"] [data-testid=table-players]`)?.textContent.includes('(PT)'),
      out.seat.gameId,
    );
    out.listed = await players.textContent();
    await row.locator('[data-testid=join-table]').click();
    for (const p of [page, other]) await p.waitForSelector('[data-testid=status][data-status="2"]');
    out.played = await playAMove([page, other]);
    // Mid-match: the erasure is refused, in words, and nothing changes.
    if (!(await page.locator('[data-testid=erase-data]').isVisible())) {
      await page.click('[data-testid=profile-form] summary');
    }
    await page.click('[data-testid=erase-data]');
    out.axe_asking = await axeViolations(page, 'the erasure, asked to confirm');
    await page.click('[data-testid=erase-data-confirm]');
    const refusal = page.locator('[data-testid=refusal]');
    await refusal.waitFor();
    out.refusal = { reason: await refusal.getAttribute('data-reason'), text: await refusal.locator('[data-testid=refusal-text]').textContent() };
    out.still_signed_in = await account(page);
    // Leaving the match asks first; cancelling keeps the player at the table.
    await page.click('[data-testid=resign]');
    await page.click('[data-testid=resign-cancel]');
    out.after_cancel = (await page.evaluate(readPage)).status;
    await page.click('[data-testid=resign]');
    await page.click('[data-testid=resign-confirm]');
    await page.waitForSelector('[data-testid=status][data-status="3"]');
    // The match is over: back to the lobby, where the erasure goes through: no session,
    // the notice.
    await page.click('[data-testid=leave-table]');
    await page.waitForSelector('[data-testid=new-table]');
    if (!(await page.locator('[data-testid=erase-data]').isVisible())) {
      await page.click('[data-testid=profile-form] summary');
    }
    // The match just ended is settled by the server's sweeper within moments; until
    // then the erasure is refused as the first was, and the player asks again.
    for (let tries = 0; tries < 20; tries += 1) {
      await page.click('[data-testid=erase-data]');
      await page.click('[data-testid=erase-data-confirm]');
      const done = await page
        .waitForSelector('[data-testid=dev-sign-in]', { timeout: 1000 })
        .then(() => true)
        .catch(() => false);
      if (done) break;
      out.erase_retries = tries + 1;
    }
    out.notice = await page.locator('.notice').textContent();
    out.after = await page.evaluate(() => ({
      session: localStorage.getItem('tranca.session'),
      table: localStorage.getItem('tranca.table'),
      lobby: !!document.querySelector('[data-testid=new-table]'),
    }));
    out.axe_after = await axeViolations(page, 'the lobby, after the erasure');
  } catch (err) {
    out.error = String(err?.stack ?? err);
  } finally {
    await visitor.close();
    await browser.close();
  }
  console.log(JSON.stringify(out));
  if (out.error) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
