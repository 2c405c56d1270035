"""Tables that outlive their match: the rematch at the same table and the table's
history of matches (003: "Las opciones de mesa se pueden cambiar antes de empezar
la partida o entre partida y partida").

A game is still a match (settlement, replays and tournaments rest on it); a table
strings its matches together. Its id is its first match's game id; each later match
is a new game, numbered at its table, created by the first seated player of the
finished match to confirm the rematch (``Rematch.confirm``) with the same preset,
options, seats, owner and privacy, and a fresh seed (never a deal dealt again). The
table's next match is written with its row in ``table_matches``, whose key (table,
match number) lets exactly one confirmation create it, whichever replica it reaches;
the others seat their player in the match it created.

Each confirming player takes the seat they had, with a new seat token (a token is a
game's). The seats of those who have not confirmed are held for them until the
app's ``rematch_hold_seconds`` are up (the next match's deadline, which the sweeper
acts on by freeing them: services/timers.py), then anyone may take them and the
lobby lists the table again. The next match starts as any table does once its seats
are taken (StartGame). The finished match records each confirmation (a "rematch"
change of its log), so the players still watching it see who confirmed and follow
to the next match.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..reasons import Reason
from ..table.action_kinds import ActionKind
from ..table.deadlines import turn_deadline
from ..table.errors import GameError
from ..table.fairness import new_server_secret
from ..table.game import (
    BY_ROBOT,
    FINISHED,
    REMATCH_CLAIM,
    Action,
    GameState,
    Setup,
    apply_action,
    new_game,
    rematch_text,
)
from .access import Caller, Credentials, require_app
from .credentials import new_seat_token
from .errors import Refusal, Refused, VersionConflict, game_not_found, malformed
from .games import Games, Shown
from .limits import MAX_TOKEN_LIFETIME
from .paging import offset_token, parse_offset
from .policy import DEFAULT_REMATCH_HOLD_SECONDS, AppPolicies
from .ports import GameChange, GameRecord, LogRecord, NewGame, SeatToken
from .table_builder import SeatPlan, join_action

# Rounds of ``Moves.apply``'s own attempts at a confirmation's write (each a few).
ATTEMPTS = 4


@dataclass(frozen=True)
class NextMatch:
    """A table's next match to create: its game (``new.game_id`` chosen here), its
    number at the table, and its first joins, written with it in one transaction: the
    first confirming seat's (with its token and the held seats' deadline), then the
    robots seated from the start of the last match, seated again."""

    table_id: str
    match_number: int
    new: NewGame
    joins: tuple[GameChange, ...]


@dataclass(frozen=True)
class TableInfo:
    """What a rematch copies from the finished match's row beside its state."""

    label: str
    invite_hash: str | None
    owner_id: str | None
    tournament: bool  # a tournament's table: no rematch


@dataclass(frozen=True)
class PlayedMatch:
    """A match of a table's history: its game as listed and when it last changed by
    a change of its own (its end, for a finished match; epoch seconds)."""

    game: GameRecord
    ended_at: float

    @property
    def result(self) -> tuple[int, str] | None:
        """The winning side (-1: none) and why, once the match is over."""
        g = self.game.state
        if g.status != FINISHED:
            return None
        return (g.winner if g.winner >= 0 else -1), g.result_reason

    @property
    def totals(self) -> list[int]:
        """The match's totals by side, once it has started."""
        match = self.game.state.match
        return [] if match is None else list(match.totals)


class RematchRepository(Protocol):
    """What the rematch reads and writes beside a game's changes."""

    async def game(self, game_id: str) -> GameRecord: ...

    async def log(self, game_id: str, after: int = 0, upto: int | None = None) -> list[LogRecord]:
        """The game's log rows, in order."""
        ...

    async def table_info(self, game_id: str) -> TableInfo:
        """The game's label, invite hash, owner and whether it is a tournament's
        table."""
        ...

    async def next_match(self, table_id: str, match_number: int) -> str | None:
        """The game id of the table's match ``match_number`` (from 2), if created."""
        ...

    async def create_next_match(self, match: NextMatch) -> bool:
        """The next match's game, its table row and its first join, in one
        transaction; False (nothing written) when another confirmation created the
        table's match of that number first."""
        ...

    async def table_matches(self, table_id: str, limit: int, offset: int) -> list[PlayedMatch]:
        """The table's matches from its first, in order of their numbers."""
        ...

    async def token_origin(self, token_hash: str) -> tuple[str | None, int]:
        """A seat token's session id (None: the app's) and its expiry (epoch ms)."""
        ...


@dataclass(frozen=True)
class Rematched:
    """A confirmed rematch: the next match's game, the seat taken there, its new
    token (and expiry), and the next match as the seat sees it."""

    game_id: str
    seat: int
    player_token: str
    expires_at: int
    shown: Shown
    created: bool  # this confirmation created the next match


@dataclass(frozen=True)
class TableHistory:
    table_id: str
    matches: list[PlayedMatch]
    next_page_token: str


def held_seats(old: GameState, robots: frozenset[int] = frozenset()) -> tuple[int, ...]:
    """The seats a rematch holds: every seat of the finished match but those whose
    player the app removed, and ``robots``, the seats the server's robots held from
    its start (they sit again at once). In the order the finished match's players sat
    down (its head first): the next match's head is the table's, the first seated at
    it (003: "el primer jugador que se ha sentado en la mesa"), whoever confirms first."""
    seated = [*old.joins, *(i for i in range(len(old.seats)) if i not in old.joins)]
    return tuple(i for i in seated if i not in old.removed_seats and i not in robots)


def robot_seats(log: Sequence[LogRecord]) -> frozenset[int]:
    """The seats a robot took at a match's start (a join ``by`` BY_ROBOT in its log)."""
    return frozenset(
        row.seat for row in log if row.action.kind == ActionKind.JOIN and row.action.by == BY_ROBOT
    )


def next_setup(
    old: Setup, table_id: str, number: int, held: tuple[int, ...], hold_until: int
) -> Setup:
    """The next match's setup: the same rules, seats, options and spectators, a fresh
    seed (and a fresh secret at a verifiable table), never the fixed deck of a test
    table: a rematch never deals a deal again."""
    return Setup(
        old.rules,
        old.players,
        secrets.randbits(63),
        None,
        old.spectators_allowed,
        old.table,
        new_server_secret() if old.server_secret is not None else None,
        table_id,
        number,
        held,
        hold_until,
    )


# The matches a private table's history check reads at a time.
_SCAN_PAGE = 200


class Rematch:
    def __init__(
        self,
        games: Games,
        repo: RematchRepository,
        policies: AppPolicies,
        clock: Callable[[], int],
    ) -> None:
        self.games = games
        self.moves = games.moves
        self.repo = repo
        self.policies = policies
        self.clock = clock

    async def confirm(self, credentials: Credentials, game_id: str) -> Rematched:
        """The seat's player (their seat token of the finished match) confirms the
        rematch: the next match is created if it is not yet, the confirmation is
        recorded in the finished match, and the player takes their seat in the next
        one with a new token."""
        loaded = await self.games.seat_of(credentials, game_id)
        old = loaded.state
        seat = loaded.player.seat
        if old.status != FINISHED:
            raise Refused(Refusal.PRECONDITION, Reason.MATCH_NOT_OVER, "the match is not over yet")
        info = await self.repo.table_info(game_id)
        if info.tournament:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.TOURNAMENT_TABLE,
                "a tournament's table plays the match its round gives it",
            )
        if seat in old.rematch_seats and old.next_game_id:
            await self._refuse_if_seated(old.next_game_id, seat, old)
        setup = old.setup
        table_id = setup.table_id or game_id
        number = setup.number + 1
        sat = old.seats[seat]
        player_id, name = sat.player_id, sat.name
        await self.games.matches.check_can_cover(loaded.app_id, player_id, setup.table.stake)
        now = self.clock()
        token, seat_token, expires_at = await self._token(
            loaded.player.token_hash, seat, sat.name, player_id, credentials, now
        )
        next_id = old.next_game_id or await self.repo.next_match(table_id, number)
        created = False
        if not next_id:
            policy = await self.policies.app_policy(loaded.app_id)
            hold = DEFAULT_REMATCH_HOLD_SECONDS if policy is None else policy.rematch_hold_seconds
            hold_until = turn_deadline(now + hold * 1000)
            robots = robot_seats(await self.repo.log(game_id))
            match = self._next_match(
                loaded.app_id, old, info, table_id, number, hold_until, seat, seat_token, robots
            )
            if await self.repo.create_next_match(match):
                next_id, created = match.new.game_id, True
            else:
                next_id = await self.repo.next_match(table_id, number)
                if not next_id:
                    raise AssertionError("a table's next match was neither created nor found")
        nxt = await self.repo.game(next_id)
        text = rematch_text(next_id, nxt.state.setup.hold_until)
        try:
            await self._apply(game_id, Action(ActionKind.REMATCH, seat, text=text))
        except GameError as exc:
            if exc.reason != Reason.REMATCH_CONFIRMED:
                raise
            if not created:
                # Confirmed already: refused unless the seat is still to be taken (a
                # confirmation cut off between its two writes).
                await self._refuse_if_seated(next_id, seat, old)
        if not created:
            join = Action(ActionKind.JOIN, seat, name=name, player_id=player_id, text=REMATCH_CLAIM)
            try:
                await self._apply(next_id, join, seat_token)
            except GameError as exc:
                if exc.reason in (Reason.SEAT_TAKEN, Reason.PLAYER_SEATED):
                    await self._refuse_if_seated(next_id, seat, old)
                raise
        game = await self.repo.game(next_id)
        shown = await self.games.shown(next_id, game.version, game.state, seat, game.deadline_at)
        return Rematched(next_id, seat, token, expires_at, shown, created)

    async def _apply(self, game_id: str, action: Action, token: SeatToken | None = None) -> None:
        """``action`` written to the game as it is now: every seat of a table may
        confirm at once, so a lost race is tried again more often than a join's."""
        for _ in range(ATTEMPTS):
            try:
                await self.moves.apply(game_id, action, new_token=token)
                return
            except VersionConflict:
                continue
        await self.moves.apply(game_id, action, new_token=token)

    async def _refuse_if_seated(self, next_id: str, seat: int, old: GameState) -> None:
        """REMATCH_CONFIRMED if the seat's player already sits in the next match."""
        nxt = (await self.repo.game(next_id)).state
        there = nxt.seats[seat]
        if there.taken and there.player_id == old.seats[seat].player_id:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.REMATCH_CONFIRMED,
                f"seat {seat} has confirmed the rematch",
            )

    async def _token(
        self,
        old_hash: str,
        seat: int,
        name: str,
        player_id: str,
        credentials: Credentials,
        now: int,
    ) -> tuple[str, SeatToken, int]:
        """A new token for the seat in the next match: from the same session (signing
        out revokes it too), for the server's token lifetime, and never longer than the
        finished match's token where a session issued it."""
        session_id, old_expiry = await self.repo.token_origin(old_hash)
        lifetime = min(self.games.token_lifetime_seconds, MAX_TOKEN_LIFETIME)
        expires_at = now + lifetime * 1000
        if session_id is not None:
            # The finished match's token never outlived its session: nor does this one.
            expires_at = min(expires_at, old_expiry)
        token, seat_token = new_seat_token(
            seat,
            name,
            player_id or None,
            credentials.peer(),
            expires_at=expires_at,
            session_id=session_id,
        )
        return token, seat_token, expires_at

    def _next_match(
        self,
        app_id: str,
        old: GameState,
        info: TableInfo,
        table_id: str,
        number: int,
        hold_until: int,
        seat: int,
        seat_token: SeatToken,
        robots: frozenset[int],
    ) -> NextMatch:
        held = held_seats(old, robots)
        setup = next_setup(old.setup, table_id, number, held, hold_until)
        next_id = secrets.token_hex(16)
        state = new_game(setup)
        sat = old.seats[seat]
        joins = [
            Action(
                ActionKind.JOIN, seat, name=sat.name, player_id=sat.player_id, text=REMATCH_CLAIM
            )
        ]
        joins += [join_action(r, SeatPlan(name=old.seats[r].name, robot=True)) for r in robots]
        changes = []
        for version, join in enumerate(joins):
            apply_action(state, join, version + 1)
            changes.append(
                GameChange(
                    next_id,
                    version,
                    GameState.from_dict(state.to_dict(with_setup=False), setup),
                    join,
                    actor=join.actor,
                    new_token=seat_token if version == 0 else None,
                    deadline_set=version == 0,
                    deadline_at=hold_until if version == 0 and set(held) - {seat} else None,
                )
            )
        new = NewGame(
            app_id, setup, new_game(setup), info.label, info.invite_hash, next_id, info.owner_id
        )
        return NextMatch(table_id, number, new, tuple(changes))

    async def history(
        self, credentials: Credentials, game_id: str, page_size: int, page_token: str
    ) -> TableHistory:
        """A page of the matches played at the table of ``game_id`` (any of its
        matches), from its first: for the app, a player holding a token of one of
        them, or a player's session (a private table's only for its players)."""
        if not game_id:
            raise malformed("game_id is required")
        size = page_size or 50
        if not 1 <= size <= 200:
            raise malformed("page_size is 1..200")
        offset = parse_offset(page_token)
        caller = await self.games.access.identify(credentials)
        game = await self.repo.game(game_id)
        table_id = game.state.setup.table_id or game.id
        await self._may_read(caller, game, table_id)
        if caller.session is not None:
            await self._may_read_private(table_id, caller.session.player_id)
        matches = await self.repo.table_matches(table_id, size + 1, offset)
        more = len(matches) > size
        return TableHistory(table_id, matches[:size], offset_token(offset + size) if more else "")

    async def _may_read_private(self, table_id: str, player_id: str) -> None:
        """A private table's history is its players' only: private by its invite code,
        or made private by its head in any of its matches; a player who sat at any of
        them reads it all (whichever page they ask for)."""
        private = (await self.repo.table_info(table_id)).invite_hash is not None
        member = False
        offset = 0
        while True:
            page = await self.repo.table_matches(table_id, _SCAN_PAGE, offset)
            for m in page:
                private = private or m.game.state.setup.table.private
                member = member or any(s.player_id == player_id for s in m.game.state.seats)
            if len(page) < _SCAN_PAGE:
                break
            offset += _SCAN_PAGE
        if private and not member:
            raise game_not_found()

    async def _may_read(self, caller: Caller, game: GameRecord, table_id: str) -> None:
        if caller.session is not None:
            if caller.session.app_id != game.app_id:
                raise game_not_found()
            return
        if caller.player is not None:
            if caller.player.game_id == game.id:
                return
            mine = await self.repo.game(caller.player.game_id)
            if (mine.state.setup.table_id or mine.id) != table_id:
                raise game_not_found()
            return
        if require_app(caller).id != game.app_id:
            raise game_not_found()


__all__ = [
    "NextMatch",
    "PlayedMatch",
    "Rematch",
    "RematchRepository",
    "Rematched",
    "TableHistory",
    "TableInfo",
    "held_seats",
    "next_setup",
    "robot_seats",
]
