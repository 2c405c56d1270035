// The page's state in one typed store: components read it through useStore() and
// change it only through update() (the actions in actions/*.ts), so every change
// re-renders what reads it, and nothing else holds state of its own but what a
// component keeps for itself (a focus, an open panel).
import { useEffect, useReducer } from 'preact/hooks';

import type {
  ChatMessage,
  Friend,
  GameSummary,
  GameView,
  Move,
  Presence,
  QuickPhrase,
  TableInvitation,
  TableMatch,
} from '../../src/index.js';
import type { Boards } from './deals.js';
import type { Lang } from './i18n/index.js';

export interface WebConfig {
  appId: string;
  guestSignIn: boolean;
  devIdentity: boolean; // the development server's test identity provider is there
}

/** Who the page plays as: its session's player, and how it signed in. */
export interface Account {
  playerId: string;
  name: string;
  kind: 'guest' | 'identity';
  country?: string; // the profile's, once read
  avatarUrl?: string; // the profile's, once read or uploaded
  abandonments?: number; // rated matches abandoned (the profile's, once read)
}

/** What a seat shows of its player's public profile (GetPlayerProfiles). */
export interface SeatProfile {
  country: string; // ISO 3166 alpha-2, or empty
  avatarUrl: string; // on one of the app's avatar hosts, or empty
}

/** The seat this tab plays: its game, seat number and the seat's token. */
export interface Seated {
  gameId: string;
  seat: number;
  token: string;
}

/** One line of the table's log: a logged change, as the replay or the watch gave it. */
export interface LogEntry {
  version: bigint;
  deal: number; // the deal it belongs to: the one it was made in, or the one it ended
  ended: boolean; // whether it ended that deal
  seat: number;
  actor: string; // "player", "timeout", "robot" or "app"
  move: Move | null; // null for a change that is not a move ("join", "robot", ...)
  change: string; // the change's name when move is null
}

/** Where a refusal is shown: next to the control the player used. */
export type Place = 'lobby' | 'table' | 'seat' | 'friends';

export interface Refusal {
  place: Place;
  reason: string;
  message: string;
}

// ----- invitations to a table (actions/invitations.ts) -----
/** The table the player opened from this page: what only its opener is told. */
export interface OwnTable {
  gameId: string;
  inviteCode: string; // a private table's code (CreateGame shows it once); empty otherwise
  spectators: boolean; // whether it allows spectators (a friend may be invited to watch)
}

/** The options of a table the player opens from the lobby. */
export interface TableSetup {
  players: 2 | 4;
  robots: boolean; // robots in the other seats, started at once
  pointLimit: number; // 0: one deal
  turnSeconds: number;
  robotGraceSeconds: number;
  robotLevel: 0 | 1 | 2 | 3; // RobotLevel; 0: the server's
  // ----- invitations to a table (actions/invitations.ts) -----
  privateTable: boolean; // only the players invited, the owner's friends, or with its code
  spectators: boolean; // spectators allowed (a friend may be invited to watch)
}

/** A chat room the page follows (actions/chat.ts), by its key ("kind:id"). */
export interface ChatRoomState {
  /** The messages, oldest first, as they are now (every amendment received applied). */
  messages: ChatMessage[];
  /** 'loading' until the history is read; 'open' while followed; 'refused' when the service said no. */
  status: 'loading' | 'open' | 'refused';
  /** The last refusal in this room (reading, or the player's last send, edit or delete), in words. */
  refusal: { reason: string; message: string } | null;
  /** A message of the player's on its way. */
  sending: boolean;
}

// ----- chat's moderation (actions/chat.ts) -----
/** The player's own chat under a moderator's sanction: muted or banned until untilMs (0: a ban with no end). */
export interface ChatSanction {
  playerId: string; // whose chat: the account's when it was told
  kind: 'mute' | 'ban';
  untilMs: number;
  note: string; // the moderator's note ('' none)
}

/** The account's experience, level and achievements (actions/progression.ts). */
export interface PlayerProgress {
  playerId: string;
  xp: number;
  level: number;
  levelXp: number; // the XP the level needed
  nextLevelXp: number; // the XP the next one needs (levelXp at the last level)
  achievements: { id: string; title: string; progress: number; target: number; unlocked: boolean }[];
}

export interface State {
  lang: Lang;
  config: WebConfig | null;
  account: Account | null; // null: not signed in yet (a guest session opens at the first call)
  screen: 'lobby' | 'waiting' | 'table';
  busy: boolean;
  name: string;
  setup: TableSetup;
  openTables: GameSummary[] | null; // null: not listed yet
  ticketId: string; // the quick-play ticket followed on the waiting screen
  seated: Seated | null;
  view: GameView | null;
  legal: Move[];
  legalVersion: bigint;
  selected: number[]; // indexes into view.hand, in the order picked
  log: LogEntry[]; // oldest first
  refusal: Refusal | null;
  notice: string;
  reconnecting: boolean;
  /** Every finished deal's whole table the page was given (deals.ts), for the end-of-deal board and the log. */
  boards: Boards;
  /** The deal whose end-of-deal board the player closed (it stays closed after a reload). */
  dealEndClosed: number;
  now: number; // the device's clock, for the turn timer
  clockOffset: number; // how far the server's clock is ahead of the device's (ms)
  /** The public profiles of the players the page has seen seated, by player id. */
  profiles: Record<string, SeatProfile>;
  /** The player's friends, requests and blocks (SocialService), by the other's id; null: not listed yet. */
  friends: Friend[] | null;
  /** What last changed among them, in words (an answer, or a friendship event). */
  friendsNotice: string;
  /** The player's own presence (away, who sees it); null: not read yet. */
  presence: Presence | null;
  /** The chat rooms the page shows, by key ("kind:id"). */
  chat: Record<string, ChatRoomState>;
  /** The quick phrases in the page's language (phrasesLang), once listed. */
  phrases: QuickPhrase[];
  phrasesLang: string;
  /** Direct messages come from a friend and not read yet, by the friend's id. */
  unread: Record<string, number>;
  /** The friend whose conversation is open in the Friends panel ('' none). */
  directWith: string;
  // ----- chat's moderation (actions/chat.ts) -----
  /** The players the page's player muted in chat (their messages hidden here); null: not listed yet. */
  muted: string[] | null;
  /** The names the muted players were seen with, by id (their messages, their profiles). */
  mutedNames: Record<string, string>;
  /** The messages the player reported from this page, by room key and message id ("kind:id#message"). */
  reported: Record<string, true>;
  /** The player's own chat muted or banned by a moderator; null: not that the page knows. */
  chatSanction: ChatSanction | null;
  /** The account's progress (ProgressionService); null: not read yet. */
  progress: PlayerProgress | null;
  /** An achievement unlocked or a level reached, in words ('' none). */
  progressNotice: string;
  /** What a moderator said to the player (a warning, a sanction), or a mute made, in words. */
  chatNotice: string;
  // ----- invitations to a table (actions/invitations.ts) -----
  /** The invitations received that wait for the player's answer, newest first; null: not listed yet. */
  invitationsReceived: TableInvitation[] | null;
  /** The invitations the player sent lately (any status), newest first. */
  invitationsSent: TableInvitation[];
  /** What last happened to an invitation, in words (an answer, or a table_invitation event). */
  invitationsNotice: string;
  /** The table the player last opened here (kept across reloads); null: none. */
  ownTable: OwnTable | null;
  // ----- tables that outlive their match (actions/rematch.ts) -----
  /** The matches played at the table the page sits at, from its first; null: not read yet. */
  tableMatches: TableMatch[] | null;
}

/** The server's clock now, as far as the page can tell: the turn's timer counts down by it. */
export const serverNow = (s: Pick<State, 'now' | 'clockOffset'>): number => s.now + s.clockOffset;

type Listener = () => void;

export function createStore<S extends object>(initial: S) {
  let state = initial;
  const listeners = new Set<Listener>();
  return {
    get: (): S => state,
    update(patch: Partial<S> | ((s: S) => Partial<S>)): void {
      const next = typeof patch === 'function' ? patch(state) : patch;
      state = { ...state, ...next };
      for (const l of [...listeners]) l();
    },
    subscribe(listener: Listener): () => void {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

export const DEFAULT_SETUP: TableSetup = {
  players: 4,
  robots: true,
  pointLimit: 0,
  turnSeconds: 120,
  robotGraceSeconds: 60,
  robotLevel: 0,
  privateTable: false,
  spectators: false,
};

export const store = createStore<State>({
  lang: 'en',
  config: null,
  account: null,
  screen: 'lobby',
  busy: false,
  name: '',
  setup: DEFAULT_SETUP,
  openTables: null,
  ticketId: '',
  seated: null,
  view: null,
  legal: [],
  legalVersion: -1n,
  selected: [],
  log: [],
  refusal: null,
  notice: '',
  reconnecting: false,
  boards: {},
  dealEndClosed: 0,
  now: Date.now(),
  clockOffset: 0,
  profiles: {},
  friends: null,
  friendsNotice: '',
  presence: null,
  chat: {},
  phrases: [],
  phrasesLang: '',
  unread: {},
  directWith: '',
  muted: null,
  mutedNames: {},
  reported: {},
  chatSanction: null,
  progress: null,
  progressNotice: '',
  chatNotice: '',
  invitationsReceived: null,
  invitationsSent: [],
  invitationsNotice: '',
  ownTable: null,
  tableMatches: null,
});

export const update = store.update;
export const getState = store.get;

/** The store's state, re-rendering the component on every change. */
export function useStore(): State {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  useEffect(() => store.subscribe(() => tick(undefined)), []);
  return store.get();
}

const SETUP_KEY = 'tranca.setup';

/** The lobby's choices, kept so a reload (or the next visit) asks for the same table. */
export function saveSetup(setup: TableSetup): void {
  localStorage.setItem(SETUP_KEY, JSON.stringify(setup));
}

export function savedSetup(): TableSetup {
  try {
    const saved = JSON.parse(localStorage.getItem(SETUP_KEY) ?? 'null') as Partial<TableSetup> | null;
    return { ...DEFAULT_SETUP, ...(saved ?? {}) };
  } catch {
    return DEFAULT_SETUP;
  }
}
