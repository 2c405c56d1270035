// Chat's moderation in the web table, in three browsers: Ana (English), Bia (Portuguese)
// and Cid (Spanish), guests in the lobby's room "main". Bia writes; Ana reports her
// message with a reason (asked in place) and mutes her: Bia's messages go from Ana's
// page at once, and a new one never shows there, while Cid's page shows them all; after
// a reload Ana's page still holds none of them, and her Friends panel lists Bia muted.
// Then the test (Python, with the app's key) resolves the report: Bia's chat muted for
// 600 s with a note. The script waits for it (a file handshake: it writes
// TRANCA_HANDSHAKE/reported.json and waits for TRANCA_HANDSHAKE/resolved.json). Bia's
// page, never reloaded, shows the "chat_sanction" event's notice and says in the chat
// box that her chat is muted, until when, with the moderator's note; she writes, and
// the refusal says the same, her text kept in its box. Last, Ana unmutes Bia from the
// Friends panel and reads her messages again.
// Prints one JSON line of what it saw; tests/web/test_web_chat_moderation.py checks
// it against the API (ListChatReports, ListMutedChatPlayers, ListChatMessages).
//
// Environment: TRANCA_WEB_URL, TRANCA_API_KEY, CHROMIUM, TRANCA_HANDSHAKE (a
// directory); TRANCA_ARTIFACTS (screenshots).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { axeViolations, launch, screenshots, sleep, watchedPage } from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
const handshake = process.env.TRANCA_HANDSHAKE;
if (!baseUrl || !handshake) throw new Error('TRANCA_WEB_URL and TRANCA_HANDSHAKE must be set');
const artifacts = process.env.TRANCA_ARTIFACTS ?? '';

const ROOM = 'chat-lobby';

/** The page in the lobby as a guest of that name (signed in anew with it): its player id. */
async function lobbyGuest(page, lang, name) {
  await page.goto(`${baseUrl}/?lang=${lang}`);
  await page.locator('[data-testid=account]:not([data-player=""])').waitFor();
  await page.fill('[data-testid=name]', name);
  await page.click('[data-testid=refresh-tables]');
  await page.waitForFunction((n) => document.querySelector('[data-testid=profile]')?.textContent.endsWith(`: ${n}`), name);
  const player = await page.locator('[data-testid=account]').getAttribute('data-player');
  await page.locator(`[data-testid=my-player-id]:text-is("${player}")`).waitFor();
  await page.waitForSelector(`[data-testid=${ROOM}][data-status=open]`);
  return player;
}

/** The lobby room's messages as a page shows them. */
const lines = (page) =>
  page.$$eval(`[data-testid=${ROOM}] [data-testid=chat-message]`, (els) =>
    els.map((e) => ({
      id: Number(e.dataset.id),
      author: e.dataset.author,
      name: e.querySelector('[data-testid=chat-author]').textContent,
      text: e.querySelector('[data-testid=chat-text]')?.textContent ?? '',
      mine: e.dataset.mine === 'true',
      report: Boolean(e.querySelector('[data-testid=chat-report]')),
      mute: Boolean(e.querySelector('[data-testid=chat-mute]')),
    })),
  );

/** Waits until the page's lobby room shows a message whose words are `text`. */
async function shows(page, text) {
  await page.waitForFunction(
    ([room, text]) =>
      [...document.querySelectorAll(`[data-testid=${room}] [data-testid=chat-text]`)].some((e) => e.textContent === text),
    [ROOM, text],
    { timeout: 20_000 },
  );
}

async function write(page, text) {
  await page.fill(`[data-testid=${ROOM}] [data-testid=chat-input]`, text);
  await page.click(`[data-testid=${ROOM}] [data-testid=chat-send]`);
}

/** The message of `text` on a page. */
const line = (page, text) =>
  page.locator(`[data-testid=${ROOM}] [data-testid=chat-message]`, {
    has: page.locator(`[data-testid=chat-text]:text-is("${text}")`),
  });

/** Waits until the page's chat notice says something other than `before` (and something). */
async function noticeChanged(page, before) {
  await page.waitForFunction(
    (before) => {
      const now = document.querySelector('[data-testid=chat-notice]')?.textContent ?? '';
      return now !== '' && now !== before;
    },
    before,
    { timeout: 20_000 },
  );
}

/** Tells the test what it needs to resolve the report, and waits until it has. */
async function waitForResolution(told) {
  writeFileSync(join(handshake, 'reported.json'), JSON.stringify(told));
  const done = join(handshake, 'resolved.json');
  for (let waited = 0; !existsSync(done); waited += 100) {
    if (waited > 60_000) throw new Error('the test did not resolve the report');
    await sleep(100);
  }
  return JSON.parse(readFileSync(done, 'utf8'));
}

async function main() {
  const browsers = [await launch({ locale: 'en' }), await launch({ locale: 'pt-BR' }), await launch({ locale: 'es' })];
  const out = { console_errors: [], screenshots: [] };
  try {
    const pages = [];
    for (const b of browsers) pages.push(await watchedPage(b.context, out.console_errors));
    const [anaPage, biaPage, cidPage] = pages;
    out.ana = await lobbyGuest(anaPage, 'en', 'Ana');
    out.bia = await lobbyGuest(biaPage, 'pt-BR', 'Bia');
    out.cid = await lobbyGuest(cidPage, 'es', 'Cid');

    // Bia writes; Ana and Cid read her.
    await write(biaPage, 'buy cheap chips at chips.example');
    await shows(biaPage, 'buy cheap chips at chips.example');
    await shows(anaPage, 'buy cheap chips at chips.example');
    await shows(cidPage, 'buy cheap chips at chips.example');
    out.ana_before = await lines(anaPage);
    out.bia_own_buttons = await biaPage.locator(`[data-testid=${ROOM}] [data-testid=chat-report], [data-testid=${ROOM}] [data-testid=chat-mute]`).count();

    // Ana reports it, with a reason asked in place.
    const rude = line(anaPage, 'buy cheap chips at chips.example');
    await rude.locator('[data-testid=chat-report]').click();
    const reason = rude.locator('[data-testid=chat-report-reason]');
    await reason.waitFor();
    out.report_label = await rude.locator('[data-testid=chat-report-form] label').textContent();
    out.axe_reporting = await axeViolations(anaPage, 'a chat message being reported');
    await reason.fill('Spam: selling chips');
    await anaPage.waitForTimeout(700); // the page re-renders every half second: the typed reason stays
    out.reason_kept = await reason.inputValue();
    await rude.locator('[data-testid=chat-report-send]').click();
    await rude.locator('[data-testid=chat-reported]').waitFor();
    out.reported_mark = await rude.locator('[data-testid=chat-reported]').textContent();
    out.report_notice = await anaPage.locator('[data-testid=chat-notice]').textContent();
    await anaPage.locator('[data-testid=lobby-chat-panel]').scrollIntoViewIfNeeded();
    out.screenshots.push(...(await screenshots(anaPage, artifacts, 'web-chat-moderation-report')));

    // Ana mutes Bia: her message goes from Ana's page at once; a new one never shows there.
    await rude.locator('[data-testid=chat-mute]').click();
    await rude.waitFor({ state: 'detached' });
    await noticeChanged(anaPage, out.report_notice);
    out.mute_notice = await anaPage.locator('[data-testid=chat-notice]').textContent();
    await anaPage.locator(`[data-testid=muted-player][data-player="${out.bia}"]`).waitFor();
    out.ana_muted_list = await anaPage.$$eval('[data-testid=muted-player]', (els) =>
      els.map((e) => ({ player: e.dataset.player, name: e.querySelector('[data-testid=muted-name]').textContent })),
    );
    await write(biaPage, 'anyone there?');
    await shows(cidPage, 'anyone there?');
    await write(anaPage, 'Cid, a game?');
    await shows(cidPage, 'Cid, a game?');
    await shows(anaPage, 'Cid, a game?'); // after Bia's, in the room's order: her page had every chance
    await sleep(500);
    out.ana_after_mute = await lines(anaPage);
    out.cid_after_mute = await lines(cidPage);
    out.axe_muted = await axeViolations(anaPage, 'the lobby with a player muted');

    // Reloaded, Ana's page still holds none of Bia's words, and lists her muted.
    await anaPage.reload();
    await anaPage.waitForSelector(`[data-testid=${ROOM}][data-status=open]`);
    await shows(anaPage, 'Cid, a game?');
    await anaPage.locator(`[data-testid=muted-player][data-player="${out.bia}"]`).waitFor();
    out.ana_after_reload = await lines(anaPage);
    out.ana_reload_had_bia = (await anaPage.content()).includes('anyone there?');
    out.ana_muted_after_reload = await anaPage.$$eval('[data-testid=muted-player]', (els) =>
      els.map((e) => ({ player: e.dataset.player, name: e.querySelector('[data-testid=muted-name]').textContent })),
    );

    // The test resolves the report: Bia's chat muted for 600 s, with a note.
    const anaSession = await anaPage.evaluate(() => JSON.parse(localStorage.getItem('tranca.session')).accessToken);
    out.resolved = await waitForResolution({ ana: out.ana, bia: out.bia, ana_session: anaSession });

    // Bia's page, never reloaded: the event's notice, and the chat box says so.
    await biaPage.locator('[data-testid=lobby-chat-panel] [data-testid=chat-notice]:not(:empty)').waitFor({ timeout: 20_000 });
    out.bia_notice = await biaPage.locator('[data-testid=lobby-chat-panel] [data-testid=chat-notice]').textContent();
    const sanction = biaPage.locator(`[data-testid=${ROOM}] [data-testid=chat-sanction]`);
    await sanction.waitFor();
    out.bia_sanction = await sanction.textContent();
    out.bia_sanction_kind = await sanction.getAttribute('data-kind');
    // She writes anyway: refused, in the same words; her text stays in its box.
    await write(biaPage, 'why was I muted?');
    const refusal = biaPage.locator(`[data-testid=${ROOM}] [data-testid=chat-refusal]`);
    await refusal.waitFor();
    out.bia_refusal_reason = await refusal.getAttribute('data-reason');
    out.bia_refusal = await refusal.locator('[data-testid=chat-refusal-text]').textContent();
    out.bia_input_after_refusal = await biaPage.inputValue(`[data-testid=${ROOM}] [data-testid=chat-input]`);
    out.bia_sanction_while_refused = await sanction.count();
    out.axe_sanctioned = await axeViolations(biaPage, 'a player whose chat is muted, refused');
    await biaPage.locator('[data-testid=lobby-chat-panel]').scrollIntoViewIfNeeded();
    out.screenshots.push(...(await screenshots(biaPage, artifacts, 'web-chat-moderation-sanction')));
    // A reload keeps saying so (the sanction is kept until it ends).
    await biaPage.reload();
    await biaPage.waitForSelector(`[data-testid=${ROOM}][data-status=open]`);
    out.bia_sanction_after_reload = await sanction.textContent();

    // Ana unmutes Bia from the Friends panel: Bia's messages show again.
    await anaPage.click(`[data-testid=muted-player][data-player="${out.bia}"] [data-testid=unmute-player]`);
    await shows(anaPage, 'anyone there?');
    await shows(anaPage, 'buy cheap chips at chips.example');
    await noticeChanged(anaPage, out.mute_notice);
    out.ana_after_unmute = await lines(anaPage);
    out.ana_muted_rows_after_unmute = await anaPage.locator('[data-testid=muted-player]').count();
    out.unmute_notice = await anaPage.locator('[data-testid=chat-notice]').textContent();
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
