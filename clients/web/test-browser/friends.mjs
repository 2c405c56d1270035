// Friends in the web table, in two browsers: two guests, Ana and Bia, each with the
// lobby's Friends panel. Ana adds Bia by the player id Bia's panel shows; Bia's page,
// never reloaded, shows the request (her event stream told it) and she accepts it; both
// pages show the other as a friend. Then Ana blocks Bia (confirming it in place): Bia's
// page loses the friend without a reload, and her request to Ana is refused in words.
// Ana unblocks Bia and opens a table for two; Bia sits down, and adds Ana from Ana's
// seat; Ana's seat of Bia offers to accept (her stream told it at the table), she
// does, and both seats show the other as a friend.
// Prints one JSON line of what it saw; tests/web/test_web_friends.py checks it against
// the API.
//
// Environment: TRANCA_WEB_URL, CHROMIUM; TRANCA_ARTIFACTS (where screenshots go).
import { axeViolations, launch, screenshots, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
if (!baseUrl) throw new Error('TRANCA_WEB_URL is not set');
const artifacts = process.env.TRANCA_ARTIFACTS ?? '';

/** A guest of that name in the lobby: the name typed, the lobby asked again (the guest signs in with it). */
async function guest(context, errors, name) {
  const page = await watchedPage(context, errors);
  await page.goto(`${baseUrl}/?lang=en`);
  await page.locator('[data-testid=account]:not([data-player=""])').waitFor(); // signed in as "Guest" first
  await page.fill('[data-testid=name]', name);
  await page.click('[data-testid=refresh-tables]');
  await page.waitForFunction((n) => document.querySelector('[data-testid=profile]')?.textContent.endsWith(`: ${n}`), name);
  const player = await page.locator('[data-testid=account]').getAttribute('data-player');
  // The panel follows the new guest: its id shown, its (empty) list read.
  await page.locator(`[data-testid=my-player-id]:text-is("${player}")`).waitFor();
  await page.locator('[data-testid=friends] [data-testid=no-friends]').waitFor();
  return { page, player };
}

const row = (page, playerId) => page.locator(`[data-testid=friends] li[data-testid=friend][data-player="${playerId}"]`);

/** The other player as a page's panel lists them: relation and name shown; null when absent. */
const listed = async (page, playerId) => {
  const li = row(page, playerId);
  if ((await li.count()) === 0) return null;
  return { relation: await li.getAttribute('data-relation'), name: await li.locator('[data-testid=friend-name]').textContent() };
};

const notice = (page) => page.locator('[data-testid=friends-notice]').textContent();

async function main() {
  const first = await launch({ locale: 'en' });
  const second = await launch({ locale: 'en' });
  const out = { console_errors: [], screenshots: [] };
  try {
    const ana = await guest(first.context, out.console_errors, 'Ana Amiga');
    const bia = await guest(second.context, out.console_errors, 'Bia Bloqueada');
    out.ana = ana.player;
    out.bia = bia.player;
    out.bia_shows_id = await bia.page.locator('[data-testid=my-player-id]').textContent();

    // Ana adds Bia by the id Bia's page shows.
    await ana.page.fill('[data-testid=friend-id]', out.bia_shows_id);
    await ana.page.click('[data-testid=add-friend]');
    await row(ana.page, bia.player).and(ana.page.locator('[data-relation=request_sent]')).waitFor();
    out.ana_sent = await listed(ana.page, bia.player);
    out.ana_notice_sent = await notice(ana.page);
    out.ana_input_after = await ana.page.inputValue('[data-testid=friend-id]');

    // Bia's page, not reloaded, shows the request: her event stream told it.
    await row(bia.page, ana.player).and(bia.page.locator('[data-relation=request_received]')).waitFor({ timeout: 20_000 });
    out.bia_received = await listed(bia.page, ana.player);
    await bia.page.waitForFunction(() => document.querySelector('[data-testid=friends-notice]')?.textContent !== '');
    out.bia_notice_asked = await notice(bia.page);
    out.axe_request = await axeViolations(bia.page, 'a friend request received');
    out.screenshots.push(...(await screenshots(bia.page, artifacts, 'web-friends-request')));
    await row(bia.page, ana.player).locator('[data-testid=accept-friend]').click();
    await row(bia.page, ana.player).and(bia.page.locator('[data-relation=friend]')).waitFor();
    out.bia_friend = await listed(bia.page, ana.player);
    out.bia_notice_accepted = await notice(bia.page);
    // Ana's page, not reloaded either, shows Bia as a friend.
    await row(ana.page, bia.player).and(ana.page.locator('[data-relation=friend]')).waitFor({ timeout: 20_000 });
    out.ana_friend = await listed(ana.page, bia.player);
    out.ana_notice_accepted = await notice(ana.page);
    out.axe_friends = await axeViolations(ana.page, 'a friend listed');
    out.screenshots.push(...(await screenshots(ana.page, artifacts, 'web-friends')));

    // Ana blocks Bia: the block asks first (cancelled once), then holds.
    await row(ana.page, bia.player).locator('[data-testid=block-player]').click();
    out.block_question = await row(ana.page, bia.player).locator('.confirm').getAttribute('aria-label');
    out.axe_block_asking = await axeViolations(ana.page, 'a block, asked to confirm');
    await row(ana.page, bia.player).locator('[data-testid=block-player-cancel]').click();
    out.after_block_cancel = await listed(ana.page, bia.player);
    await row(ana.page, bia.player).locator('[data-testid=block-player]').click();
    await row(ana.page, bia.player).locator('[data-testid=block-player-confirm]').click();
    await row(ana.page, bia.player).and(ana.page.locator('[data-relation=blocked]')).waitFor();
    out.ana_blocked = await listed(ana.page, bia.player);
    out.ana_notice_blocked = await notice(ana.page);
    // Bia's page loses the friend without a reload (she is told "removed", never "blocked").
    await row(bia.page, ana.player).waitFor({ state: 'detached', timeout: 20_000 });
    out.bia_after_block = await listed(bia.page, ana.player);
    // Bia asks Ana again: refused, in words, beside the panel.
    await bia.page.fill('[data-testid=friend-id]', ana.player);
    await bia.page.click('[data-testid=add-friend]');
    const refusal = bia.page.locator('[data-testid=friends] [data-testid=refusal]');
    await refusal.waitFor();
    out.refusal = {
      reason: await refusal.getAttribute('data-reason'),
      text: await refusal.locator('[data-testid=refusal-text]').textContent(),
    };
    out.bia_input_after_refusal = await bia.page.inputValue('[data-testid=friend-id]');
    out.bia_after_refusal = await listed(bia.page, ana.player);
    out.axe_refusal = await axeViolations(bia.page, 'a friend request refused');
    out.screenshots.push(...(await screenshots(bia.page, artifacts, 'web-friends-refused')));

    // Ana unblocks Bia, and opens a table for two; Bia sits down at it.
    await row(ana.page, bia.player).locator('[data-testid=unblock-player]').click();
    await row(ana.page, bia.player).waitFor({ state: 'detached' });
    out.ana_notice_unblocked = await notice(ana.page);
    await ana.page.selectOption('[data-testid=players]', '2');
    await ana.page.uncheck('[data-testid=opt-robots]');
    await ana.page.click('[data-testid=new-table]');
    await ana.page.locator('[data-testid=waiting-players]').waitFor();
    await bia.page.click('[data-testid=refresh-tables]');
    await bia.page.locator('[data-testid=open-tables] li[data-game] [data-testid=join-table]').click();
    for (const p of [ana.page, bia.page]) await p.waitForSelector('[data-testid=status][data-status="2"]');
    // Bia adds Ana from Ana's seat (seat 0); Ana, at the table, accepts from Bia's (seat 1).
    const seat = (page, n, testid) => page.locator(`.seat[data-seat="${n}"] [data-testid=${testid}]`);
    out.seat_add_label = await seat(bia.page, 0, 'seat-add-friend').getAttribute('aria-label');
    await seat(bia.page, 0, 'seat-add-friend').click();
    await seat(bia.page, 0, 'seat-friend').and(bia.page.locator('[data-relation=request_sent]')).waitFor();
    out.bia_seat_sent = await seat(bia.page, 0, 'seat-friend').textContent();
    await seat(ana.page, 1, 'seat-accept-friend').waitFor({ timeout: 20_000 });
    out.seat_accept_label = await seat(ana.page, 1, 'seat-accept-friend').getAttribute('aria-label');
    out.axe_seat = await axeViolations(ana.page, 'a seat offering to accept a friend');
    await seat(ana.page, 1, 'seat-accept-friend').click();
    await seat(ana.page, 1, 'seat-friend').and(ana.page.locator('[data-relation=friend]')).waitFor();
    await seat(bia.page, 0, 'seat-friend').and(bia.page.locator('[data-relation=friend]')).waitFor({ timeout: 20_000 });
    out.seats_friends = [await seat(ana.page, 1, 'seat-friend').textContent(), await seat(bia.page, 0, 'seat-friend').textContent()];
  } catch (err) {
    out.error = String(err?.stack ?? err);
  } finally {
    await second.close();
    await first.close();
  }
  console.log(JSON.stringify(out));
  if (out.error) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
