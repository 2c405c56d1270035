// Watching a friend's table in the web table, in two browsers: two guests, Ana and
// Bia, become friends (Ana adds Bia by id, Bia accepts). Ana opens a table for two that
// allows spectators, with a robot in the other seat, and sits. Bia's Friends panel,
// shown again, shows Ana at a table with spectators welcome and Watch beside it; Bia
// presses it: her page shows the table as a spectator (seat -1, no hand, no moves, "You
// are watching"), the players' room to read and the spectators' room to write in. Bia
// writes there, and Ana, at a practice table, reads it. Bia reloads and still watches;
// Stop watching brings her back to the lobby.
// Prints one JSON line of what it saw; tests/web/test_web_watch.py checks it against
// the API.
//
// Environment: TRANCA_WEB_URL, CHROMIUM; TRANCA_ARTIFACTS (where screenshots go).
import { axeViolations, launch, screenshots, sleep, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
if (!baseUrl) throw new Error('TRANCA_WEB_URL is not set');
const artifacts = process.env.TRANCA_ARTIFACTS ?? '';

const WORDS = 'Nice game, Ana!';

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

/** The page shown again (the tab brought back) until `check` holds: a friend's presence changes unannounced. */
async function shownAgainUntil(page, check) {
  for (let tries = 0; tries < 40; tries += 1) {
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await sleep(250);
    if (await check()) return true;
  }
  return false;
}

/** A room's messages as a page shows them. */
const lines = (page, room) =>
  page.$$eval(`[data-testid=${room}] [data-testid=chat-message]`, (els) =>
    els.map((e) => ({
      author: e.querySelector('[data-testid=chat-author]').textContent,
      author_id: e.dataset.author,
      text: e.querySelector('[data-testid=chat-text]')?.textContent ?? '',
      mine: e.dataset.mine === 'true',
    })),
  );

/** Waits until a room on the page shows a message whose words are `text`. */
async function shows(page, room, text) {
  await page.waitForFunction(
    ([room, text]) =>
      [...document.querySelectorAll(`[data-testid=${room}] [data-testid=chat-message] [data-testid=chat-text]`)].some(
        (e) => e.textContent === text,
      ),
    [room, text],
    { timeout: 20_000 },
  );
}

/** What a spectator's page shows of the table it watches. */
async function watchedTable(page) {
  return page.evaluate(() => {
    const q = (s) => document.querySelector(s);
    const all = (s) => document.querySelectorAll(s);
    return {
      game: q('[data-testid=table]')?.dataset.game ?? '',
      seat: Number(q('[data-testid=table]')?.dataset.seat ?? -2),
      status: Number(q('[data-testid=status]')?.dataset.status ?? 0),
      watching: q('[data-testid=watching-text]')?.textContent ?? '',
      stop: q('[data-testid=stop-watching]')?.textContent ?? '',
      hands: all('[data-testid=hand]').length,
      cards_in_hand: all('[data-testid=hand] button[data-card]').length,
      legal_moves: all('[data-testid=legal-move]').length,
      seat_plates: [...all('.felt .seat')].map((s) => Number(s.dataset.seat)),
      players_room: q('[data-testid=chat-table]')?.dataset.status ?? '',
      players_room_inputs: all('[data-testid=chat-table] [data-testid=chat-input]').length,
      spectators_room: q('[data-testid=chat-spectators]')?.dataset.status ?? '',
      spectators_room_inputs: all('[data-testid=chat-spectators] [data-testid=chat-input]').length,
      kept: JSON.parse(localStorage.getItem('tranca.table') ?? 'null'),
    };
  });
}

const spectating = '[data-testid=table][data-seat="-1"] [data-testid=watching]';

async function main() {
  const first = await launch({ locale: 'en' });
  const second = await launch({ locale: 'en' });
  const out = { console_errors: [], screenshots: [] };
  try {
    const ana = await guest(first.context, out.console_errors, 'Ana Mesa');
    const bia = await guest(second.context, out.console_errors, 'Bia Plateia');
    out.ana = ana.player;
    out.bia = bia.player;

    // Friends: Ana asks, Bia accepts.
    await ana.page.fill('[data-testid=friend-id]', bia.player);
    await ana.page.click('[data-testid=add-friend]');
    await row(bia.page, ana.player).and(bia.page.locator('[data-relation=request_received]')).waitFor({ timeout: 20_000 });
    await row(bia.page, ana.player).locator('[data-testid=accept-friend]').click();
    await row(ana.page, bia.player).and(ana.page.locator('[data-relation=friend]')).waitFor({ timeout: 20_000 });

    // Ana opens a table for two that allows spectators, a robot in the other seat, and sits.
    await ana.page.selectOption('[data-testid=players]', '2');
    await ana.page.check('[data-testid=opt-robots]');
    await ana.page.check('[data-testid=opt-spectators]');
    out.spectators_option = await ana.page.locator('label:has([data-testid=opt-spectators])').textContent();
    await ana.page.click('[data-testid=new-table]');
    await ana.page.waitForSelector('[data-testid=table] [data-testid=status][data-status="2"]');
    out.game = await ana.page.locator('[data-testid=table]').getAttribute('data-game');
    await ana.page.waitForSelector('[data-testid=chat-spectators][data-status=open]');

    // Bia sees Ana at that table, spectators welcome, and Watch beside it.
    const watchButton = row(bia.page, ana.player).locator(`[data-testid=watch-table][data-game="${out.game}"]`);
    await shownAgainUntil(bia.page, async () => (await watchButton.count()) === 1);
    out.presence_text = await row(bia.page, ana.player).locator('[data-testid=presence] .presence-text').textContent();
    out.watch_label = await watchButton.textContent();
    out.watch_aria = await watchButton.getAttribute('aria-label');
    out.axe_watch_button = await axeViolations(bia.page, 'Watch beside a friend\'s table');
    out.screenshots.push(...(await screenshots(bia.page, artifacts, 'web-watch-friend')));

    // Watch: the table as a spectator.
    await watchButton.click();
    await bia.page.waitForSelector(spectating);
    await bia.page.waitForSelector('[data-testid=table] [data-testid=status][data-status="2"]');
    await bia.page.waitForSelector('[data-testid=chat-spectators][data-status=open]');
    await bia.page.waitForSelector('[data-testid=chat-table][data-status=open]');
    out.watched = await watchedTable(bia.page);

    // Bia writes in the spectators' room; Ana, at a practice table, reads it.
    await bia.page.fill('[data-testid=chat-spectators] [data-testid=chat-input]', WORDS);
    await bia.page.click('[data-testid=chat-spectators] [data-testid=chat-send]');
    await shows(bia.page, 'chat-spectators', WORDS);
    await shows(ana.page, 'chat-spectators', WORDS);
    out.bia_spectators = await lines(bia.page, 'chat-spectators');
    out.ana_spectators = await lines(ana.page, 'chat-spectators');
    out.ana_spectators_inputs = await ana.page.locator('[data-testid=chat-spectators] [data-testid=chat-input]').count();
    out.axe_watching = await axeViolations(bia.page, 'a table watched');
    out.screenshots.push(...(await screenshots(bia.page, artifacts, 'web-watch-table')));

    // A reload keeps watching.
    await bia.page.reload();
    await bia.page.waitForSelector(spectating);
    await bia.page.waitForSelector('[data-testid=table] [data-testid=status][data-status="2"]');
    await shows(bia.page, 'chat-spectators', WORDS);
    out.after_reload = await watchedTable(bia.page);

    // Stop watching: back in the lobby.
    await bia.page.click('[data-testid=stop-watching]');
    await bia.page.waitForSelector('[data-testid=open-tables]');
    out.after_stop = await bia.page.evaluate(() => ({
      table: document.querySelectorAll('[data-testid=table]').length,
      lobby: document.querySelectorAll('[data-testid=new-table]').length,
      kept: localStorage.getItem('tranca.table'),
    }));
    // Watch shows again beside Ana's table, now that the page sits at none.
    await shownAgainUntil(bia.page, async () => (await watchButton.count()) === 1);
    out.watch_again = await watchButton.count();
    out.axe_lobby = await axeViolations(bia.page, 'the lobby after watching');
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
