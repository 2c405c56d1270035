// Plays a whole deal through the web table in a real browser (Debian's chromium,
// driven by playwright-core: no browser download) against the server's robots, and
// prints one JSON line of what it saw. tests/web/test_web_table.py runs it against a
// server it started and checks the line against the API.
//
// Environment: TRANCA_WEB_URL (the server's browser port, serving the page),
// TRANCA_LANG (the page's language, default pt-BR), TRANCA_SCREENSHOT (where the
// mid-deal screenshot goes), CHROMIUM (default /usr/bin/chromium), TRANCA_TIMEOUT_MS,
// TRANCA_PLAYERS (2, the default, or 4: the page's seat and robots in the others).
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { chromium } from 'playwright-core';

import { TrancaClient } from '../dist/index.js';

const baseUrl = process.env.TRANCA_WEB_URL;
const lang = process.env.TRANCA_LANG ?? 'pt-BR';
const screenshot = process.env.TRANCA_SCREENSHOT ?? '';
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const timeoutMs = Number(process.env.TRANCA_TIMEOUT_MS ?? 240_000);
const players = process.env.TRANCA_PLAYERS ?? '2';
if (!baseUrl) throw new Error('TRANCA_WEB_URL is not set');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** What the page shows now, read from its data attributes. */
function readPage() {
  const q = (s) => document.querySelector(s);
  const status = q('[data-testid=status]');
  const actions = q('[data-testid=actions]');
  const table = q('[data-testid=table]');
  return {
    version: status?.dataset.version ?? '',
    turn: Number(status?.dataset.turn ?? -1),
    phase: Number(status?.dataset.phase ?? 0),
    seat: Number(table?.dataset.seat ?? -2),
    finished: Boolean(q('[data-testid=match-result]')),
    legalVersion: actions?.dataset.legalVersion ?? '',
    busy: actions?.dataset.busy === 'true',
    legal: [...document.querySelectorAll('[data-testid=legal-move]')].map((b) => b.dataset.kind),
    refusal: q('[data-testid=refusal]')?.dataset.reason ?? '',
  };
}

const handOnScreen = (page) =>
  page.$$eval('[data-testid=hand] [data-card]', (els) => els.map((e) => e.dataset.card));

async function main() {
  const userDataDir = mkdtempSync(join(tmpdir(), 'tranca-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: ARGS,
    viewport: { width: 390, height: 844 }, // a phone
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: lang,
  });
  const out = {
    browser: context.browser()?.version() ?? '',
    language: lang,
    refusal: null,
    hand_checks: 0,
    hand_checks_skipped: 0,
    click_retries: 0,
    hand_mismatches: [],
    my_turns: 0,
    clicks: 0,
    other_seat_moves_seen: 0,
    screenshot: '',
    console_errors: [],
    refused_calls: 0,
  };
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(30_000);
    page.on('console', (m) => {
      // A refusal is an HTTP error status in the Connect protocol, which the browser
      // logs as a failed resource: counted apart; anything else is an error.
      if (m.type() !== 'error') return;
      if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) {
        out.refused_calls += 1;
      } else {
        out.console_errors.push(m.text());
      }
    });
    page.on('pageerror', (e) => out.console_errors.push(String(e)));
    await page.goto(`${baseUrl}/?lang=${encodeURIComponent(lang)}`);
    // A mark that survives only while the page is not reloaded.
    await page.evaluate(() => {
      window.__trancaLoaded = 'once';
    });
    await page.selectOption('[data-testid=players]', players);
    await page.click('[data-testid=new-table]');
    await page.waitForSelector('[data-testid=table][data-game]');
    const seated = await page.evaluate(() => JSON.parse(sessionStorage.getItem('tranca.table') ?? 'null'));
    out.game_id = seated.gameId;
    out.seat = seated.seat;
    out.token = seated.token;
    const api = new TrancaClient({ baseUrl, token: seated.token });

    /**
     * The hand on the screen against GetView for this seat, at the same version: the
     * page is given time to show the version GetView answered at (it comes by the
     * watch stream); a version that moved on meanwhile is asked again.
     */
    const checkHand = async () => {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const view = await api.getView(seated.gameId);
        const version = String(view.version);
        await page
          .waitForFunction(
            (v) => BigInt(document.querySelector('[data-testid=status]')?.dataset.version ?? '0') >= BigInt(v),
            version,
            { timeout: 5_000 },
          )
          .catch(() => {});
        const shownVersion = await page.locator('[data-testid=status]').getAttribute('data-version');
        const shown = await handOnScreen(page);
        if (shownVersion !== version) continue; // the game moved on: again
        out.hand_checks += 1;
        const a = [...shown].sort().join(' ');
        const b = [...view.hand].sort().join(' ');
        if (a !== b) out.hand_mismatches.push({ version, shown, api: [...view.hand] });
        return;
      }
      out.hand_checks_skipped += 1;
    };

    const deadline = Date.now() + timeoutMs;
    let lastOtherMoveVersion = 0;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`the deal did not end within ${timeoutMs} ms`);
      const s = await page.evaluate(readPage);
      const others = await page.$$eval(
        '[data-testid=log] li[data-seat]',
        (els, seat) => els.filter((e) => Number(e.dataset.seat) !== seat).map((e) => Number(e.dataset.version)),
        seated.seat,
      );
      if (others.length > 0 && Math.max(...others) > lastOtherMoveVersion) {
        lastOtherMoveVersion = Math.max(...others);
        out.other_seat_moves_seen += 1;
      }
      if (s.finished) break;
      const mine = s.turn === s.seat && s.legalVersion === s.version && s.legal.length > 0 && !s.busy;
      if (!mine) {
        await sleep(40);
        continue;
      }
      if (s.phase === 1 && out.my_turns === 0 && out.refusal === null) {
        // A meld before drawing: the server refuses it, worded in the page's language.
        await checkHand();
        const cards = page.locator('[data-testid=hand] button[data-card]');
        for (let i = 0; i < 3; i += 1) await cards.nth(i).click();
        await page.click('[data-testid=meld-selected]');
        const refusal = page.locator('[data-testid=refusal]');
        await refusal.waitFor();
        out.refusal = {
          reason: await refusal.getAttribute('data-reason'),
          text: await page.locator('[data-testid=refusal-text]').textContent(),
          html_lang: await page.evaluate(() => document.documentElement.lang),
        };
        await page.locator('.actions button.secondary').first().click(); // clear the selection
        continue;
      }
      const kind =
        ['draw', 'createMeld', 'addToMeld', 'discard'].find((k) => s.legal.includes(k)) ?? s.legal[0];
      try {
        await page.locator(`[data-testid=legal-move][data-kind=${kind}]`).first().click({ timeout: 5_000 });
      } catch {
        out.click_retries += 1; // the page changed under the click: read it again
        continue;
      }
      out.clicks += 1;
      // Wait for the answer: a new version on the screen, or a refusal.
      await page.waitForFunction(
        (v) => {
          const st = document.querySelector('[data-testid=status]');
          return (st && st.dataset.version !== v) || document.querySelector('[data-testid=refusal]');
        },
        s.version,
      );
      if (kind === 'discard') {
        out.my_turns += 1;
        await checkHand();
        if (out.my_turns === 4 && screenshot) {
          // Mid-deal: wait for the robot's answer to show, then keep the picture.
          await page
            .waitForFunction(
              (seat) => [...document.querySelectorAll('[data-testid=log] li[data-seat]')].some((e) => Number(e.dataset.seat) !== seat),
              seated.seat,
            )
            .catch(() => {});
          mkdirSync(dirname(screenshot), { recursive: true });
          await page.screenshot({ path: screenshot, fullPage: true });
          out.screenshot = screenshot;
        }
      }
    }
    out.renders = await page.evaluate(() => window.__trancaRenders ?? 0);
    out.reloaded = await page.evaluate(() => window.__trancaLoaded !== 'once');
    out.navigations = await page.evaluate(() => performance.getEntriesByType('navigation').length);
    out.final_hand = await handOnScreen(page);
    out.breakdown = await page.$$eval('[data-testid=breakdown] tr[data-row=total] td', (els) =>
      els.map((e) => ({ side: Number(e.dataset.side), total: Number(e.textContent) })),
    );
    out.match_result = await page.locator('[data-testid=match-result]').textContent();
    out.version = await page.locator('[data-testid=status]').getAttribute('data-version');
    if (screenshot) {
      const end = screenshot.replace(/\.png$/, '-end.png');
      await page.screenshot({ path: end, fullPage: true });
      out.screenshot_end = end;
    }
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
