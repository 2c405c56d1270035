// Invitations to a table in the web table, in three browsers: three guests, Ana, Bia
// and Caio. Ana and Bia become friends (by the id Bia's panel shows). An invitation
// of Ana's to a table the app made for her is refused when Bia accepts it, the table
// full meanwhile (GAME_FULL, in words), and she declines it. Ana opens a
// private table for four from the lobby ("Private table", no robots) and, at the
// waiting table, invites Bia from her friends panel. Bia's page, never reloaded, shows
// the invitation (who invites, the table, when it expires) in its "Invitations" group
// (her event stream told it), and she declines it: Ana's page shows it declined.
// Ana invites her again and cancels it: it leaves Bia's page. Invited a third time,
// Bia accepts: her page sits at Ana's table, and both pages show both seats. Caio,
// nobody's friend, asks for the private table by its id: refused in words
// (INVITE_REQUIRED); with the invite code Ana's page shows, he sits down.
// Prints one JSON line of what it saw; tests/web/test_web_invitations.py checks it
// against the API.
//
// Environment: TRANCA_WEB_URL, TRANCA_API_KEY, CHROMIUM; TRANCA_ARTIFACTS (where
// screenshots go).
import { TrancaClient } from '../dist/index.js';
import { axeViolations, launch, screenshots, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
if (!baseUrl) throw new Error('TRANCA_WEB_URL is not set');
const artifacts = process.env.TRANCA_ARTIFACTS ?? '';
const app = new TrancaClient({ baseUrl, apiKey: process.env.TRANCA_API_KEY ?? '' });

/** A guest of that name in the lobby: the name typed, the lobby asked again (the guest signs in with it). */
async function guest(context, errors, name) {
  const page = await watchedPage(context, errors);
  await page.goto(`${baseUrl}/?lang=en`);
  await page.locator('[data-testid=account]:not([data-player=""])').waitFor(); // signed in as "Guest" first
  await page.fill('[data-testid=name]', name);
  await page.click('[data-testid=refresh-tables]');
  await page.waitForFunction((n) => document.querySelector('[data-testid=profile]')?.textContent.endsWith(`: ${n}`), name);
  const player = await page.locator('[data-testid=account]').getAttribute('data-player');
  await page.locator(`[data-testid=my-player-id]:text-is("${player}")`).waitFor();
  await page.locator('[data-testid=friends] [data-testid=no-friends]').waitFor();
  return { page, player };
}

const row = (page, playerId) => page.locator(`[data-testid=friends] li[data-testid=friend][data-player="${playerId}"]`);
const text = async (locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
const invitationsNotice = (page) => text(page.locator('[data-testid=invitations-notice]'));
const received = (page) => page.locator('[data-testid=invitations] li[data-testid=invitation]');

/** The invitation a page lists as received, as shown; null when none. */
async function shownInvitation(page) {
  const li = received(page);
  if ((await li.count()) === 0) return null;
  return {
    id: await li.getAttribute('data-invitation'),
    game: await li.getAttribute('data-game'),
    from_player: await li.getAttribute('data-from'),
    kind: await li.getAttribute('data-kind'),
    from: await text(li.locator('[data-testid=invitation-from]')),
    table: await text(li.locator('[data-testid=invitation-table]')),
    expires: await text(li.locator('[data-testid=invitation-expires]')),
    accept_label: await li.locator('[data-testid=accept-invitation]').getAttribute('aria-label'),
    decline_label: await li.locator('[data-testid=decline-invitation]').getAttribute('aria-label'),
  };
}

/** The invitation's state beside a friend, as the inviter's page shows it. */
async function inviteState(page, playerId) {
  const state = row(page, playerId).locator('[data-testid=invite-state]');
  if ((await state.count()) === 0) return null;
  return { state: await state.getAttribute('data-state'), text: await text(state) };
}

/** The seats of the waiting table, as a page lists them. */
const seatsShown = (page) => page.$$eval('[data-testid=table] .seats-list li', (els) => els.map((e) => e.textContent.trim()));

async function main() {
  const browsers = [await launch({ locale: 'en' }), await launch({ locale: 'en' }), await launch({ locale: 'en' })];
  const out = { console_errors: [], screenshots: [] };
  try {
    const ana = await guest(browsers[0].context, out.console_errors, 'Ana Anfitriã');
    const bia = await guest(browsers[1].context, out.console_errors, 'Bia Convidada');
    const caio = await guest(browsers[2].context, out.console_errors, 'Caio Estranho');
    out.ana = ana.player;
    out.bia = bia.player;
    out.caio = caio.player;

    // Ana and Bia become friends.
    await ana.page.fill('[data-testid=friend-id]', await bia.page.locator('[data-testid=my-player-id]').textContent());
    await ana.page.click('[data-testid=add-friend]');
    await row(bia.page, ana.player).locator('[data-testid=accept-friend]').click({ timeout: 20_000 });
    await row(ana.page, bia.player).and(ana.page.locator('[data-relation=friend]')).waitFor({ timeout: 20_000 });

    // A table the app made for Ana, to which she invites Bia (the app acting for her):
    // it fills up before Bia answers, and her Accept is refused in words (GAME_FULL);
    // the invitation stays, and she declines it.
    const made = await app.createGame({ rules: { preset: 'tranca-000' }, players: 2, label: 'Sexta à noite', ownerPlayerId: ana.player });
    out.full_game = made.game.gameId;
    await app.inviteToTable(out.full_game, bia.player, { actingPlayerId: ana.player });
    await received(bia.page).waitFor({ timeout: 20_000 });
    out.full_invitation = await shownInvitation(bia.page);
    for (const [n, name] of ['Dora', 'Edu'].entries()) {
      await app.joinGame({ gameId: out.full_game, seat: n, playerName: name, playerId: `${name.toLowerCase()}-${Date.now()}` });
    }
    await received(bia.page).locator('[data-testid=accept-invitation]').click();
    const full = bia.page.locator('[data-testid=friends] [data-testid=refusal]');
    await full.waitFor();
    out.full_refusal = { reason: await full.getAttribute('data-reason'), text: await text(full.locator('[data-testid=refusal-text]')) };
    out.full_still_shown = await received(bia.page).count();
    out.full_screen = await bia.page.locator('[data-testid=table]').count();
    out.axe_full = await axeViolations(bia.page, 'an invitation refused: the table is full');
    await received(bia.page).locator('[data-testid=decline-invitation]').click();
    await received(bia.page).waitFor({ state: 'detached' });
    await full.waitFor({ state: 'detached' }); // the next action clears the refusal

    // Ana opens a private table for four, with no robots: it waits for the players she invites.
    await ana.page.selectOption('[data-testid=players]', '4');
    out.private_disabled_with_robots = await ana.page.isDisabled('[data-testid=opt-private]');
    await ana.page.uncheck('[data-testid=opt-robots]');
    await ana.page.check('[data-testid=opt-private]');
    out.axe_new_table = await axeViolations(ana.page, 'the new table, private');
    await ana.page.click('[data-testid=new-table]');
    await ana.page.locator('[data-testid=waiting-players]').waitFor();
    const invites = ana.page.locator('[data-testid=waiting-invites]');
    out.table_private = await invites.getAttribute('data-private');
    out.game = await text(invites.locator('[data-testid=table-id]'));
    out.invite_code = await text(invites.locator('[data-testid=invite-code]'));
    out.ana_seat = Number(await ana.page.locator('[data-testid=table]').getAttribute('data-seat'));
    out.invite_label = await row(ana.page, bia.player).locator('[data-testid=invite-friend]').getAttribute('aria-label');
    out.watch_offered = await row(ana.page, bia.player).locator('[data-testid=invite-friend-watch]').count();
    out.axe_waiting_table = await axeViolations(ana.page, 'a waiting table, friends to invite');

    // Ana invites Bia to a seat; Bia's page, not reloaded, shows it.
    await row(ana.page, bia.player).locator('[data-testid=invite-friend]').click();
    await row(ana.page, bia.player).locator('[data-testid=invite-state][data-state=pending]').waitFor();
    out.ana_pending = await inviteState(ana.page, bia.player);
    out.ana_notice_sent = await invitationsNotice(ana.page);
    await received(bia.page).waitFor({ timeout: 20_000 });
    out.bia_invitation = await shownInvitation(bia.page);
    await bia.page.waitForFunction(() => document.querySelector('[data-testid=invitations-notice]')?.textContent.includes('invites you'));
    out.bia_notice_invited = await invitationsNotice(bia.page);
    out.axe_invitation = await axeViolations(bia.page, 'an invitation received');
    out.screenshots.push(...(await screenshots(bia.page, artifacts, 'web-invitation-received')));
    out.screenshots.push(...(await screenshots(ana.page, artifacts, 'web-invitation-sent')));

    // Bia declines: Ana's page shows it.
    out.declined_id = out.bia_invitation.id;
    await received(bia.page).locator('[data-testid=decline-invitation]').click();
    await received(bia.page).waitFor({ state: 'detached' });
    out.bia_notice_declined = await invitationsNotice(bia.page);
    await row(ana.page, bia.player).locator('[data-testid=invite-state][data-state=declined]').waitFor({ timeout: 20_000 });
    out.ana_declined = await inviteState(ana.page, bia.player);
    await ana.page.waitForFunction(() => document.querySelector('[data-testid=invitations-notice]')?.textContent.includes('declined'));
    out.ana_notice_declined = await invitationsNotice(ana.page);

    // Ana invites her again, and cancels it: it leaves Bia's page.
    await row(ana.page, bia.player).locator('[data-testid=invite-friend]').click();
    await row(ana.page, bia.player).locator('[data-testid=invite-state][data-state=pending]').waitFor();
    await received(bia.page).waitFor({ timeout: 20_000 });
    out.cancelled_id = await received(bia.page).getAttribute('data-invitation');
    out.cancel_label = await row(ana.page, bia.player).locator('[data-testid=cancel-invitation]').getAttribute('aria-label');
    await row(ana.page, bia.player).locator('[data-testid=cancel-invitation]').click();
    await row(ana.page, bia.player).locator('[data-testid=invite-friend]').waitFor();
    out.ana_notice_cancelled = await invitationsNotice(ana.page);
    await received(bia.page).waitFor({ state: 'detached', timeout: 20_000 });
    await bia.page.waitForFunction(() => document.querySelector('[data-testid=invitations-notice]')?.textContent.includes('withdrew'));
    out.bia_notice_cancelled = await invitationsNotice(bia.page);

    // Invited a third time, Bia accepts: her page sits at Ana's table.
    await row(ana.page, bia.player).locator('[data-testid=invite-friend]').click();
    await received(bia.page).waitFor({ timeout: 20_000 });
    out.accepted_id = await received(bia.page).getAttribute('data-invitation');
    await received(bia.page).locator('[data-testid=accept-invitation]').click();
    await bia.page.locator(`[data-testid=table][data-game="${out.game}"]`).waitFor();
    out.bia_seat = Number(await bia.page.locator('[data-testid=table]').getAttribute('data-seat'));
    await row(ana.page, bia.player).locator('[data-testid=invite-state][data-state=seated]').waitFor({ timeout: 20_000 });
    out.ana_bia_seated = await inviteState(ana.page, bia.player);
    await ana.page.waitForFunction(() => document.querySelector('[data-testid=invitations-notice]')?.textContent.includes('accepted'));
    out.ana_notice_accepted = await invitationsNotice(ana.page);
    for (const p of [ana.page, bia.page]) {
      await p.waitForFunction(() => document.querySelector('[data-testid=waiting-players]')?.textContent.includes('2 of 4'));
    }
    out.seats_ana = await seatsShown(ana.page);
    out.seats_bia = await seatsShown(bia.page);
    // At the table Bia is not the opener: no invite code on her page.
    out.bia_sees_code = await bia.page.locator('[data-testid=invite-code]').count();
    out.axe_seated = await axeViolations(bia.page, 'a table sat at by an invitation');
    out.screenshots.push(...(await screenshots(ana.page, artifacts, 'web-invitation-accepted')));

    // Caio, nobody's friend, asks for the private table by its id: refused in words.
    await caio.page.locator('[data-testid=join-by-id] summary').click();
    await caio.page.fill('[data-testid=join-game-id]', out.game);
    await caio.page.click('[data-testid=join-by-id-submit]');
    const refusal = caio.page.locator('[data-testid=refusal]');
    await refusal.waitFor();
    out.caio_refusal = {
      reason: await refusal.getAttribute('data-reason'),
      text: await text(refusal.locator('[data-testid=refusal-text]')),
    };
    out.caio_screen_after_refusal = await caio.page.locator('[data-testid=table]').count();
    out.axe_refusal = await axeViolations(caio.page, 'a private table refused');
    out.screenshots.push(...(await screenshots(caio.page, artifacts, 'web-invitation-private-refused')));
    // With the invite code Ana's page shows, he sits down (the id he typed kept).
    out.caio_id_kept = await caio.page.inputValue('[data-testid=join-game-id]');
    await caio.page.fill('[data-testid=join-code]', out.invite_code);
    await caio.page.click('[data-testid=join-by-id-submit]');
    await caio.page.locator(`[data-testid=table][data-game="${out.game}"]`).waitFor();
    out.caio_seat = Number(await caio.page.locator('[data-testid=table]').getAttribute('data-seat'));
    for (const p of [ana.page, bia.page]) {
      await p.waitForFunction(() => document.querySelector('[data-testid=waiting-players]')?.textContent.includes('3 of 4'));
    }
    out.seats_ana_after_caio = await seatsShown(ana.page);
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
