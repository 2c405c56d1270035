// The web table: a reference front end of the Tranca service on the typed client.
// A guest signs in (where the app allows it), opens a table against the server's
// robots or asks for quick play, and plays: the hand grouped by suit, both sides'
// melds, the discard pile, the mortos and the counts, the turn timer, the legal
// moves as buttons (and a meld by selecting cards), refusals in the player's
// language, live updates from WatchGame, and the end-of-deal breakdown.
import {
  type GameView,
  GameStatus,
  type Move,
  Phase,
  type PlayerSession,
  type ScoreBreakdown,
  TicketStatus,
  TrancaClient,
  TrancaError,
  type WatchGameResponse,
  groupBySuit,
  moves as build,
  suitOf,
} from '../../src/index.js';
import { type Key, LANGS, LANG_NAMES, type Lang, pickLanguage, tr } from './i18n.js';

interface WebConfig {
  appId: string;
  guestSignIn: boolean;
}

interface Seated {
  gameId: string;
  seat: number;
  token: string;
}

interface LogEntry {
  version: bigint;
  seat: number;
  actor: string;
  text: string;
}

const PRESET = 'tranca-000';
const TABLE_KEY = 'tranca.table';
const SESSION_KEY = 'tranca.session';
const LANG_KEY = 'tranca.lang';

const state = {
  lang: pickLanguage(location.search, localStorage.getItem(LANG_KEY), navigator.languages) as Lang,
  config: null as WebConfig | null,
  screen: 'lobby' as 'lobby' | 'waiting' | 'table',
  busy: false,
  players: 2,
  name: '',
  seated: null as Seated | null,
  view: null as GameView | null,
  legal: [] as Move[],
  legalVersion: -1n,
  selected: new Set<number>(), // indexes into view.hand (a hand may hold two of a card)
  log: [] as LogEntry[],
  refusal: null as { reason: string; message: string } | null,
  notice: '',
  reconnecting: false,
};

let client = makeClient();
let watching: AbortController | null = null;
let quickPlay: AbortController | null = null;

function makeClient(): TrancaClient {
  // Binary protobuf: cheaper for the server than JSON (docs/APP_GUIDE.md §16).
  return new TrancaClient({ baseUrl: location.origin, language: state.lang, binary: true });
}

const t = (key: Key, params?: Record<string, string | number>): string => tr(state.lang, key, params);

// ----- a little DOM helper -------------------------------------------------------------

type Child = Node | string | null | false | undefined;

function h(
  tag: string,
  attrs: Record<string, string | boolean | number | ((e: Event) => void)> = {},
  ...children: (Child | Child[])[]
): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (v === true) el.setAttribute(k, '');
    else if (v !== false) el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === false || c === undefined) continue;
    el.append(c);
  }
  return el;
}

const SUIT_SYMBOL: Record<string, string> = { C: '♣', D: '♦', H: '♥', S: '♠' };

function cardEl(card: string, attrs: Record<string, string | boolean | number | ((e: Event) => void)> = {}): HTMLElement {
  const suit = suitOf(card);
  const rank = card === 'JK' ? '★' : card.charAt(0) === 'T' ? '10' : card.charAt(0);
  const red = suit === 'H' || suit === 'D';
  return h(
    attrs.onclick ? 'button' : 'span',
    { class: `card${red ? ' red' : ''}${card === 'JK' || card.charAt(0) === '2' ? ' wild' : ''}`, 'data-card': card, title: card, ...attrs },
    rank,
    suit ? SUIT_SYMBOL[suit]! : '',
  );
}

// ----- the service ---------------------------------------------------------------------

async function loadConfig(): Promise<WebConfig> {
  const params = new URLSearchParams(location.search);
  try {
    const res = await fetch('/tranca-web.json', { cache: 'no-store' });
    if (res.ok) {
      const c = (await res.json()) as Partial<WebConfig>;
      return { appId: params.get('app') ?? c.appId ?? '', guestSignIn: Boolean(c.guestSignIn) };
    }
  } catch {
    // no config served: only ?app= can name the app
  }
  return { appId: params.get('app') ?? '', guestSignIn: params.has('app') };
}

/** The guest's session, signed in once per tab. */
async function session(): Promise<PlayerSession | { accessToken: string }> {
  const saved = sessionStorage.getItem(SESSION_KEY);
  if (saved) {
    const s = JSON.parse(saved) as { accessToken: string; expiresAt: number };
    if (s.expiresAt > Date.now() + 60_000) return s;
  }
  const name = state.name.trim() || t('guestName');
  const s = await client.signInGuest(state.config!.appId, name);
  sessionStorage.setItem(
    SESSION_KEY,
    JSON.stringify({ accessToken: s.accessToken, expiresAt: Number(s.accessExpiresAtMs) }),
  );
  return s;
}

function showError(err: unknown): void {
  if (err instanceof TrancaError) {
    state.refusal = { reason: err.reason || err.codeName, message: err.localized?.message ?? err.rawMessage };
  } else {
    state.refusal = { reason: 'ERROR', message: String((err as Error)?.message ?? err) };
  }
  render();
}

async function busy<T>(work: () => Promise<T>): Promise<T | undefined> {
  if (state.busy) return undefined;
  state.busy = true;
  render();
  try {
    return await work();
  } catch (err) {
    showError(err);
    return undefined;
  } finally {
    state.busy = false;
    render();
  }
}

/** A table with the server's robots in the other seats, started at once. */
async function newTableWithRobots(): Promise<void> {
  await busy(async () => {
    state.refusal = null;
    const s = await session();
    const lobby = client.withToken(s.accessToken);
    const created = await lobby.createGame({
      rules: { preset: PRESET },
      players: state.players,
      table: { robotGraceSeconds: 60, turnSeconds: 120, express: true },
    });
    const gameId = created.game!.gameId;
    const me = await lobby.joinGame({ gameId, seat: 0 });
    for (let seat = 1; seat < state.players; seat += 1) {
      await lobby.joinGame({ gameId, seat, robot: true });
    }
    await client.withToken(me.playerToken).startGame(gameId);
    sit({ gameId, seat: me.seat, token: me.playerToken });
  });
}

/** Quick play: a ticket in the queue, then the seat the matchmaker gives. */
async function askQuickPlay(): Promise<void> {
  await busy(async () => {
    state.refusal = null;
    const s = await session();
    const lobby = client.withToken(s.accessToken);
    const ticket = await lobby.askQuickPlay({ preset: PRESET, players: state.players });
    state.screen = 'waiting';
    quickPlay = new AbortController();
    render();
    const done = await lobby.waitForTicket(ticket.ticketId, quickPlay.signal).finally(() => {
      quickPlay = null;
    });
    const seat = done.seats[0];
    if (done.status !== TicketStatus.MATCHED || !seat) {
      state.screen = 'lobby';
      state.notice = done.reason;
      return;
    }
    sit({ gameId: done.gameId, seat: seat.seat, token: seat.playerToken });
  });
}

function sit(seated: Seated): void {
  sessionStorage.setItem(TABLE_KEY, JSON.stringify(seated));
  state.seated = seated;
  state.screen = 'table';
  state.view = null;
  state.log = [];
  state.legal = [];
  state.legalVersion = -1n;
  state.selected.clear();
  void watch(seated);
}

function seatClient(): TrancaClient {
  return client.withToken(state.seated!.token);
}

/** Follows the game: every view from the watch stream, as it comes. */
async function watch(seated: Seated): Promise<void> {
  watching?.abort();
  const ctl = new AbortController();
  watching = ctl;
  try {
    const stream = seatClient().watchGame(seated.gameId, 0n, {
      signal: ctl.signal,
      onReconnect: () => {
        state.reconnecting = true;
        render();
      },
    });
    for await (const update of stream) {
      state.reconnecting = false;
      onUpdate(update);
    }
  } catch (err) {
    if (!ctl.signal.aborted) showError(err);
  }
}

function onUpdate(update: WatchGameResponse): void {
  const view = update.view!;
  const logged = update.move;
  if (logged && logged.version > (state.log[0]?.version ?? 0n)) {
    const text = logged.move?.kind.case ? moveLabel(logged.move) : logged.move?.text ?? '';
    state.log.unshift({ version: logged.version, seat: logged.seat, actor: logged.actor, text });
    state.log.length = Math.min(state.log.length, 30);
  }
  setView(view);
}

function setView(view: GameView): void {
  const old = state.view;
  if (old && view.version < old.version) return;
  if (!old || old.hand.join() !== view.hand.join()) state.selected.clear();
  state.view = view;
  render();
  void refreshLegal();
}

/** The legal moves at the current version, when it is this seat's turn. */
async function refreshLegal(): Promise<void> {
  const view = state.view;
  if (!view || !myTurn(view)) {
    state.legal = [];
    return;
  }
  if (state.legalVersion === view.version) return;
  try {
    const out = await seatClient().listLegalMoves(view.gameId);
    if (state.view && out.version === state.view.version) {
      state.legal = out.moves;
      state.legalVersion = out.version;
      render();
    }
  } catch (err) {
    showError(err);
  }
}

function myTurn(view: GameView): boolean {
  return view.status === GameStatus.PLAYING && view.turn === view.seat && view.phase !== Phase.OVER;
}

async function play(move: Move): Promise<void> {
  const view = state.view;
  if (!view) return;
  await busy(async () => {
    try {
      const out = await seatClient().submitMove(view.gameId, view.version, move, { includeLegalMoves: true });
      state.refusal = null;
      state.selected.clear();
      state.legal = out.legalMoves;
      state.legalVersion = out.version;
      if (out.view) setView(out.view);
    } catch (err) {
      if (err instanceof TrancaError && err.reason === 'VERSION_CONFLICT') {
        setView(await seatClient().getView(view.gameId));
      }
      throw err;
    }
  });
}

// ----- what the player sees ------------------------------------------------------------

function moveLabel(move: Move): string {
  const k = move.kind;
  switch (k.case) {
    case 'draw':
      return t('mvDraw');
    case 'takePile':
      return k.value.meldId !== undefined
        ? `${t('mvTakePile')} ${t('toMeld', { id: k.value.meldId })}`
        : `${t('mvTakePile')} + ${k.value.cards.join(' ')}`;
    case 'createMeld':
      return `${t('mvCreateMeld')} ${k.value.cards.join(' ')}`;
    case 'addToMeld':
      return `${t('mvAddToMeld')} ${k.value.card} ${t('toMeld', { id: k.value.meldId })}`;
    case 'replaceWild':
      return `${t('mvReplaceWild')} ${k.value.card} ${t('toMeld', { id: k.value.meldId })}`;
    case 'discard':
      return `${t('mvDiscard')} ${k.value.card}`;
    default:
      return move.text;
  }
}

function sideOf(view: GameView, seat: number): number {
  return view.players === 4 ? seat % 2 : seat;
}

function seatName(view: GameView, seat: number): string {
  const info = view.seats[seat];
  const name = info?.playerName || `${t('seat')} ${seat}`;
  return seat === view.seat ? `${name} (${t('you')})` : name;
}

function selectedCards(view: GameView): string[] {
  return [...state.selected].sort((a, b) => a - b).map((i) => view.hand[i]!).filter(Boolean);
}

function renderLobby(): HTMLElement {
  const c = state.config;
  if (c && (!c.appId || !c.guestSignIn)) {
    return h('section', { class: 'lobby' }, h('p', { 'data-testid': 'guest-off' }, t('guestOff')));
  }
  return h(
    'section',
    { class: 'lobby' },
    h(
      'label',
      {},
      t('name'),
      h('input', {
        'data-testid': 'name',
        value: state.name,
        placeholder: t('namePlaceholder'),
        maxlength: 40,
        oninput: (e: Event) => {
          state.name = (e.target as HTMLInputElement).value;
        },
      }),
    ),
    h(
      'label',
      {},
      t('players'),
      h(
        'select',
        {
          'data-testid': 'players',
          onchange: (e: Event) => {
            state.players = Number((e.target as HTMLSelectElement).value);
          },
        },
        ...[2, 4].map((n) => h('option', { value: n, selected: state.players === n }, String(n))),
      ),
    ),
    h(
      'div',
      { class: 'row' },
      h('button', { 'data-testid': 'new-table', disabled: state.busy, onclick: () => void newTableWithRobots() }, t('vsRobots')),
      h('button', { 'data-testid': 'quick-play', disabled: state.busy, onclick: () => void askQuickPlay() }, t('quickPlay')),
    ),
    state.notice && h('p', { class: 'notice' }, state.notice),
  );
}

function renderWaiting(): HTMLElement {
  return h(
    'section',
    { class: 'lobby' },
    h('p', { 'data-testid': 'waiting' }, t('waitingQuickPlay')),
    h('button', { onclick: () => quickPlay?.abort() }, t('cancel')),
  );
}

function renderSeats(view: GameView): HTMLElement {
  return h(
    'ul',
    { class: 'seats', 'data-testid': 'seats' },
    ...view.seats.map((s) =>
      h(
        'li',
        {
          class: `${s.seat === view.turn && view.status === GameStatus.PLAYING ? 'turn' : ''}${s.seat === view.seat ? ' me' : ''}`,
          'data-seat': s.seat,
          'data-hand-size': s.handSize,
        },
        h('strong', {}, seatName(view, s.seat)),
        s.robot ? ` · ${t('robot')}` : '',
        ` · ${s.handSize} ${t('cards')}`,
      ),
    ),
  );
}

function renderStatus(view: GameView): HTMLElement {
  const mine = myTurn(view);
  const phase = view.phase === Phase.DRAW ? t('drawPhase') : view.phase === Phase.PLAY ? t('playPhase') : '';
  return h(
    'div',
    {
      class: `status${mine ? ' mine' : ''}`,
      'data-testid': 'status',
      'data-version': String(view.version),
      'data-turn': view.turn,
      'data-phase': view.phase,
      'data-status': view.status,
    },
    h('span', {}, t('deal', { n: view.dealNumber })),
    view.status === GameStatus.PLAYING &&
      h('span', { 'data-testid': 'turn' }, mine ? `${t('yourTurn')}: ${phase}` : t('turnOf', { name: seatName(view, view.turn) })),
    view.turnDeadlineMs > 0n && view.status === GameStatus.PLAYING && !view.seats[view.turn]?.robot && h('span', { class: 'timer', id: 'timer', 'data-testid': 'timer' }, timerText(view)),
    state.reconnecting && h('span', { class: 'warn' }, t('connectionLost')),
  );
}

function timerText(view: GameView): string {
  const s = Math.max(0, Math.ceil((Number(view.turnDeadlineMs) - Date.now()) / 1000));
  return t('timeLeft', { s });
}

function renderCenter(view: GameView): HTMLElement {
  const pileFlags = [view.pileLocked && t('pileLocked'), view.pileFrozen && t('pileFrozen')].filter(Boolean).join(', ');
  return h(
    'div',
    { class: 'center' },
    h('div', { class: 'pile-box', 'data-testid': 'stock' }, h('div', { class: 'label' }, t('stock')), h('div', { class: 'count' }, String(view.stockSize))),
    h(
      'div',
      { class: 'pile-box', 'data-testid': 'pile', 'data-size': view.pileSize, 'data-top': view.pileTop },
      h('div', { class: 'label' }, `${t('pile')} (${view.pileSize})`),
      view.pileTop ? cardEl(view.pileTop) : h('span', { class: 'muted' }, t('pileEmpty')),
      pileFlags && h('div', { class: 'warn' }, pileFlags),
    ),
    h(
      'div',
      { class: 'pile-box', 'data-testid': 'mortos' },
      h('div', { class: 'label' }, t('mortos')),
      ...view.mortos.map((m) =>
        h('div', { 'data-side': m.side, 'data-size': m.size }, `${t('sideName', { side: m.side })}: ${m.taken ? t('mortoTaken') : `${m.size} ${t('cards')}`}`),
      ),
    ),
  );
}

function renderMelds(view: GameView, ours: boolean): HTMLElement {
  const mySide = view.seat >= 0 ? sideOf(view, view.seat) : 0;
  const melds = view.melds.filter((m) => (m.side === mySide) === ours);
  const reds = view.redThrees.filter((r) => (r.side === mySide) === ours).flatMap((r) => r.cards);
  const sel = selectedCards(view);
  const mine = myTurn(view) && view.phase === Phase.PLAY;
  return h(
    'section',
    { class: 'melds', 'data-testid': ours ? 'our-melds' : 'their-melds' },
    h('h2', {}, ours ? t('ourMelds') : t('theirMelds')),
    melds.length === 0 && h('p', { class: 'muted' }, t('noMelds')),
    ...melds.map((m) =>
      h(
        'div',
        { class: `meld${m.canastra ? ' canastra' : ''}`, 'data-meld': m.id },
        h('span', { class: 'meld-id' }, `#${m.id}`),
        ...m.cards.map((c) => cardEl(c)),
        m.canastra ? h('span', { class: 'tag' }, t('canastra')) : '',
        ours && mine && sel.length === 1 &&
          h('button', { class: 'small', 'data-testid': `add-to-${m.id}`, title: t('addToMeld'), onclick: () => void play(build.addToMeld(m.id, sel[0]!)) }, '+'),
      ),
    ),
    reds.length > 0 && h('div', { class: 'meld' }, h('span', { class: 'meld-id' }, t('redThreesOf')), ...reds.map((c) => cardEl(c))),
  );
}

function renderHand(view: GameView): HTMLElement {
  const positions = new Map<string, number[]>();
  view.hand.forEach((c, i) => positions.set(c, [...(positions.get(c) ?? []), i]));
  const taken = new Map<string, number>();
  const groups = groupBySuit(view.hand);
  return h(
    'section',
    { class: 'hand', 'data-testid': 'hand' },
    h('h2', {}, t('hand'), state.selected.size > 0 ? ` · ${t('selected', { n: state.selected.size })}` : ''),
    ...groups.map((g) =>
      h(
        'div',
        { class: 'suit', 'data-suit': g.suit },
        ...g.cards.map((card) => {
          const n = taken.get(card) ?? 0;
          taken.set(card, n + 1);
          const i = positions.get(card)![n]!;
          return cardEl(card, {
            class: `card${suitOf(card) === 'H' || suitOf(card) === 'D' ? ' red' : ''}${state.selected.has(i) ? ' selected' : ''}`,
            'data-index': i,
            'aria-pressed': state.selected.has(i),
            onclick: () => {
              if (state.selected.has(i)) state.selected.delete(i);
              else state.selected.add(i);
              render();
            },
          });
        }),
      ),
    ),
  );
}

function renderActions(view: GameView): HTMLElement {
  const mine = myTurn(view);
  const sel = selectedCards(view);
  const selection = mine && sel.length > 0 && [
    sel.length >= 3 && h('button', { 'data-testid': 'meld-selected', onclick: () => void play(build.createMeld(sel)) }, t('meldSelected')),
    sel.length === 2 && view.phase === Phase.DRAW &&
      h('button', { 'data-testid': 'take-pile-selected', onclick: () => void play(build.takePileWith(sel[0]!, sel[1]!)) }, t('takePileSelected')),
    sel.length === 1 && h('button', { 'data-testid': 'discard-selected', onclick: () => void play(build.discard(sel[0]!)) }, t('discardSelected')),
    h('button', { class: 'secondary', onclick: () => { state.selected.clear(); render(); } }, t('clearSelection')),
  ];
  return h(
    'section',
    { class: 'actions', 'data-testid': 'actions', 'data-legal-version': String(state.legalVersion), 'data-busy': state.busy },
    h('h2', {}, t('actions')),
    !mine && view.status === GameStatus.PLAYING && h('p', { class: 'muted' }, t('notYourTurn')),
    selection && h('div', { class: 'row' }, ...selection),
    mine &&
      h(
        'div',
        { class: 'legal' },
        ...state.legal.map((m, i) =>
          h('button', { 'data-testid': 'legal-move', 'data-kind': m.kind.case ?? '', 'data-index': i, disabled: state.busy, onclick: () => void play(m) }, moveLabel(m)),
        ),
      ),
  );
}

function renderRefusal(): HTMLElement | null {
  const r = state.refusal;
  if (!r) return null;
  return h(
    'div',
    { class: 'refusal', role: 'alert', 'data-testid': 'refusal', 'data-reason': r.reason },
    h('strong', {}, `${t('refused')}: `),
    h('span', { 'data-testid': 'refusal-text' }, r.message),
    h('button', { class: 'small secondary', onclick: () => { state.refusal = null; render(); } }, '×'),
  );
}

const END_REASONS: Record<string, Key> = {
  batida: 'end_batida',
  stock_out: 'end_stock_out',
  no_legal_move: 'end_no_legal_move',
};

function renderBreakdown(view: GameView): HTMLElement | null {
  const deal = view.lastDeal;
  if (!deal) return null;
  const rows: [Key, (s: ScoreBreakdown) => string][] = [
    ['tableCards', (s) => String(s.tableCards)],
    ['canastras', (s) => String(s.canastras.reduce((a, c) => a + c.points, 0n))],
    ['batida', (s) => String(s.batida)],
    ['redThrees', (s) => String(s.redThrees)],
    ['mortoPenalty', (s) => String(s.mortoPenalty)],
    ['handCards', (s) => String(s.handCards)],
    ['untakenMorto', (s) => String(s.untakenMortoCards)],
    ['total', (s) => String(s.total)],
  ];
  const result = view.matchResult;
  return h(
    'section',
    { class: 'breakdown', 'data-testid': 'breakdown', 'data-deal': deal.dealNumber },
    h('h2', {}, `${t('breakdown')} ${deal.dealNumber}`),
    h(
      'p',
      { 'data-end-reason': deal.endReason },
      t('endReason', { reason: END_REASONS[deal.endReason] ? t(END_REASONS[deal.endReason]!) : deal.endReason }),
    ),
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', {}, ''), ...deal.scores.map((s) => h('th', {}, `${t('side')} ${s.side}`)))),
      h(
        'tbody',
        {},
        ...rows.map(([key, get]) =>
          h('tr', { 'data-row': key }, h('th', {}, t(key)), ...deal.scores.map((s) => h('td', { 'data-side': s.side }, get(s)))),
        ),
        h('tr', { 'data-row': 'match' }, h('th', {}, t('matchTotals')), ...view.matchTotals.map((v) => h('td', {}, String(v)))),
      ),
    ),
    view.status === GameStatus.FINISHED && result &&
      h('p', { 'data-testid': 'match-result' }, result.winnerSide >= 0 ? t('winner', { side: result.winnerSide }) : t('draw')),
    view.status === GameStatus.FINISHED && h('button', { 'data-testid': 'leave-table', onclick: () => leaveTable() }, t('newTable')),
  );
}

function renderLog(view: GameView): HTMLElement {
  return h(
    'section',
    { class: 'log', 'data-testid': 'log' },
    h('h2', {}, t('log')),
    h(
      'ol',
      {},
      ...state.log.map((e) =>
        h(
          'li',
          { 'data-version': String(e.version), 'data-seat': e.seat, 'data-actor': e.actor },
          h('strong', {}, seatName(view, e.seat)),
          e.actor === 'robot' ? ` (${t('robot')})` : '',
          `: ${e.text}`,
        ),
      ),
    ),
  );
}

function renderTable(): HTMLElement {
  const view = state.view;
  if (!view) return h('p', {}, t('loading'));
  return h(
    'div',
    { class: 'table', 'data-testid': 'table', 'data-game': view.gameId, 'data-seat': view.seat },
    renderStatus(view),
    renderSeats(view),
    renderCenter(view),
    renderBreakdown(view),
    h('div', { class: 'melds-row' }, renderMelds(view, false), renderMelds(view, true)),
    view.seat >= 0 && renderHand(view),
    renderActions(view),
    renderLog(view),
  );
}

function leaveTable(): void {
  watching?.abort();
  sessionStorage.removeItem(TABLE_KEY);
  state.seated = null;
  state.view = null;
  state.screen = 'lobby';
  render();
}

function render(): void {
  const w = window as unknown as { __trancaRenders?: number };
  w.__trancaRenders = (w.__trancaRenders ?? 0) + 1;
  document.documentElement.lang = state.lang;
  document.title = t('title');
  const root = document.getElementById('app')!;
  const header = h(
    'header',
    {},
    h('h1', {}, t('title')),
    h(
      'select',
      {
        'data-testid': 'language',
        'aria-label': 'language',
        onchange: (e: Event) => {
          state.lang = (e.target as HTMLSelectElement).value as Lang;
          localStorage.setItem(LANG_KEY, state.lang);
          client = makeClient();
          render();
        },
      },
      ...LANGS.map((l) => h('option', { value: l, selected: l === state.lang }, LANG_NAMES[l])),
    ),
  );
  const body =
    state.screen === 'table' ? renderTable() : state.screen === 'waiting' ? renderWaiting() : renderLobby();
  root.replaceChildren(header, renderRefusal() ?? '', body);
}

async function main(): Promise<void> {
  render();
  state.config = await loadConfig();
  const saved = sessionStorage.getItem(TABLE_KEY);
  if (saved) sit(JSON.parse(saved) as Seated);
  render();
  setInterval(() => {
    const el = document.getElementById('timer');
    if (el && state.view) el.textContent = timerText(state.view);
  }, 500);
}

void main();
