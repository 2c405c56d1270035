// Invitations to a table (InvitationService): at a waiting table the player sits at,
// a friend invited to a seat (or to watch, where the table allows spectators), the
// invitation shown beside them until it is answered, and cancelled at will; the
// invitations received, listed in the friends panel with who invites, the table and
// when each expires, accepted (the page sits at that table with the seat token the
// answer gives) or declined. Each invitation and answer comes as a "table_invitation"
// event on the player's event stream (followed by actions/friends.ts): the lists are
// read again and the news told, without a reload.
//
// A private table (TableOptions.private) admits without its invite code the players
// invited to it, its owner and the owner's friends; its code, which CreateGame shows
// once, is kept here for its owner to give others, and a table is joined by its id
// (and code) from the lobby.
import {
  type PlayerEvent,
  InvitationDirection,
  InvitationKind,
  InvitationStatus,
  type TableInvitation,
  type TrancaClient,
} from '../../../src/index.js';
import { type OwnTable, getState, serverNow, store, update } from '../store.js';
import { act, lobbyClient, joiningName, savedSession, service, t } from './service.js';
import { sit } from './table.js';

const OWN_TABLE_KEY = 'tranca.ownTable'; // {"gameId", "inviteCode", "spectators"}: the table opened here
const PAGE = 50; // the invitations listed each way: more than a player answers at once
const RELIST_EVERY_MS = 30_000; // read again this often: an invitation whose table started reads expired

/** Who invites: the name of their profile, else their id. */
export const inviterName = (inv: TableInvitation): string => inv.fromProfile?.displayName || inv.fromPlayerId;

/** Who is invited: the name of their profile, else their id. */
export const inviteeName = (inv: TableInvitation): string => inv.toProfile?.displayName || inv.toPlayerId;

/** Whether an invitation still waits for an answer, by its status and the server's clock now. */
export const stillPending = (inv: TableInvitation, now = serverNow(getState())): boolean =>
  inv.status === InvitationStatus.PENDING && Number(inv.expiresMs) > now;

/** The client of the page's session, if it has one (invitations are a player's, never a guest-to-be's). */
function sessionClient(): TrancaClient | null {
  const saved = savedSession();
  return saved?.playerId ? service().withToken(saved.accessToken) : null;
}

let listing = 0;

/** Reads the invitations received that wait for an answer, and those sent lately (the latest reading wins). */
export async function loadInvitations(): Promise<void> {
  const client = sessionClient();
  const playerId = savedSession()?.playerId;
  if (!client || !playerId) return;
  const mine = (listing += 1);
  const [received, sent] = await Promise.all([
    client.listInvitations({
      direction: InvitationDirection.RECEIVED,
      status: InvitationStatus.PENDING,
      pageSize: PAGE,
    }),
    client.listInvitations({ direction: InvitationDirection.SENT, pageSize: PAGE }),
  ]);
  if (mine === listing && getState().account?.playerId === playerId) {
    update({ invitationsReceived: received.invitations, invitationsSent: sent.invitations });
  }
}

/** The latest invitation the player sent to `playerId` for `gameId`, if any. */
export function sentTo(gameId: string, playerId: string): TableInvitation | undefined {
  return getState().invitationsSent.find((i) => i.gameId === gameId && i.toPlayerId === playerId);
}

/** One invitation as an answer gave it, put in its list in its place. */
function keep(inv: TableInvitation, list: 'invitationsSent' | 'invitationsReceived'): void {
  update((s) => {
    const others = (s[list] ?? []).filter((i) => i.invitationId !== inv.invitationId);
    const kept = list === 'invitationsReceived' && inv.status !== InvitationStatus.PENDING ? others : [inv, ...others];
    kept.sort((a, b) => Number(b.createdMs - a.createdMs));
    return { [list]: kept };
  });
}

/** Runs one answer or invitation, its refusal shown in the friends panel: whether it was made. */
async function invitationAct(work: (client: TrancaClient) => Promise<void>): Promise<boolean> {
  const client = sessionClient();
  if (!client || getState().busy) return false;
  update({ invitationsNotice: '' });
  const done = await act('friends', async () => {
    await work(client);
    return true;
  });
  if (done !== true) void loadInvitations().catch(() => undefined); // a refusal may mean it changed meanwhile
  return done === true;
}

/** Invites a friend to a seat at the table the page sits at (`watch`: to watch it). */
export function invite(playerId: string, watch = false): Promise<boolean> {
  const gameId = getState().seated?.gameId;
  if (!gameId) return Promise.resolve(false);
  return invitationAct(async (client) => {
    const out = await client.inviteToTable(gameId, playerId, { watch });
    keep(out.invitation, 'invitationsSent');
    update({ invitationsNotice: t('invitationSent', { name: inviteeName(out.invitation) }) });
  });
}

/** Withdraws an invitation the player sent. */
export function cancelInvitation(inv: TableInvitation): Promise<boolean> {
  return invitationAct(async (client) => {
    const out = await client.cancelInvitation(inv.invitationId);
    keep(out.invitation, 'invitationsSent');
    update({ invitationsNotice: t('invitationCancelled', { name: inviteeName(out.invitation) }) });
  });
}

/** Turns an invitation received away; the inviter is told. */
export function declineInvitation(inv: TableInvitation): Promise<boolean> {
  return invitationAct(async (client) => {
    const out = await client.declineInvitation(inv.invitationId);
    keep(out.invitation, 'invitationsReceived');
    update({ invitationsNotice: t('invitationDeclinedByYou', { name: inviterName(out.invitation) }) });
  });
}

/** Accepts an invitation received: the page sits at its table, with the seat token the answer gives. */
export function acceptInvitation(inv: TableInvitation): Promise<boolean> {
  return invitationAct(async (client) => {
    const out = await client.acceptInvitation(inv.invitationId);
    if (out.invitation) keep(out.invitation, 'invitationsReceived');
    sit({ gameId: inv.gameId, seat: out.seat, token: out.playerToken });
  });
}

/** Sits at a table by its id, with its invite code where it is private and the player needs one. */
export async function joinById(gameId: string, inviteCode: string): Promise<boolean> {
  const id = gameId.trim();
  if (!id || getState().busy) return false;
  const done = await act('lobby', async () => {
    const lobby = await lobbyClient();
    const me = await lobby.joinGame({ gameId: id, seat: -1, playerName: joiningName(), inviteCode: inviteCode.trim() });
    sit({ gameId: id, seat: me.seat, token: me.playerToken });
    return true;
  });
  return done === true;
}

// ----- the table opened here -------------------------------------------------------------

/** Keeps what CreateGame told only the table's opener: its invite code, and whether spectators may watch. */
export function keepOwnTable(own: OwnTable): void {
  localStorage.setItem(OWN_TABLE_KEY, JSON.stringify(own));
  update({ ownTable: own });
}

function savedOwnTable(): OwnTable | null {
  try {
    return JSON.parse(localStorage.getItem(OWN_TABLE_KEY) ?? 'null') as OwnTable | null;
  } catch {
    return null;
  }
}

/** What the page knows of the table at `gameId` as its opener; null if it did not open it. */
export function ownTable(gameId: string): OwnTable | null {
  const own = getState().ownTable;
  return own?.gameId === gameId ? own : null;
}

// ----- the player's events -----------------------------------------------------------------

let relisting: ReturnType<typeof setTimeout> | null = null;

/** A table_invitation event (actions/friends.ts follows the stream): the lists read again, the news told. */
export function onInvitationEvent(event: PlayerEvent): void {
  let news = '';
  try {
    const p = JSON.parse(event.payloadJson) as {
      change?: string;
      from_display_name?: string;
      from_player_id?: string;
      to_display_name?: string;
      to_player_id?: string;
    };
    const from = p.from_display_name || p.from_player_id || '';
    const to = p.to_display_name || p.to_player_id || '';
    if (p.change === 'invited') news = t('invitationReceived', { name: from });
    else if (p.change === 'cancelled') news = t('invitationWithdrawn', { name: from });
    else if (p.change === 'accepted') news = t('invitationAccepted', { name: to });
    else if (p.change === 'declined') news = t('invitationDeclined', { name: to });
  } catch {
    // a payload the page cannot read: the lists read again say what holds
  }
  if (relisting) clearTimeout(relisting);
  relisting = setTimeout(() => {
    relisting = null;
    void loadInvitations()
      .then(() => {
        if (news) update({ invitationsNotice: news });
      })
      .catch(() => undefined);
  }, 100);
}

let followedId: string | null = null;
let timer: ReturnType<typeof setInterval> | null = null;

/** The account changed: its invitations read anew (none for no account), and again every RELIST_EVERY_MS. */
function onAccount(): void {
  const playerId = getState().account?.playerId ?? '';
  if (followedId === playerId) return;
  followedId = playerId;
  if (timer) clearInterval(timer);
  timer = null;
  update({ invitationsReceived: null, invitationsSent: [], invitationsNotice: '' });
  if (!playerId) return;
  void loadInvitations().catch(() => undefined);
  timer = setInterval(() => {
    if (!document.hidden) void loadInvitations().catch(() => undefined);
  }, RELIST_EVERY_MS);
}

/** Follows the page's account's invitations from now on (main.ts calls it once). */
export function followInvitations(): void {
  update({ ownTable: savedOwnTable() });
  store.subscribe(onAccount);
  onAccount();
}

/** Whether an invitation is to a seat (else to watch). */
export const isSeat = (inv: TableInvitation): boolean => inv.kind !== InvitationKind.WATCH;
