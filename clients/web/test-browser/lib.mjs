// What the browser tests share: Debian's chromium launched by playwright-core (no
// browser download) with a fresh profile, the page's console errors, the accessibility
// check (axe-core through @axe-core/playwright), screenshots at a phone's and a
// desktop's size, and the page's state (the table, the end-of-deal board, the log)
// read from its data attributes.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';

import AxeBuilder from '@axe-core/playwright';
import { chromium } from 'playwright-core';

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1366, height: 900 };

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

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A browser with a fresh profile, and a way to close it and remove the profile;
 * quit() closes the browser and keeps the profile, which reopen() opens again (a
 * player who closed the browser and comes back later: its localStorage is there).
 */
export async function launch({ locale = 'en', viewport = PHONE } = {}) {
  const userDataDir = mkdtempSync(join(tmpdir(), 'tranca-chromium-'));
  const open = () =>
    chromium.launchPersistentContext(userDataDir, {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: ARGS,
      viewport,
      locale,
    });
  const browser = {
    context: await open(),
    async quit() {
      await browser.context.close();
    },
    async reopen() {
      browser.context = await open();
      return browser.context;
    },
    async close() {
      await browser.context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
  return browser;
}

/**
 * A page whose errors are collected in `errors`. A refusal is an HTTP error status in
 * the Connect protocol, which the browser logs as a failed resource: counted apart.
 */
export async function watchedPage(context, errors, counts = { refused: 0 }) {
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) counts.refused += 1;
    else errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return page;
}

/** The serious and critical accessibility violations axe finds on the page (WCAG 2.1 A and AA). */
export async function axeViolations(page, where) {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ where, id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
}

/** Screenshots of what the player sees now, at a phone's size and at a desktop's. */
export async function screenshots(page, dir, name) {
  if (!dir) return [];
  mkdirSync(dir, { recursive: true });
  const files = [];
  for (const [size, viewport] of [['phone', PHONE], ['desktop', DESKTOP]]) {
    await page.setViewportSize(viewport);
    await sleep(150);
    const path = join(dir, `${name}-${size}.png`);
    await page.screenshot({ path });
    files.push(path);
  }
  await page.setViewportSize(PHONE);
  return files;
}

/** What the page shows now, read from its data attributes. */
export function readPage() {
  const q = (s) => document.querySelector(s);
  const status = q('[data-testid=status]');
  const actions = q('[data-testid=actions]');
  const table = q('[data-testid=table]');
  return {
    version: status?.dataset.version ?? '',
    turn: Number(status?.dataset.turn ?? -1),
    phase: Number(status?.dataset.phase ?? 0),
    status: Number(status?.dataset.status ?? 0),
    deal: Number(status?.dataset.deal ?? 0),
    seat: Number(table?.dataset.seat ?? -2),
    finished: Boolean(q('[data-testid=match-result]')),
    legalVersion: actions?.dataset.legalVersion ?? '',
    busy: actions?.dataset.busy === 'true',
    legal: [...document.querySelectorAll('[data-testid=legal-move]')].map((b) => b.dataset.kind),
    refusal: q('[data-testid=refusal]')?.dataset.reason ?? '',
    robot: Boolean(q('[data-testid=robot-playing]')),
    dealEnd: Number(q('[data-testid=deal-end]')?.dataset.deal ?? 0),
  };
}

/**
 * The end-of-deal board as the page shows it, read from its data attributes and the
 * cards drawn (run in the page: page.evaluate(readDealEnd)).
 */
export function readDealEnd() {
  const end = document.querySelector('[data-testid=deal-end]');
  const words = (text) => (text ?? '').split(' ').filter(Boolean);
  const melds = [...end.querySelectorAll('li[data-meld]')].map((m) => ({
    id: Number(m.dataset.meld),
    side: Number(m.dataset.side),
    cards: m.dataset.cards.split(' '),
    canastra: Number(m.dataset.canastra),
    // The positions the page marks wild, read from the cards drawn.
    wild_indexes: [...m.querySelectorAll('.card')].flatMap((c, i) => (c.classList.contains('wild') ? [i] : [])),
  }));
  const reds = [...end.querySelectorAll('.melds')].map((s) => ({
    side: Number(s.dataset.side),
    cards: words(s.querySelector('.reds')?.dataset.cards),
  }));
  const cells = (row) =>
    Object.fromEntries([...end.querySelectorAll(`tr[data-row=${row}] td`)].map((td) => [td.dataset.side, Number(td.textContent)]));
  return {
    deal: Number(end.dataset.deal),
    board_deal: Number(end.querySelector('[data-testid=end-board]')?.dataset.deal ?? 0),
    melds,
    reds,
    hand: words(end.querySelector('[data-testid=end-hand]')?.dataset.cards),
    hands: [...end.querySelectorAll('[data-testid=end-hands] li[data-seat]')].map((li) => ({
      seat: Number(li.dataset.seat),
      size: Number(li.dataset.size),
      cards: words(li.dataset.cards),
      shown: [...li.querySelectorAll('.card')].map((c) => c.dataset.card),
    })),
    mortos: [...end.querySelectorAll('[data-testid=end-rest] li[data-morto]')].map((li) => ({
      side: Number(li.dataset.morto),
      size: Number(li.dataset.size),
      taken: li.dataset.taken === 'true',
      cards: words(li.dataset.cards),
      shown: [...li.querySelectorAll('.card')].map((c) => c.dataset.card),
    })),
    pile: words(end.querySelector('[data-testid=end-pile]')?.dataset.cards),
    pile_shown: [...end.querySelectorAll('[data-testid=end-pile] .card')].map((c) => c.dataset.card),
    stock: Number(end.querySelector('[data-testid=end-stock]')?.dataset.size ?? -1),
    totals: cells('total'),
    match: cells('match'),
    headers: [...end.querySelectorAll('thead th')].map((th) => th.textContent.trim()),
    winner: end.querySelector('[data-testid=deal-winner]')?.textContent.trim() ?? '',
  };
}

/** Whether the page's seat may move now, with its legal moves listed for this version. */
export const canMove = (s) => s.turn === s.seat && s.legalVersion === s.version && s.legal.length > 0 && !s.busy;

/**
 * Plays one move of the page's seat by clicking its button (a meld or an addition
 * before a discard, so the deals end), and waits for the answer: a new version, or a
 * refusal. False when the page changed under the click.
 */
export async function clickAMove(page, s) {
  const kind = ['draw', 'createMeld', 'addToMeld', 'discard'].find((k) => s.legal.includes(k)) ?? s.legal[0];
  try {
    await page.locator(`[data-testid=legal-move][data-kind=${kind}]`).first().click({ timeout: 5_000 });
  } catch {
    return null;
  }
  await page.waitForFunction(
    (v) => {
      const st = document.querySelector('[data-testid=status]');
      return (st && st.dataset.version !== v) || document.querySelector('[data-testid=refusal]');
    },
    s.version,
  );
  return kind;
}

export const handOnScreen = (page) =>
  page.$$eval('[data-testid=hand] [data-card]', (els) => els.map((e) => e.dataset.card));

export const seatedIn = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('tranca.table') ?? 'null'));

/** The log's lines as the page shows them: version, seat, actor, deal, whether it ended the deal, text. */
export const logOnScreen = (page) =>
  page.$$eval('[data-testid=log] li[data-version]', (els) =>
    els.map((e) => ({
      version: Number(e.dataset.version),
      seat: Number(e.dataset.seat),
      actor: e.dataset.actor,
      kind: e.dataset.kind,
      deal: Number(e.dataset.deal),
      ended: e.dataset.ended === 'true',
      text: e.textContent,
    })),
  );

/** A PNG of `width` x `height` pixels of one colour (a picture a player might upload). */
export function solidPng(width, height, [r, g, b]) {
  const chunk = (kind, data) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(kind, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([head, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [r, g, b]).flat())]);
  const rows = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
