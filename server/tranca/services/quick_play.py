"""Quick play: a player (or the app's backend, for a player or a party of partners)
asks for a table of one kind and waits; any replica's matchmaker makes the tables;
the players learn their seats, with their seat tokens, by polling or on a stream.

Nothing waits in a process: a ticket is a row (``match_tickets``), and each player
waits in at most one ticket (``ticket_players``' key). A request id is the app's
once (``match_tickets``' key): of calls sent at once with one request id, whichever
replica each reaches, the first to write the ticket's row makes the ticket and the
others answer with it. Any replica's matchmaker reads
the waiting tickets, plans the tables they make (``platform.matchmaking``, pure), and
writes each table in a short transaction of its own: its tickets locked (PostgreSQL:
``FOR UPDATE SKIP LOCKED``, so a ticket another replica is writing is skipped rather
than waited for; SQLite: its one writer) and checked still waiting, then the game
created, its seats joined, its first deal dealt and its stake taken, and the tickets
marked matched: a ticket is matched once, at one table, or not at all. Cancelling
takes the ticket's row lock too: it either comes first (the ticket is never
matched) or finds it matched.

A seat token is shown once and only its hash is stored, so a matched ticket's seat
tokens are issued when its players ask for them: each answer about a matched ticket
carries new tokens for the caller's seats (the earlier ones stay valid), so a lost
answer loses nothing.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from tranca_rules.presets import make_rules

from .. import metrics
from ..platform import matchmaking
from ..platform.friendships import Pair, Relation
from ..reasons import Reason
from ..table.events import Event, EventKind
from ..table.game import removed_from_game
from .abandonment import AbandonmentReader, check_cooldown
from .access import Access, Credentials, require_app
from .credentials import new_seat_token
from .errors import Refusal, Refused, malformed
from .games import MAX_STAKE, preset_not_allowed, within_policy
from .matches import Matches
from .player_rewrite import refuse_pseudonym
from .policy import AppPolicy
from .ports import GameChange, GameRecord, NewGame, SeatToken, Stake
from .sessions import require_session

# A ticket nobody matched within this long ends (reason EXPIRED): the player is told,
# rather than waiting on an empty queue for ever.
TICKET_TTL_MS = 15 * 60 * 1000
# Tickets one pass reads at most (oldest first).
PASS_LIMIT = 2000
WATCH_POLL_SECONDS = 1.0
MAX_PLAYER_ID = 128
MAX_NAME = 100
# ListQuickPlayTickets' pages: tickets by default, and at most.
LIST_PAGE = 20
LIST_PAGE_MOST = 50


class TicketStatus(StrEnum):
    FORMING = "forming"  # a session's party ticket, until the partner joins it
    WAITING = "waiting"
    MATCHED = "matched"
    CANCELLED = "cancelled"  # by its player or app, or by the server (``reason``)


@dataclass(frozen=True)
class TicketRecord:
    id: str
    app_id: str
    player_ids: tuple[str, ...]
    display_names: tuple[str, ...]
    preset: str
    players: int
    competitive: bool
    stake: int
    rating: float
    robots_after_ms: int
    turn_seconds: int
    status: TicketStatus
    reason: str
    created_ms: int
    ended_ms: int | None = None
    game_id: str | None = None
    seats: tuple[int, ...] = ()  # each player's seat, in the order of player_ids
    request_id: str | None = None  # the asking request's: its retries get this ticket

    def domain(self) -> matchmaking.Ticket:
        kind = matchmaking.Kind(
            self.app_id, self.preset, self.players, self.competitive, self.stake
        )
        return matchmaking.Ticket(
            self.id, kind, self.player_ids, self.rating, self.created_ms, self.robots_after_ms
        )


@dataclass(frozen=True)
class PlannedTable:
    """A table a pass writes: the game, its joins and its start (each a change at the
    next version, as ``Moves`` would write them), the stake its start takes, and each
    of its tickets' seats."""

    new: NewGame
    changes: list[GameChange]
    stake: Stake | None
    seats: dict[str, tuple[int, ...]]  # ticket id -> its players' seats
    waited_ms: tuple[int, ...] = ()  # how long each of its tickets waited


class AlreadyWaiting(Exception):
    """A player of a new ticket already waits in another (``ticket_id``; None in the
    rare case where that ticket ended before its id could be read)."""

    def __init__(self, player_id: str, ticket_id: str | None) -> None:
        super().__init__(player_id, ticket_id)
        self.player_id = player_id
        self.ticket_id = ticket_id


class TicketRepository(Protocol):
    async def add_ticket(self, ticket: TicketRecord, events: Sequence[Event] = ()) -> TicketRecord:
        """Store a new ticket (and ``events``, in the same transaction) and return
        it; the app's ticket of the same request id instead, if there is one (a
        retry); ``AlreadyWaiting`` if one of its players waits in another."""
        ...

    async def join_party(
        self, ticket_id: str, partner: int, name: str, now: int
    ) -> TicketRecord | None:
        """The forming ticket, its player ``partner`` now named ``name``, waits from
        ``now``; None if it is not forming any more (cancelled, expired)."""
        ...

    async def ticket(self, app_id: str, ticket_id: str) -> TicketRecord | None: ...

    async def end_ticket(self, ticket_id: str, reason: str, now: int) -> TicketRecord | None:
        """Cancel the ticket if it still waits; the ticket as it is now either way
        (None: no such ticket)."""
        ...

    async def waiting_tickets(self, limit: int) -> list[TicketRecord]:
        """Up to ``limit`` waiting tickets of every app, oldest first (a plain read)."""
        ...

    async def player_tickets(
        self, app_id: str, player_id: str, before: tuple[int, str] | None, limit: int
    ) -> list[TicketRecord]:
        """Up to ``limit`` of the player's tickets (the partner's of a forming party
        too), newest first: by ``created_ms``, then id, from below ``before`` (a
        ticket's ``(created_ms, id)``; None: the newest)."""
        ...

    async def write_table(self, table: PlannedTable, now: int) -> bool:
        """In one transaction: the table's tickets locked and still waiting (False,
        and nothing written, if one of them is matched, cancelled, or held by another
        replica's write right now), then its game, joins and start, its stake
        (``chips.InsufficientChips`` if a player cannot cover it: nothing written),
        and its tickets matched."""
        ...

    async def expire_tickets(self, before: int, now: int) -> int:
        """Cancel (reason EXPIRED) the waiting or forming tickets made before
        ``before``."""
        ...

    async def mean_ratings(self, app_id: str, player_ids: Sequence[str]) -> float:
        """The players' mean rating (mu; a newcomer's for players never rated)."""
        ...

    async def add_tokens(self, tokens: Sequence[tuple[str, SeatToken]]) -> None: ...

    async def game(self, game_id: str) -> GameRecord:
        """A matched ticket's game (whom the app removed from it)."""
        ...


@dataclass(frozen=True)
class Asked:
    """A quick-play request, read from the call."""

    preset: str
    players: int
    competitive: bool = False
    stake: int = 0
    # The app's backend names the players (one, or two partners at a 4-player
    # table) and their names; a session asks for its own player.
    player_ids: tuple[str, ...] = ()
    display_names: tuple[str, ...] = ()
    # A retry with the same request id gets the first answer's ticket (whatever it
    # became since) rather than ALREADY_WAITING.
    request_id: str = ""
    # A session's partner for a 4-player party: the ticket forms until the partner
    # joins it (JoinParty) with its own session.
    partner_id: str = ""


@dataclass(frozen=True)
class TicketPage:
    """A page of a player's tickets, newest first, and the token of the next page
    ("" at the end)."""

    tickets: tuple[TicketRecord, ...]
    next_page_token: str


@dataclass(frozen=True)
class SeatDelivered:
    player_id: str
    seat: int
    token: str
    expires_at: int


@dataclass(frozen=True)
class TicketShown:
    ticket: TicketRecord
    seats: tuple[SeatDelivered, ...] = ()  # the caller's, once matched


def ticket_not_found() -> Refused:
    return Refused(Refusal.NOT_FOUND, Reason.TICKET_NOT_FOUND, "no such ticket")


def already_waiting(player_id: str, ticket_id: str | None) -> Refused:
    """ALREADY_WAITING, naming the ticket the player waits in when the caller may see
    it (ErrorInfo metadata ``ticket_id``, and the message): a client that lost that
    ticket's id follows or cancels it instead of asking anew."""
    if ticket_id is None:
        return Refused(
            Refusal.PRECONDITION,
            Reason.ALREADY_WAITING,
            f"player {player_id} already waits for a table in another ticket",
            {"player_id": player_id},
        )
    return Refused(
        Refusal.PRECONDITION,
        Reason.ALREADY_WAITING,
        f"player {player_id} already waits for a table in ticket {ticket_id}: follow it "
        "(GetTicket, WatchTicket) or cancel it (CancelTicket) first",
        {"player_id": player_id, "ticket_id": ticket_id},
    )


def party_not_forming() -> Refused:
    return Refused(
        Refusal.PRECONDITION,
        Reason.PARTY_NOT_FORMING,
        "the party's ticket no longer waits for its partner (cancelled, expired or joined)",
    )


class QuickPlay:
    def __init__(
        self,
        repo: TicketRepository,
        access: Access,
        matches: Matches,
        app_policy: AppPolicyReader,
        clock: Callable[[], int],
        token_lifetime_seconds: int,
        *,
        blocks: PairReader | None = None,
        abandonments: AbandonmentReader | None = None,
    ) -> None:
        self.repo = repo
        # Players' abandonments: one whose cooldown runs gets no ticket (None: not
        # checked).
        self.abandonments = abandonments
        # The relations between two players: a party's partners, one of whom blocked
        # the other, are refused (None: not checked).
        self.blocks = blocks
        self.access = access
        self.matches = matches
        self.app_policy = app_policy
        self.clock = clock
        self.token_lifetime_seconds = token_lifetime_seconds

    async def ask(self, credentials: Credentials, asked: Asked) -> TicketShown:
        """A new waiting ticket for the caller's player (a session), or for the
        players the app names (its key)."""
        caller = await self.access.identify(credentials)
        if caller.session is not None:
            session = caller.session
            if asked.player_ids and asked.player_ids != (session.player_id,):
                raise Refused(
                    Refusal.FORBIDDEN,
                    Reason.NOT_YOUR_PLAYER,
                    "a session asks for its own player only (leave player_ids empty)",
                )
            app_id, policy = session.app_id, session.policy
            player_ids: tuple[str, ...] = (session.player_id,)
            names: tuple[str, ...] = (session.display_name,)
            partner = asked.partner_id.strip()
            if partner:
                if asked.players != 4:
                    raise malformed("a party of partners plays a 4-player table")
                player_ids, names = (session.player_id, partner), (session.display_name, "")
            if not policy.allows_preset(asked.preset):
                raise preset_not_allowed(asked.preset)
            within_policy(policy, asked.competitive, asked.stake)
        else:
            if asked.partner_id:
                raise malformed("partner_id is a session's; the app's key names player_ids")
            app_id = require_app(caller).id
            policy = await self.app_policy.app_policy(app_id) or AppPolicy()
            player_ids = tuple(p.strip() for p in asked.player_ids)
            names = tuple(n.strip() for n in asked.display_names) or player_ids
        forming = caller.session is not None and len(player_ids) == 2
        self._check(asked, player_ids, () if forming else names)
        if self.abandonments is not None and asked.competitive:
            # Rated tickets only: a practice table puts nothing of the others at stake.
            await check_cooldown(self.abandonments, app_id, player_ids, self.clock())
        if len(player_ids) == 2:
            await self._not_blocked(app_id, player_ids[0], player_ids[1])
        for player in player_ids[:1] if forming else player_ids:
            # A partner's chips are checked when it joins the party.
            await self.matches.check_can_cover(app_id, player, asked.stake)
        now = self.clock()
        ticket = TicketRecord(
            id=secrets.token_hex(16),
            app_id=app_id,
            player_ids=player_ids,
            display_names=tuple(n or p for n, p in zip(names, player_ids, strict=True)),
            preset=asked.preset,
            players=asked.players,
            competitive=asked.competitive,
            stake=asked.stake,
            rating=await self.repo.mean_ratings(app_id, player_ids),
            robots_after_ms=policy.robots_after_seconds * 1000,
            turn_seconds=policy.quick_play_turn_seconds,
            status=TicketStatus.FORMING if forming else TicketStatus.WAITING,
            reason="",
            created_ms=now,
            request_id=asked.request_id or None,
        )
        invited: tuple[Event, ...] = ()
        if forming:
            # The partner is told (its event stream, the app's webhook), with the
            # ticket, in one transaction.
            invitation = {
                "ticket_id": ticket.id,
                "from_player_id": player_ids[0],
                "from_display_name": names[0],
                "preset": asked.preset,
                "players": asked.players,
                "competitive": asked.competitive,
                "stake": asked.stake,
            }
            invited = (Event(player_ids[1], EventKind.INVITED, None, invitation),)
        try:
            stored = await self.repo.add_ticket(ticket, invited)
        except AlreadyWaiting as exc:
            # A session is shown its own player's ticket only (not a partner's).
            own = caller.session is None or exc.player_id == caller.session.player_id
            raise already_waiting(exc.player_id, exc.ticket_id if own else None) from None
        if stored.id != ticket.id:  # a retry: the first ticket, as it is now
            if stored.player_ids != player_ids:
                raise Refused(
                    Refusal.EXISTS,
                    Reason.REQUEST_ID_REUSED,
                    "this request id asked for other players",
                )
            mine = player_ids if caller.session is None else (caller.session.player_id,)
            session_id = None if caller.session is None else caller.session.session_id
            expires = now + self.token_lifetime_seconds * 1000
            if caller.session is not None:
                expires = min(expires, caller.session.refresh_expires_at)
            return await self._shown(stored, mine, session_id, expires, credentials.peer())
        metrics.TICKETS_ASKED.inc()
        return TicketShown(ticket)

    async def join_party(self, credentials: Credentials, ticket_id: str) -> TicketShown:
        """The partner a session named joins its party ticket, with its own session:
        the ticket waits for a table from now."""
        caller = await self.access.identify(credentials)
        session = require_session(caller)
        if not ticket_id or len(ticket_id) > 32:
            raise malformed("ticket_id is required")
        ticket = await self.repo.ticket(session.app_id, ticket_id)
        if ticket is None or session.player_id not in ticket.player_ids[1:]:
            raise ticket_not_found()
        if ticket.status != TicketStatus.FORMING:
            raise party_not_forming()
        if not session.policy.allows_preset(ticket.preset):
            raise preset_not_allowed(ticket.preset)
        within_policy(session.policy, ticket.competitive, ticket.stake)
        if self.abandonments is not None and ticket.competitive:
            await check_cooldown(
                self.abandonments, session.app_id, [session.player_id], self.clock()
            )
        await self.matches.check_can_cover(session.app_id, session.player_id, ticket.stake)
        joined = await self.repo.join_party(
            ticket.id, ticket.player_ids.index(session.player_id), session.display_name,
            self.clock(),
        )  # fmt: skip
        if joined is None:
            raise party_not_forming()
        metrics.TICKETS_ASKED.inc()
        return TicketShown(joined)

    async def _not_blocked(self, app_id: str, first: str, partner: str) -> None:
        """A party's invitation goes to a partner as a table invitation does: never
        across a block (the matchmaker keeps such players apart too)."""
        if self.blocks is None:
            return
        pair = await self.blocks.pair(app_id, first, partner)
        if pair.mine == Relation.BLOCKED:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.PLAYER_BLOCKED,
                f"{first} blocked {partner}: unblock them first",
                {"player_id": partner},
            )
        if pair.theirs == Relation.BLOCKED:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.INVITATION_REFUSED,
                f"{partner} does not take {first}'s invitations",
                {"player_id": partner},
            )

    @staticmethod
    def _check(asked: Asked, player_ids: tuple[str, ...], names: tuple[str, ...]) -> None:
        if not asked.preset:
            raise malformed("preset is required (see ListPresets)")
        rules = make_rules(asked.preset, {})
        if asked.players not in rules.player_counts:
            allowed = ", ".join(str(n) for n in rules.player_counts)
            raise malformed(f"{rules.name} is played by {allowed} players")
        if not 0 <= asked.stake <= MAX_STAKE:
            raise malformed(f"stake is 0 to {MAX_STAKE}")
        if asked.stake and not asked.competitive:
            raise malformed("a stake needs a competitive table (003: practice plays for no chips)")
        most = 2 if asked.players == 4 else 1
        if not 1 <= len(player_ids) <= most:
            raise malformed(
                "player_ids: one player, or two partners at a 4-player table"
                if asked.players == 4
                else "player_ids: one player at a 2-player table"
            )
        if any(not p or len(p) > MAX_PLAYER_ID for p in player_ids):
            raise malformed(f"each player id is 1 to {MAX_PLAYER_ID} characters")
        for p in player_ids:
            refuse_pseudonym(p, "player_ids")
        if len(set(player_ids)) != len(player_ids):
            raise malformed("player_ids: a player once")
        if names and len(names) != len(player_ids):
            raise malformed("display_names: one per player id, or none")
        if any(len(n) > MAX_NAME for n in names):
            raise malformed(f"display names are at most {MAX_NAME} characters")
        if len(asked.request_id) > 64:
            raise malformed("request_id is at most 64 characters")

    async def _mine(
        self, credentials: Credentials, ticket_id: str
    ) -> tuple[TicketRecord, tuple[str, ...], str | None, int]:
        """The ticket if the caller may see it; the caller's players in it, its
        session id and the latest a seat token it gets may expire."""
        if not ticket_id or len(ticket_id) > 32:
            raise malformed("ticket_id is required")
        caller = await self.access.identify(credentials)
        expires = self.clock() + self.token_lifetime_seconds * 1000
        if caller.session is not None:
            s = caller.session
            ticket = await self.repo.ticket(s.app_id, ticket_id)
            if ticket is None or s.player_id not in ticket.player_ids:
                raise ticket_not_found()
            return ticket, (s.player_id,), s.session_id, min(expires, s.refresh_expires_at)
        app = require_app(caller)
        ticket = await self.repo.ticket(app.id, ticket_id)
        if ticket is None:
            raise ticket_not_found()
        return ticket, ticket.player_ids, None, expires

    async def _shown(
        self,
        ticket: TicketRecord,
        mine: tuple[str, ...],
        session_id: str | None,
        expires_at: int,
        address: str,
    ) -> TicketShown:
        if ticket.status != TicketStatus.MATCHED or ticket.game_id is None:
            return TicketShown(ticket)
        # A player the app removed from the table (AdminService.RemoveSeat) gets no
        # token for it: their own session is refused, the app's backend is shown the
        # ticket without that seat.
        removed = (await self.repo.game(ticket.game_id)).state.removed_players
        if session_id is not None and removed.intersection(mine):
            raise removed_from_game()
        seats: list[SeatDelivered] = []
        rows: list[tuple[str, SeatToken]] = []
        for player, seat, name in zip(
            ticket.player_ids, ticket.seats, ticket.display_names, strict=True
        ):
            if player not in mine or player in removed:
                continue
            token, row = new_seat_token(
                seat, name, player, address, expires_at=expires_at, session_id=session_id
            )
            rows.append((ticket.game_id, row))
            seats.append(SeatDelivered(player, seat, token, expires_at))
        if rows:
            await self.repo.add_tokens(rows)
        return TicketShown(ticket, tuple(seats))

    async def get(self, credentials: Credentials, ticket_id: str) -> TicketShown:
        """The ticket now; once matched, new seat tokens for the caller's seats."""
        ticket, mine, session_id, expires = await self._mine(credentials, ticket_id)
        return await self._shown(ticket, mine, session_id, expires, credentials.peer())

    async def cancel(self, credentials: Credentials, ticket_id: str) -> TicketShown:
        """The ticket stops waiting, unless it was matched already (then its seats,
        as ``get`` gives them: the caller plays, or leaves the table)."""
        ticket, mine, session_id, expires = await self._mine(credentials, ticket_id)
        if ticket.status in (TicketStatus.WAITING, TicketStatus.FORMING):
            ended = await self.repo.end_ticket(ticket.id, "CANCELLED", self.clock())
            assert ended is not None
            ticket = ended
            if ticket.status == TicketStatus.CANCELLED:
                metrics.TICKETS_ENDED.labels("cancelled").inc()
        return await self._shown(ticket, mine, session_id, expires, credentials.peer())

    async def list_tickets(
        self, credentials: Credentials, player_id: str, page_size: int, page_token: str
    ) -> TicketPage:
        """A page of a player's tickets, newest first: a session's own player's, or
        the player the app's key names. A player has at most one open ticket (forming
        or waiting), and it is the newest: the first page's first ticket is the one to
        follow again, if it is still open. Seat tokens are not issued here
        (GetTicket gives them)."""
        caller = await self.access.identify(credentials)
        wanted = player_id.strip()
        if caller.session is not None:
            if wanted and wanted != caller.session.player_id:
                raise Refused(
                    Refusal.FORBIDDEN,
                    Reason.NOT_YOUR_PLAYER,
                    "a session lists its own player's tickets only (leave player_id empty)",
                )
            app_id, wanted = caller.session.app_id, caller.session.player_id
        else:
            app_id = require_app(caller).id
            if not wanted or len(wanted) > MAX_PLAYER_ID:
                raise malformed(f"player_id: 1 to {MAX_PLAYER_ID} characters, with the API key")
        if page_size == 0:
            page_size = LIST_PAGE
        if not 1 <= page_size <= LIST_PAGE_MOST:
            raise malformed(f"page_size is 1 to {LIST_PAGE_MOST} (0: {LIST_PAGE})")
        before = _page_after(page_token)
        found = await self.repo.player_tickets(app_id, wanted, before, page_size + 1)
        page = tuple(found[:page_size])
        more = len(found) > page_size
        token = f"{page[-1].created_ms}.{page[-1].id}" if more else ""
        return TicketPage(page, token)

    async def watch(self, credentials: Credentials, ticket_id: str) -> AsyncIterator[TicketShown]:
        """The ticket now, then once more when it is matched or cancelled (with the
        caller's seat tokens). Read from the database: any replica serves it."""
        ticket, mine, session_id, expires = await self._mine(credentials, ticket_id)
        yield await self._shown(ticket, mine, session_id, expires, credentials.peer())
        while ticket.status in (TicketStatus.WAITING, TicketStatus.FORMING):
            await asyncio.sleep(WATCH_POLL_SECONDS)
            found = await self.repo.ticket(ticket.app_id, ticket.id)
            if found is None:
                return
            if found.status != ticket.status:
                yield await self._shown(found, mine, session_id, expires, credentials.peer())
            ticket = found


def _page_after(page_token: str) -> tuple[int, str] | None:
    """The ticket a page starts below (``created_ms.ticket_id`` of the last ticket of
    the page before); None: the first page. MALFORMED_REQUEST for anything else."""
    if not page_token:
        return None
    created, _, ticket_id = page_token.partition(".")
    if (
        not 1 <= len(created) <= 18
        or not all(c in "0123456789" for c in created)
        or not 1 <= len(ticket_id) <= 32
        or not all(c in "0123456789abcdef" for c in ticket_id)
    ):
        raise malformed("bad page_token")
    return int(created), ticket_id


class AppPolicyReader(Protocol):
    async def app_policy(self, app_id: str) -> AppPolicy | None: ...


class PairReader(Protocol):
    async def pair(self, app_id: str, player_id: str, other_id: str) -> Pair:
        """``player_id``'s relation to the other (``mine``) and theirs to them."""
        ...


__all__ = [
    "AlreadyWaiting",
    "Asked",
    "PlannedTable",
    "QuickPlay",
    "SeatDelivered",
    "TicketPage",
    "TicketRecord",
    "TicketRepository",
    "TicketShown",
    "TicketStatus",
    "already_waiting",
]
