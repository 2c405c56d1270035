// Signing in from the web table with the development server's test identity provider,
// in two browsers: a guest opens a table with a robot and plays a move, then signs in
// (the page links the identity to the guest's player, which keeps its game); another
// browser signs in with the same name and plays as that same player. Prints one JSON
// line of what it saw; tests/web/test_web_identity.py checks it against the API.
//
// Environment: TRANCA_WEB_URL, CHROMIUM.
import { readFileSync } from 'node:fs';

import { axeViolations, canMove, clickAMove, launch, readPage, seatedIn, sleep, solidPng, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
if (!baseUrl) throw new Error('TRANCA_WEB_URL is not set');

const account = (page) =>
  page.locator('[data-testid=account]').evaluate((e) => ({
    player: e.dataset.player,
    kind: e.dataset.kind,
    text: e.querySelector('[data-testid=profile]')?.textContent ?? '',
  }));

/** Waits for the seat's turn with a move to make, and makes one. */
async function playAMove(page) {
  for (let i = 0; i < 200; i += 1) {
    const s = await page.evaluate(readPage);
    if (canMove(s)) return clickAMove(page, s);
    await sleep(100);
  }
  throw new Error('the seat never had a move to make');
}

async function main() {
  const first = await launch({ locale: 'en' });
  const second = await launch({ locale: 'en' });
  const third = await launch({ locale: 'en' });
  const out = { console_errors: [] };
  try {
    const a = await watchedPage(first.context, out.console_errors);
    await a.goto(`${baseUrl}/?lang=en`);
    // Before anything: no session, the provider offered.
    await a.locator('[data-testid=dev-sign-in]').waitFor();
    await a.fill('[data-testid=name]', 'Lia Prado');
    await a.selectOption('[data-testid=players]', '2');
    await a.check('[data-testid=opt-robots]');
    await a.click('[data-testid=new-table]');
    await a.waitForSelector('[data-testid=status][data-status="2"]');
    out.seat = await seatedIn(a);
    out.played = await playAMove(a);
    out.guest = await account(a);
    // Signing in at the table links the identity to the guest's player.
    await a.click('[data-testid=dev-sign-in]');
    await a.waitForSelector('[data-testid=account][data-kind=identity]');
    out.linked = await account(a);
    out.after_link_table = (await a.evaluate(readPage)).status;
    out.axe = await axeViolations(a, 'the table, signed in');

    // Another browser, the same person typing their name otherwise.
    const b = await watchedPage(second.context, out.console_errors);
    await b.goto(`${baseUrl}/?lang=en`);
    await b.fill('[data-testid=name]', 'lia  prado');
    await b.click('[data-testid=dev-sign-in]');
    await b.waitForSelector('[data-testid=account][data-kind=identity]');
    out.second = await account(b);
    out.second_notice = (await b.locator('.notice').textContent().catch(() => '')) ?? '';
    // The player's profile: the name it is shown with, and its country.
    await b.click('[data-testid=profile-form] summary');
    await b.fill('[data-testid=profile-name]', 'Lia P.');
    await b.fill('[data-testid=profile-country]', 'br');
    await sleep(1500); // the page re-renders meanwhile (its clock): what was typed stays
    await b.click('[data-testid=profile-save]');
    await b.waitForFunction(() => document.querySelector('[data-testid=profile]')?.textContent === 'Signed in as Lia P.');
    out.profile = await account(b);
    // A picture from the device: sent small, kept smaller, shown by the name.
    await b.setInputFiles('[data-testid=avatar-file]', {
      name: 'me.png',
      mimeType: 'image/png',
      buffer: solidPng(900, 600, [20, 160, 90]),
    });
    const mine = b.locator('[data-testid=account-avatar]');
    await mine.waitFor();
    await b.waitForFunction(() => document.querySelector('[data-testid=account-avatar]')?.naturalWidth > 0);
    out.avatar = await mine.evaluate((img) => ({ src: img.getAttribute('src'), width: img.naturalWidth }));
    // The player's copy of their data, downloaded from the page.
    const [download] = await Promise.all([b.waitForEvent('download'), b.click('[data-testid=download-data]')]);
    out.download_name = download.suggestedFilename();
    out.downloaded = JSON.parse(readFileSync(await download.path(), 'utf8'));
    // The same player's session: it opens a table of its own.
    await b.selectOption('[data-testid=players]', '2');
    await b.check('[data-testid=opt-robots]');
    await b.click('[data-testid=new-table]');
    await b.waitForSelector('[data-testid=status][data-status="2"]');
    out.second_seat = await seatedIn(b);
    // Its seat shows its profile's country, read with GetPlayerProfiles.
    const country = b.locator('.seat.me [data-testid=seat-country]');
    await country.waitFor();
    out.seat_country = { text: await country.textContent(), title: await country.getAttribute('title') };
    out.seat_avatar = await b.locator('.seat.me img.avatar').getAttribute('src');
    await b.click('[data-testid=sign-out]');
    await b.waitForSelector('[data-testid=dev-sign-in]');
    out.signed_out = await account(b);

    // A guest's sign-in still under way (the lobby's list asks for one as the page
    // opens; the network holds it here for 2 s) when the player signs in with the
    // provider: the page ends signed in, never back to the guest landing after it.
    const c = await watchedPage(third.context, out.console_errors);
    let guestInFlight = 0;
    await c.route('**/tranca.v1.SessionService/SignInGuest', async (route) => {
      guestInFlight += 1;
      await sleep(2000);
      await route.continue();
      guestInFlight -= 1;
    });
    await c.goto(`${baseUrl}/?lang=en`);
    await c.fill('[data-testid=name]', 'Rui Corrida');
    for (let i = 0; i < 100 && guestInFlight === 0; i += 1) await sleep(20);
    out.race = { guest_in_flight_at_click: guestInFlight > 0 };
    await c.click('[data-testid=dev-sign-in]');
    await c.waitForSelector('[data-testid=account][data-kind=identity]');
    for (let i = 0; i < 200 && guestInFlight > 0; i += 1) await sleep(25);
    await sleep(500); // whatever the guest's answer would do to the page, done by now
    out.race.after = await account(c);
  } catch (err) {
    out.error = String(err?.stack ?? err);
  } finally {
    await third.close();
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
