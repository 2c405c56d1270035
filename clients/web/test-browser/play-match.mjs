// Plays a whole 4-player match to its target score through the web table, in
// Portuguese, the page's seat against the server's robots (greedy), and prints one
// JSON line of what it saw; tests/web/test_web_table.py runs it against a server it
// started and checks the line against the API (the end-of-deal boards, every hand
// open, against the engine's rebuild of GetReplay). On the way: a refusal shown where
// the player acts, the hand against GetView, the move buttons and the log in words
// (no engine notation), axe on the lobby, the table mid-deal and the breakdown, and
// screenshots at a phone's and a desktop's size.
//
// Environment: TRANCA_WEB_URL (the server's browser port), TRANCA_TARGET (points to
// win, default 300), TRANCA_ARTIFACTS (where screenshots go), CHROMIUM,
// TRANCA_TIMEOUT_MS.
import { TrancaClient } from '../dist/index.js';
import {
  axeViolations,
  canMove,
  clickAMove,
  handOnScreen,
  launch,
  logOnScreen,
  readDealEnd,
  readPage,
  screenshots,
  seatedIn,
  sleep,
  watchedPage,
} from './lib.mjs';

const baseUrl = process.env.TRANCA_WEB_URL;
const target = process.env.TRANCA_TARGET ?? '300';
const artifacts = process.env.TRANCA_ARTIFACTS ?? '';
const timeoutMs = Number(process.env.TRANCA_TIMEOUT_MS ?? 240_000);
if (!baseUrl) throw new Error('TRANCA_WEB_URL is not set');

// Engine notation a player must never read: "discard TD", "take 2C 6D", "meld 4H 5H 6H".
const NOTATION = /\b(draw|take|meld|add|replace|discard)\b|\b[2-9TJQKA][CDHS]\b|@\d/;

async function main() {
  const browser = await launch({ locale: 'pt-BR' });
  const out = {
    console_errors: [],
    axe: [],
    screenshots: [],
    deal_ends: [],
    hand_checks: 0,
    hand_mismatches: [],
    my_turns: 0,
    notation_seen: [],
    refusal: null,
  };
  const counts = { refused: 0 };
  try {
    const page = await watchedPage(browser.context, out.console_errors, counts);
    await page.goto(`${baseUrl}/?lang=pt-BR`);
    await page.locator('[data-testid=open-tables]').waitFor();
    await page.waitForFunction(() => !document.querySelector('[data-testid=open-tables] .muted')?.textContent?.includes('…'));
    out.axe.push(...(await axeViolations(page, 'lobby')));
    out.screenshots.push(...(await screenshots(page, artifacts, 'web-lobby')));

    await page.fill('[data-testid=name]', 'Ana');
    await page.selectOption('[data-testid=players]', '4');
    await page.fill('[data-testid=opt-points]', target);
    await page.selectOption('[data-testid=opt-level]', '2');
    await page.click('[data-testid=new-table]');
    await page.waitForSelector('[data-testid=status][data-status="2"]');
    const seated = await seatedIn(page);
    Object.assign(out, { game_id: seated.gameId, seat: seated.seat, token: seated.token });
    const api = new TrancaClient({ baseUrl, token: seated.token });

    const checkHand = async () => {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const view = await api.getView(seated.gameId);
        const version = String(view.version);
        await page
          .waitForFunction((v) => BigInt(document.querySelector('[data-testid=status]')?.dataset.version ?? '0') >= BigInt(v), version, { timeout: 5_000 })
          .catch(() => {});
        if ((await page.locator('[data-testid=status]').getAttribute('data-version')) !== version) continue;
        const shown = await handOnScreen(page);
        out.hand_checks += 1;
        if ([...shown].sort().join() !== [...view.hand].sort().join()) out.hand_mismatches.push({ version, shown, api: [...view.hand] });
        return;
      }
    };

    const deadline = Date.now() + timeoutMs;
    let captured = 0;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`the match did not end within ${timeoutMs} ms`);
      const s = await page.evaluate(readPage);
      if (s.dealEnd > captured) {
        captured = s.dealEnd;
        out.deal_ends.push(await page.evaluate(readDealEnd));
        if (out.deal_ends.length === 1) {
          await page.locator('[data-testid=deal-end]').scrollIntoViewIfNeeded();
          out.axe.push(...(await axeViolations(page, 'breakdown')));
          out.screenshots.push(...(await screenshots(page, artifacts, 'web-table-end')));
        }
        if (s.finished) break;
        await page.click('[data-testid=close-deal-end]');
        continue;
      }
      if (s.finished) break;
      if (!canMove(s)) {
        await sleep(30);
        continue;
      }
      const words = await page.$$eval('[data-testid=legal-move]', (els) => els.map((e) => e.textContent));
      out.notation_seen.push(...words.filter((w) => NOTATION.test(w)));
      if (s.phase === 1 && out.refusal === null) {
        // Laying down before drawing: refused, in Portuguese, next to the moves.
        const cards = page.locator('[data-testid=hand] button[data-card]');
        for (let i = 0; i < 3; i += 1) await cards.nth(i).click();
        await page.click('[data-testid=meld-selected]');
        const refusal = page.locator('[data-testid=actions] [data-testid=refusal]');
        await refusal.waitFor();
        out.refusal = {
          reason: await refusal.getAttribute('data-reason'),
          text: await page.locator('[data-testid=refusal-text]').textContent(),
          html_lang: await page.evaluate(() => document.documentElement.lang),
          in_view: await refusal.evaluate((el) => {
            const r = el.getBoundingClientRect();
            return r.top >= 0 && r.bottom <= window.innerHeight;
          }),
        };
        await page.click('[data-testid=clear-selection]');
        continue;
      }
      if (
        s.phase === 2 &&
        out.keyboard === undefined &&
        s.legal.includes('discard') &&
        (await page.locator('[data-testid=hand] button[data-card]').count()) >= 2
      ) {
        // A discard by keyboard alone: the arrow keys move along the hand, Space picks
        // a card, Enter on the button discards it.
        const first = page.locator('[data-testid=hand] button[data-card]').first();
        await first.focus();
        const before = await page.evaluate(() => document.activeElement?.dataset.index);
        await page.keyboard.press('ArrowRight');
        const after = await page.evaluate(() => document.activeElement?.dataset.index);
        await page.keyboard.press('Space');
        const pressed = await page.evaluate(() => document.activeElement?.getAttribute('aria-pressed'));
        await page.locator('[data-testid=discard-selected]').focus();
        await page.keyboard.press('Enter');
        await page.waitForFunction(
          (v) => document.querySelector('[data-testid=status]')?.dataset.version !== v || document.querySelector('[data-testid=refusal]'),
          s.version,
        );
        out.keyboard = { arrow_moved: before !== after, pressed, refusal: (await page.evaluate(readPage)).refusal };
        out.my_turns += 1;
        continue;
      }
      const kind = await clickAMove(page, s);
      if (kind === 'discard') {
        out.my_turns += 1;
        if (out.my_turns % 3 === 1) await checkHand();
        if (out.my_turns === 4) {
          out.axe.push(...(await axeViolations(page, 'table mid-deal')));
          out.screenshots.push(...(await screenshots(page, artifacts, 'web-table')));
        }
      }
    }
    out.log = await logOnScreen(page);
    out.match_result = await page.locator('[data-testid=match-result]').textContent();
    out.version = await page.locator('[data-testid=status]').getAttribute('data-version');
    out.refused_calls = counts.refused;
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
