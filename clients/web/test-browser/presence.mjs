// Presence in the web table, in two browsers: two guests, Ana and Bia, become friends
// (Ana adds Bia by id, Bia accepts). Ana's Friends panel shows Bia online (a green dot
// and its words). Bia says she is away: Ana's page, shown again, shows her away. Bia
// lets nobody see her presence: Ana's row of Bia has no presence at all. Bia lets her
// friends see it again, is back, and opens a table for two: Ana's page shows her online
// at a table waiting for players.
// Prints one JSON line of what it saw; tests/web/test_web_presence.py checks it against
// the API.
//
// Environment: TRANCA_WEB_URL, CHROMIUM; TRANCA_ARTIFACTS (where screenshots go).
import { axeViolations, launch, screenshots, sleep, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
if (!baseUrl) throw new Error('TRANCA_WEB_URL is not set');
const artifacts = process.env.TRANCA_ARTIFACTS ?? '';

/** A guest of that name in the lobby, signed in with it, their panel following them. */
async function guest(context, errors, name) {
  const page = await watchedPage(context, errors);
  await page.goto(`${baseUrl}/?lang=en`);
  await page.locator('[data-testid=account]:not([data-player=""])').waitFor();
  await page.fill('[data-testid=name]', name);
  await page.click('[data-testid=refresh-tables]');
  await page.waitForFunction((n) => document.querySelector('[data-testid=profile]')?.textContent.endsWith(`: ${n}`), name);
  const player = await page.locator('[data-testid=account]').getAttribute('data-player');
  await page.locator(`[data-testid=my-player-id]:text-is("${player}")`).waitFor();
  await page.locator('[data-testid=friends] [data-testid=no-friends]').waitFor();
  return { page, player };
}

const row = (page, playerId) => page.locator(`[data-testid=friends] li[data-testid=friend][data-player="${playerId}"]`);

/**
 * Ana's page shown again (the tab brought back) until its row of the player matches:
 * the friends' presence changes unannounced, and a page reads it when it is shown.
 */
async function shownAgainUntil(page, playerId, check) {
  for (let tries = 0; tries < 20; tries += 1) {
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await sleep(250);
    if (await check(row(page, playerId))) return true;
  }
  return false;
}

/** The presence a row shows: its status and words; null when it shows none. */
async function presenceOf(li) {
  const badge = li.locator('[data-testid=presence]');
  if ((await badge.count()) === 0) return null;
  return { status: await badge.getAttribute('data-status'), text: await badge.locator('.presence-text').textContent() };
}

const hasStatus = (status) => async (li) => (await presenceOf(li))?.status === status;

/** Bia's own presence changed from her panel, and the answer shown back. */
async function waitSettled(page) {
  await page.waitForFunction(() => !document.querySelector('[data-testid=presence-away]')?.disabled);
}

/** "I am away" clicked, and the service's answer shown: the box as the answer left it. */
async function setAway(page, away) {
  await page.click('[data-testid=presence-away]');
  await page.waitForFunction((want) => {
    const box = document.querySelector('[data-testid=presence-away]');
    return box && !box.disabled && box.checked === want;
  }, away);
}

async function main() {
  const first = await launch({ locale: 'en' });
  const second = await launch({ locale: 'en' });
  const out = { console_errors: [], screenshots: [] };
  try {
    const ana = await guest(first.context, out.console_errors, 'Ana Presente');
    const bia = await guest(second.context, out.console_errors, 'Bia Ausente');
    out.ana = ana.player;
    out.bia = bia.player;
    out.ana_settings = {
      away: await ana.page.isChecked('[data-testid=presence-away]'),
      visibility: await ana.page.inputValue('[data-testid=presence-visibility]'),
    };

    // Friends: Ana asks, Bia accepts.
    await ana.page.fill('[data-testid=friend-id]', bia.player);
    await ana.page.click('[data-testid=add-friend]');
    await row(bia.page, ana.player).and(bia.page.locator('[data-relation=request_received]')).waitFor({ timeout: 20_000 });
    await row(bia.page, ana.player).locator('[data-testid=accept-friend]').click();
    await row(ana.page, bia.player).and(ana.page.locator('[data-relation=friend]')).waitFor({ timeout: 20_000 });

    // Bia is online on Ana's page.
    await shownAgainUntil(ana.page, bia.player, hasStatus('online'));
    out.online = await presenceOf(row(ana.page, bia.player));
    out.axe_online = await axeViolations(ana.page, 'a friend online');
    out.screenshots.push(...(await screenshots(ana.page, artifacts, 'web-presence-online')));

    // Bia says she is away.
    await setAway(bia.page, true);
    out.axe_settings = await axeViolations(bia.page, 'the presence settings');
    await shownAgainUntil(ana.page, bia.player, hasStatus('away'));
    out.away = await presenceOf(row(ana.page, bia.player));

    // Bia lets nobody see her presence: Ana's row of her shows none.
    await bia.page.selectOption('[data-testid=presence-visibility]', '3');
    await waitSettled(bia.page);
    await shownAgainUntil(ana.page, bia.player, async (li) => (await presenceOf(li)) === null);
    out.hidden = await presenceOf(row(ana.page, bia.player));
    out.hidden_relation = await row(ana.page, bia.player).getAttribute('data-relation');

    // Friends see it again; she is back, and opens a table for two.
    await bia.page.selectOption('[data-testid=presence-visibility]', '1');
    await waitSettled(bia.page);
    await setAway(bia.page, false);
    out.bia_settings = {
      away: await bia.page.isChecked('[data-testid=presence-away]'),
      visibility: await bia.page.inputValue('[data-testid=presence-visibility]'),
    };
    await bia.page.selectOption('[data-testid=players]', '2');
    await bia.page.uncheck('[data-testid=opt-robots]');
    await bia.page.click('[data-testid=new-table]');
    await bia.page.locator('[data-testid=waiting-players]').waitFor();
    await shownAgainUntil(ana.page, bia.player, async (li) => {
      const p = await presenceOf(li);
      return p?.status === 'online' && p.text.includes('table');
    });
    out.at_table = await presenceOf(row(ana.page, bia.player));
    out.axe_at_table = await axeViolations(ana.page, 'a friend at a table');
    out.screenshots.push(...(await screenshots(ana.page, artifacts, 'web-presence-table')));
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
