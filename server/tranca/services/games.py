"""Games and moves, as callers use them: create a table, take a seat, start, read a
seat's view and legal moves, move, leave, list an app's tables, replay a game, and
watch it change. Each use case checks who is calling (``Access``), reads what it
needs, and changes a game only through ``Moves``; nothing about a game is kept
between calls. The transports translate their requests into these calls and the
results into their answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import zlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
import structlog

from .. import metrics
from ..app.fairness import Reveal, deal_reveal, new_server_secret
from ..app.game import (
    BY_ROBOT,
    FINISHED,
    WAITING,
    Action,
    GameState,
    Setup,
    TableOptions,
    apply_action,
    new_game,
    play_action,
)
from ..rules.cards import full_deck, parse_card, shuffled_deck
from ..rules.match import deal_seed
from ..rules.moves import KIND_NAMES, Move
from ..rules.presets import KNOB_RANGES, Rules, make_rules
from .access import (
    Access,
    Caller,
    Credentials,
    require_app,
    require_player,
    same_game,
    seat_token_required,
)
from .credentials import hash_secret, new_seat_token
from .errors import Refusal, Refused, game_not_found, malformed
from .limits import MAX_TOKEN_LIFETIME, MIN_TOKEN_LIFETIME, WatchCounts, page_offset
from .matches import Matches
from .moves import Moves
from .policy import AppPolicy
from .ports import (
    GameRecord,
    GameRepository,
    LogRecord,
    NewGame,
    SeatGame,
    SeatToken,
    SessionRecord,
    Wakeup,
)
from .presence import Presence, presence_interval
from .robots import EXPERT, ROBOT_LEVELS, level_within

log = structlog.get_logger("tranca.games")

FIXED_DECK = "fixed_deck"
MAX_TURN_SECONDS = 24 * 3600
MAX_STAKE = 10**12
# The highest point limit a table sets: the target_score knob's range (RULES.md).
MAX_POINT_LIMIT = KNOB_RANGES["target_score"][1]
WATCH_POLL_SECONDS = 10.0
# A turn submitted in one request (SubmitTurn): at most this many moves, and a request
# id short enough that its rows' ids (``<id>#k``, moves.turn_request_ids) fit the log.
MAX_TURN_MOVES = 64
MAX_TURN_REQUEST_ID = 124
# The re-read's period while the hints say they are steady (the NATS change feed
# connected): then the re-read only covers a message lost on a live connection, and
# each idle stream's read every 10 s is what one replica's many streams cost most
# (10,000 streams: 1,000 log reads a second). When the feed drops, every watcher is
# woken and goes back to WATCH_POLL_SECONDS until it is back.
WATCH_POLL_STEADY_SECONDS = 60.0
# How long a watch stream keeps its game's state as objects after it delivered a
# move, before it keeps it encoded until the next (``Games.watch``).
WATCH_HOT_SECONDS = 5.0

# Builds the caller's INVALID_ARGUMENT refusal from a message (the reason differs:
# MALFORMED_REQUEST for a table, INVALID_CONFIG for a tournament's tables).
Refuse = Callable[[str], Refused]


class GamesRepository(GameRepository, Protocol):
    """The reads and writes of games beyond a change (``GameRepository``)."""

    async def invite_hash(self, game_id: str) -> str | None: ...

    async def add_token(self, game_id: str, token: SeatToken) -> None: ...

    async def list_games(
        self, app_id: str, status: str | None, limit: int, offset: int, open_only: bool = False
    ) -> list[GameRecord]: ...

    async def deadline_of(self, game_id: str) -> tuple[int, int | None]: ...

    async def duplicate_round_in_play(self, game_id: str) -> bool:
        """Whether the game is a table of a duplicate tournament round some table of
        which still plays (its cards are then the others' hidden cards)."""
        ...


# ----- what the use cases take and give ---------------------------------------------------


@dataclass(frozen=True)
class NewTable:
    """A table to create, its fields read from the request."""

    preset: str
    overrides: dict[str, Any]
    players: int
    table: TableOptions
    seed: int = 0  # 0: the server picks one
    deck: Sequence[str] = ()  # the first deal's deck (card texts), where the app fixes it
    label: str = ""
    spectators_allowed: bool = False


@dataclass(frozen=True)
class Joining:
    """A seat (or a spectator's place) wanted at a table."""

    seat: int = -1  # -1: the lowest free seat
    player_name: str = ""
    player_id: str = ""
    spectator: bool = False
    robot: bool = False
    invite_code: str = ""
    address: str = ""  # the player's address as the app saw it; empty: the caller's
    token_lifetime_seconds: int = 0  # 0: the server's default


@dataclass(frozen=True)
class Seated:
    seat: int
    token: str = ""  # none for a robot's seat
    expires_at: int = 0


@dataclass(frozen=True)
class Shown:
    """A game as one reader sees it at one version (the transport builds the view)."""

    game_id: str
    version: int
    state: GameState
    seat: int  # -1: an app or a spectator (no hand)
    deadline_at: int | None = None


@dataclass(frozen=True)
class Moved:
    shown: Shown
    replayed: bool


@dataclass(frozen=True)
class DealReplay:
    deal_number: int
    dealer: int
    result: dict[str, Any] | None = None  # the deal's result, once it is over
    deck: list[int] | None = None  # the cards as dealt, once nothing of them is hidden
    reveal: Reveal | None = None  # a verifiable deal's proof


@dataclass(frozen=True)
class LoggedChange:
    row: LogRecord
    deal_number: int  # the deal the change was made in


@dataclass(frozen=True)
class Replay:
    game: GameRecord
    seed: int | None  # shown once the match is over and no table of its round plays
    moves: list[LoggedChange]
    deals: list[DealReplay] = field(default_factory=list)


@dataclass(frozen=True)
class WatchUpdate:
    shown: Shown
    change: LoggedChange | None = None  # None for the first view of a watch from 0


# ----- rules and tables -------------------------------------------------------------------


def check_table_options(t: TableOptions) -> None:
    """Refuse incoherent table options (MALFORMED_REQUEST, whoever asks)."""
    if not 0 <= t.turn_seconds <= MAX_TURN_SECONDS:
        raise malformed(f"table.turn_seconds is 0 (no limit) to {MAX_TURN_SECONDS}")
    if not 0 <= t.robot_grace_seconds <= MAX_TURN_SECONDS:
        raise malformed(f"table.robot_grace_seconds is 0 (no robots) to {MAX_TURN_SECONDS}")
    if not 0 <= t.stake <= MAX_STAKE:
        raise malformed(f"table.stake is 0 to {MAX_STAKE}")
    if t.stake and not t.competitive:
        raise malformed("a stake needs a competitive table (003: practice plays for no chips)")
    if not 0 <= t.point_limit <= MAX_POINT_LIMIT:
        raise malformed(f"table.point_limit is 0 (the preset's) to {MAX_POINT_LIMIT}")
    if t.express and t.point_limit:
        raise malformed("an express table has no point limit (003: 'sin límite de puntos')")
    if t.robot_level and t.robot_level not in ROBOT_LEVELS:
        raise malformed(f"table.robot_level is unspecified or one of {', '.join(ROBOT_LEVELS)}")
    if t.robot_level and not t.robot_grace_seconds:
        raise malformed("table.robot_level needs a table with robots (robot_grace_seconds > 0)")


def robot_level_allowed(t: TableOptions, max_level: str) -> None:
    """Refuse a table whose robots would play a level above the operator's bound
    (``tranca serve --robot-max-level``): PERMISSION_DENIED, ROBOT_LEVEL_NOT_ALLOWED,
    with the bound in the metadata, so that an app can offer what the server allows.
    Refused rather than played at the bound: a player who chose "against the expert"
    would otherwise meet a weaker robot without being told."""
    if t.robot_level and not level_within(t.robot_level, max_level):
        raise Refused(
            Refusal.FORBIDDEN,
            "ROBOT_LEVEL_NOT_ALLOWED",
            f"this server's robots play at most the {max_level} level",
            {"max_level": max_level},
        )


def rules_and_table(
    preset: str,
    overrides: dict[str, Any],
    players: int,
    table: TableOptions,
    refuse: Refuse,
) -> Rules:
    """The rules of a new game (CreateGame) or of every game of a tournament: the
    preset is required and must be played by ``players``; the table's options are
    checked, and set the length of the match (express, point limit). A rules error
    (an unknown preset or knob, a knob out of range) raises ``RulesError``."""
    if not preset:
        raise refuse("rules.preset is required (see ListPresets)")
    rules = make_rules(preset, overrides)
    if players not in rules.player_counts:
        allowed = ", ".join(str(n) for n in rules.player_counts)
        raise refuse(f"{rules.name} is played by {allowed} players")
    check_table_options(table)
    return make_rules(preset, table.match_overrides(overrides))


def fixed_deck(
    app_permissions: frozenset[str],
    cards: Sequence[str],
    jokers: bool,
    refuse: Refuse,
    *,
    field: str,
    wrong_cards: str,
) -> list[int]:
    """A deck order the caller fixes (``cards``: one card text each):
    FIXED_DECK_NOT_ALLOWED without the fixed_deck permission; through ``refuse`` a card
    that does not parse (``field: why``) or a deck that is not exactly the rules' deck
    (``wrong_cards``)."""
    if FIXED_DECK not in app_permissions:
        raise Refused(
            Refusal.FORBIDDEN,
            "FIXED_DECK_NOT_ALLOWED",
            "this API key may not fix the deck order",
        )
    try:
        deck = [parse_card(c) for c in cards]
    except ValueError as exc:
        raise refuse(f"{field}: {exc}") from None
    if sorted(deck) != sorted(full_deck(jokers)):
        raise refuse(wrong_cards)
    return deck


def preset_not_allowed(preset: str) -> Refused:
    return Refused(
        Refusal.FORBIDDEN,
        "PRESET_NOT_ALLOWED",
        f"this app's players may not play {preset or 'an unnamed preset'} (its policy)",
    )


def within_policy(policy: AppPolicy, competitive: bool, stake: int) -> None:
    """Refuse a table beyond what the app lets its players' sessions play."""
    if competitive and not policy.competitive:
        raise Refused(
            Refusal.FORBIDDEN,
            "COMPETITIVE_NOT_ALLOWED",
            "this app's players may not play rated tables (its policy)",
        )
    if stake > policy.max_stake:
        raise Refused(
            Refusal.FORBIDDEN,
            "STAKE_NOT_ALLOWED",
            f"this app's players may stake at most {policy.max_stake} chips (its policy)",
        )


def as_session(session: SessionRecord, wanted: Joining) -> Joining:
    """What a session asks for, as its own player: the name and id are the
    session's, never the request's; no other address than the caller's."""
    if wanted.player_id.strip() and wanted.player_id.strip() != session.player_id:
        raise Refused(
            Refusal.FORBIDDEN,
            "NOT_YOUR_PLAYER",
            "a session seats its own player only (leave player_id empty)",
        )
    if wanted.address:
        raise malformed("address is the app's to give, not a session's")
    return Joining(
        seat=wanted.seat,
        player_name="" if wanted.robot else session.display_name,
        player_id="" if wanted.spectator or wanted.robot else session.player_id,
        spectator=wanted.spectator,
        robot=wanted.robot,
        invite_code=wanted.invite_code,
        token_lifetime_seconds=wanted.token_lifetime_seconds,
    )


def no_spectators() -> Refused:
    return Refused(Refusal.FORBIDDEN, "NO_SPECTATORS", "this game has no spectators")


# ----- the use cases ---------------------------------------------------------------------


class Games:
    def __init__(
        self,
        repo: GamesRepository,
        access: Access,
        moves: Moves,
        matches: Matches,
        presence: Presence,
        watches: WatchCounts,
        hints: Hints,
        leases: Leases,
        token_lifetime_seconds: int,
        *,
        robot_level: str = "greedy",
        robot_max_level: str = EXPERT,
    ) -> None:
        self.repo = repo
        self.access = access
        self.moves = moves
        # The operator's robot level (a table's that asks for none), and the most
        # expensive level a table may ask for.
        self.robot_level = robot_level
        self.robot_max_level = robot_max_level
        self.matches = matches
        self.presence = presence
        self.watches = watches
        self.hints = hints
        self.leases = leases
        self.token_lifetime_seconds = token_lifetime_seconds
        # The log reads of watch streams under way, by (game, after version): the
        # watchers of a game woken by one hint ask for the same rows (_rows_after).
        self._reads: dict[tuple[str, int], asyncio.Future[Sequence[LogRecord] | None]] = {}

    # ----- who may see what --------------------------------------------------------

    async def game_for(self, caller: Caller, game_id: str) -> GameRecord:
        """The game, if the caller may see it; NOT_FOUND otherwise (other apps' games
        are invisible, not forbidden)."""
        if not game_id:
            raise malformed("game_id is required")
        if caller.session is not None:
            raise seat_token_required()
        game = await self.repo.game(game_id)
        if caller.app is not None and game.app_id != caller.app.id:
            raise game_not_found()
        if caller.player is not None and caller.player.game_id != game_id:
            raise game_not_found()
        return game

    async def session_game(self, session: SessionRecord, game_id: str) -> GameRecord:
        """A table a player's session may join: its app's, of a preset, rated play and
        stake its app's policy allows (other apps' games are invisible)."""
        if not game_id:
            raise malformed("game_id is required")
        game = await self.repo.game(game_id)
        if game.app_id != session.app_id:
            raise game_not_found()
        setup = game.state.setup
        if not session.policy.allows_preset(setup.rules.name):
            raise preset_not_allowed(setup.rules.name)
        within_policy(session.policy, setup.table.competitive, setup.table.stake)
        return game

    @staticmethod
    def viewer_seat(caller: Caller, game: GameRecord) -> int:
        if caller.player is not None:
            if caller.player.seat < 0 and not game.state.setup.spectators_allowed:
                raise no_spectators()
            return caller.player.seat
        return -1

    async def seat_of(self, credentials: Credentials, game_id: str) -> SeatGame:
        """The caller's seat (not a spectator's) and its game, in the move path's one
        read; without a player token, the refusal its credentials call for."""
        loaded = await self.access.seat_game(credentials)
        if loaded is None:
            caller = await self.access.identify(credentials)
            await self.game_for(caller, game_id)
            require_player(caller, game_id)
            raise AssertionError("require_player refuses a caller without a player token")
        same_game(loaded, game_id)
        require_player(Caller(player=loaded.player), game_id)
        return loaded

    # ----- tables and seats --------------------------------------------------------

    async def create(self, credentials: Credentials, new: NewTable) -> tuple[GameRecord, str]:
        """A new game waiting for players, and a private table's invite code: by the
        app, or by a player's session where the app's policy lets its players create
        tables (within its presets, rated play and stakes)."""
        caller = await self.access.identify(credentials)
        if caller.session is not None:
            app_id, permissions = caller.session.app_id, frozenset[str]()
            policy = caller.session.policy
            if not policy.players_create_tables:
                raise Refused(
                    Refusal.FORBIDDEN,
                    "PLAYERS_MAY_NOT_CREATE_TABLES",
                    "this app's players may not create tables (its policy)",
                )
            if not policy.allows_preset(new.preset):
                raise preset_not_allowed(new.preset)
            within_policy(policy, new.table.competitive, new.table.stake)
        else:
            app = require_app(caller)
            app_id, permissions = app.id, app.permissions
        rules = rules_and_table(new.preset, new.overrides, new.players, new.table, malformed)
        robot_level_allowed(new.table, self.robot_max_level)
        table = new.table
        deck = None
        if new.deck:
            deck = fixed_deck(
                permissions,
                new.deck,
                rules.jokers,
                malformed,
                field="deck",
                wrong_cards="deck must hold exactly the cards of the preset's deck",
            )
        if table.verifiable and deck is not None:
            raise malformed("a verifiable table shuffles its own deck: give no deck")
        seed = new.seed or secrets.randbits(63)
        secret = new_server_secret() if table.verifiable else None
        setup = Setup(rules, new.players, seed, deck, new.spectators_allowed, table, secret)
        invite = "ti_" + secrets.token_urlsafe(12) if table.private else ""
        game_id = await self.repo.create_game(
            NewGame(
                app_id, setup, new_game(setup), new.label, hash_secret(invite) if invite else None
            )
        )
        return await self.repo.game(game_id), invite

    async def join(self, credentials: Credentials, game_id: str, wanted: Joining) -> Seated:
        """A seat (or a spectator's place, or a robot's seat) at a table: the app seats
        whom it names; a player's session seats its own player (its player id and
        display name), at a table of its app its policy allows."""
        caller = await self.access.identify(credentials)
        session = caller.session
        if session is None:
            require_app(caller)
            game = await self.game_for(caller, game_id)
        else:
            game = await self.session_game(session, game_id)
            wanted = as_session(session, wanted)
        name = wanted.player_name.strip()
        lifetime = wanted.token_lifetime_seconds or self.token_lifetime_seconds
        if not MIN_TOKEN_LIFETIME <= lifetime <= MAX_TOKEN_LIFETIME:
            raise malformed(
                f"token_lifetime_seconds is {MIN_TOKEN_LIFETIME} to {MAX_TOKEN_LIFETIME}"
                " (0: the server's default)"
            )
        expires_at = self.moves.clock() + lifetime * 1000
        if session is not None:
            # No seat token outlives the session it was given to.
            expires_at = min(expires_at, session.refresh_expires_at)
        session_id = None if session is None else session.session_id
        state = game.state
        table = state.setup.table
        if table.private:
            # Spectators of a private table need the invitation too.
            expected = await self.repo.invite_hash(game.id)
            given = hash_secret(wanted.invite_code) if wanted.invite_code else ""
            if expected is None or not secrets.compare_digest(expected, given):
                raise Refused(
                    Refusal.FORBIDDEN,
                    "INVITE_REQUIRED",
                    "this table is private: JoinGame needs its invite code",
                )
        player_id = wanted.player_id.strip()
        if wanted.robot and (wanted.spectator or player_id):
            raise malformed("a robot's seat is no spectator's and has no player_id")
        if wanted.spectator:
            if not state.setup.spectators_allowed:
                raise no_spectators()
            token, spectator = new_seat_token(
                -1, name, expires_at=expires_at, session_id=session_id
            )
            await self.repo.add_token(game.id, spectator)
            return Seated(-1, token, expires_at)
        if session is not None and not wanted.robot:
            held = [i for i, s in enumerate(state.seats) if s.player_id == session.player_id]
            if held:
                # The session's player already holds a seat here (from another device,
                # or before signing out): a new token for that seat, not a second seat.
                token, again = new_seat_token(
                    held[0],
                    state.seats[held[0]].name,
                    session.player_id,
                    credentials.peer(),
                    expires_at=expires_at,
                    session_id=session_id,
                )
                await self.repo.add_token(game.id, again)
                return Seated(held[0], token, expires_at)
        seat = wanted.seat
        if seat == -1:
            free = [i for i, s in enumerate(state.seats) if not s.taken]
            if not free or state.status != WAITING:
                raise Refused(Refusal.PRECONDITION, "GAME_FULL", "no free seat")
            seat = free[0]
        elif not 0 <= seat < state.setup.players:
            raise malformed(f"seat must be -1 or 0..{state.setup.players - 1}")
        if wanted.robot:
            # The server's robot plays the seat (services/timers.py); the game refuses
            # it at a table without robots or a competitive one. No token.
            await self.moves.apply(
                game.id, Action("join", seat, name=name or f"robot {seat}", by=BY_ROBOT)
            )
            return Seated(seat)
        if table.competitive and not player_id:
            raise malformed("a competitive table needs every seat's player_id")
        await self.matches.check_can_cover(game.app_id, player_id, table.stake)
        address = wanted.address.strip() or credentials.peer()
        token, seat_token = new_seat_token(
            seat, name, player_id or None, address, expires_at=expires_at, session_id=session_id
        )
        await self.moves.apply(
            game.id,
            Action("join", seat, name=name or f"player {seat}", player_id=player_id),
            new_token=seat_token,
        )
        return Seated(seat, token, expires_at)

    async def start(self, credentials: Credentials, game_id: str) -> Shown:
        """Deal the first deal (every seat taken): the app or a seated player."""
        caller = await self.access.identify(credentials)
        game = await self.game_for(caller, game_id)
        if caller.player is not None and caller.player.seat < 0:
            raise Refused(Refusal.FORBIDDEN, "SPECTATOR", "spectators cannot act")
        done = await self.matches.start(game.id)
        seat = caller.player.seat if caller.player is not None else -1
        # The start set a timed table's first turn deadline: the view shows it, as
        # GetView would (a start never leaves an earlier deadline standing).
        deadline = done.deadline_at if done.deadline_set else None
        return Shown(game.id, done.version, done.state, seat, deadline)

    async def leave(self, credentials: Credentials, game_id: str, request_id: str) -> int:
        """Before the start the seat is freed (its tokens revoked); once the game is
        under way (or over, for a retried resignation) leaving resigns. The version."""
        caller = await self.access.identify(credentials)
        game = await self.game_for(caller, game_id)
        player = require_player(caller, game.id)
        # The game logic refuses a resignation from a finished game.
        kind = "leave" if game.state.status == WAITING else "resign"
        done = await self.moves.apply(
            game.id,
            Action(kind, player.seat),
            request_id=request_id or None,
            revoke_seat=player.seat if kind == "leave" else None,
        )
        return done.version

    async def list(
        self,
        credentials: Credentials,
        status: str | None,
        page_size: int,
        page_token: str,
        open_only: bool,
    ) -> tuple[list[GameRecord], str]:
        """A page of the app's games, newest first, and the next page's token. A
        player's session sees only the public tables with a free seat."""
        caller = await self.access.identify(credentials)
        if caller.session is not None:
            app_id, open_only = caller.session.app_id, True
        else:
            app_id = require_app(caller).id
        size = page_size or 50
        if not 1 <= size <= 500:
            raise malformed("page_size is 1..500")
        offset = page_offset(page_token)
        games = await self.repo.list_games(app_id, status, size + 1, offset, open_only=open_only)
        return games[:size], str(offset + size) if len(games) > size else ""

    # ----- reading and moving ------------------------------------------------------

    async def view(self, credentials: Credentials, game_id: str) -> Shown:
        """The game as the caller may see it: a seat its own hand, an app or a
        spectator no hand. A seat's call shows that its player is there."""
        loaded = await self.access.seat_game(credentials)
        if loaded is not None:
            same_game(loaded, game_id)
            seat = loaded.player.seat
            if seat < 0 and not loaded.state.setup.spectators_allowed:
                raise no_spectators()
            await self.presence.touch(game_id, seat, loaded.state)
            return Shown(game_id, loaded.version, loaded.state, seat, loaded.deadline_at)
        caller = await self.access.identify(credentials)
        game = await self.game_for(caller, game_id)
        seat = self.viewer_seat(caller, game)
        return Shown(game.id, game.version, game.state, seat, game.deadline_at)

    async def legal_moves(self, credentials: Credentials, game_id: str) -> Shown:
        """The seat's game, to list its legal moves from (none when not its turn)."""
        loaded = await self.seat_of(credentials, game_id)
        seat = loaded.player.seat
        await self.presence.touch(game_id, seat, loaded.state)
        return Shown(game_id, loaded.version, loaded.state, seat, loaded.deadline_at)

    async def move(
        self,
        credentials: Credentials,
        game_id: str,
        move: Callable[[], Move],
        *,
        expected_version: int,
        request_id: str,
    ) -> Moved:
        """The seat's move (``move`` reads it from the request once the caller is
        known: a malformed move from a caller without a seat is refused for the seat).
        A retry with the same request id gets the first answer."""
        loaded = await self.access.seat_game(credentials)
        if not game_id:
            raise malformed("game_id is required")
        if loaded is None:
            caller = await self.access.identify(credentials)
            require_player(caller, game_id)
            raise AssertionError("require_player refuses a caller without a player token")
        player = require_player(Caller(player=loaded.player), game_id)
        if not request_id:
            raise malformed("request_id is required")
        chosen = move()
        done = await self.moves.move(
            loaded,
            play_action(player.seat, chosen),
            expected_version=expected_version,
            request_id=request_id,
        )
        kind = KIND_NAMES[chosen.kind]
        if done.replayed:
            metrics.REPLAYS.inc()
        else:
            metrics.moves_applied(kind).inc()
        # Game id, version, seat and move kind only: never a secret, never a card. At
        # debug level: the move log holds every move, and at info a busy server would
        # write a line per move (`tranca serve --log-level debug` shows them).
        log.debug(
            "move",
            game_id=game_id,
            version=done.version,
            seat=player.seat,
            kind=kind,
            replayed=done.replayed,
        )
        # The move's own write set the deadline when it started a turn; else it stands.
        deadline = done.deadline_at if done.deadline_set else loaded.deadline_at
        shown = Shown(game_id, done.version, done.state, player.seat, deadline)
        return Moved(shown, done.replayed)

    async def turn(
        self,
        credentials: Credentials,
        game_id: str,
        moves: Callable[[], Sequence[Move]],
        *,
        expected_version: int,
        request_id: str,
    ) -> Moved:
        """A sequence of the seat's moves in one request (a turn: melds, adds and the
        discard after a draw), applied all or none in one write, each logged as its
        own move at its own version; the answer shows the game after the last.
        ``moves`` reads them from the request once the caller is known. The k-th
        move refused is a ``MoveRefused`` naming k, and nothing is written. A retry
        with the same request id gets the first answer."""
        loaded = await self.access.seat_game(credentials)
        if not game_id:
            raise malformed("game_id is required")
        if loaded is None:
            caller = await self.access.identify(credentials)
            require_player(caller, game_id)
            raise AssertionError("require_player refuses a caller without a player token")
        player = require_player(Caller(player=loaded.player), game_id)
        if not request_id:
            raise malformed("request_id is required")
        if len(request_id) > MAX_TURN_REQUEST_ID:
            raise malformed(f"request_id is at most {MAX_TURN_REQUEST_ID} characters")
        chosen = moves()
        if not chosen:
            raise malformed("moves holds at least one move")
        if len(chosen) > MAX_TURN_MOVES:
            raise malformed(f"moves holds at most {MAX_TURN_MOVES} moves")
        done = await self.moves.turn(
            loaded,
            [play_action(player.seat, m) for m in chosen],
            expected_version=expected_version,
            request_id=request_id,
        )
        if done.replayed:
            metrics.REPLAYS.inc()
        else:
            for m in chosen:
                metrics.moves_applied(KIND_NAMES[m.kind]).inc()
        log.debug(
            "turn",
            game_id=game_id,
            version=done.version,
            seat=player.seat,
            moves=len(chosen),
            replayed=done.replayed,
        )
        deadline = done.deadline_at if done.deadline_set else loaded.deadline_at
        shown = Shown(game_id, done.version, done.state, player.seat, deadline)
        return Moved(shown, done.replayed)

    # ----- the past and the future -------------------------------------------------

    async def replay(self, credentials: Credentials, game_id: str) -> Replay:
        """The move log and, for every deal that is over, its cards as dealt (the deal
        under way keeps its hidden cards hidden)."""
        caller = await self.access.identify(credentials)
        game = await self.game_for(caller, game_id)
        self.viewer_seat(caller, game)
        setup = game.state.setup
        # A table of a duplicate tournament round shares its seed and decks with the
        # round's other tables: while one of them plays, they are its hidden cards, so
        # the seed and every deck (and proof) wait until every game of the round ends.
        cards_shown = not await self.repo.duplicate_round_in_play(game.id)
        rows = await self.repo.log(game.id)
        # Rebuild the game from its log to read every finished deal's result.
        state = new_game(setup)
        results: dict[int, dict[str, Any]] = {}
        moves: list[LoggedChange] = []
        for row in rows:
            apply_action(state, row.action, row.version)
            if state.last_deal is not None:
                results.setdefault(int(state.last_deal["deal_number"]), state.last_deal)
            moves.append(LoggedChange(row, state.deal_number))
        seed = setup.seed if game.state.status == FINISHED and cards_shown else None
        replay = Replay(game, seed, moves)
        match = state.match
        if match is None:
            return replay
        secret = setup.server_secret
        shown: list[int] = sorted(results)
        if secret is not None and state.status == FINISHED and state.deal_number not in results:
            # A verifiable match that ended inside a deal (a resignation, an annulment):
            # nothing of that deal is hidden any more, so its proof is shown too.
            shown.append(state.deal_number)
        for index in shown:
            dealer = match.dealer_of(index - 1)
            result = results.get(index)
            if not cards_shown:
                replay.deals.append(DealReplay(index, dealer, result))  # no cards yet
            elif secret is not None:
                reveal = deal_reveal(secret, index, state.entropy, setup.rules.jokers)
                replay.deals.append(DealReplay(index, dealer, result, None, reveal))
            else:
                deck = (
                    list(setup.deck)
                    if index == 1 and setup.deck
                    else shuffled_deck(setup.rules.jokers, deal_seed(setup.seed, index - 1))
                )
                replay.deals.append(DealReplay(index, dealer, result, deck))
        return replay

    async def watch(
        self, credentials: Credentials, game_id: str, from_version: int
    ) -> AsyncIterator[WatchUpdate]:
        """Every version after ``from_version`` as the caller sees it, in order and
        without gaps, for as long as the caller reads (to the match's end). Open
        streams are capped per player token and per API key in this process.

        The state is folded forward from the log, so nothing is skipped even if hints
        are lost. A replica holds one of these per open stream, for hours: between
        wakes it keeps the folded state encoded (a kilobyte or two rather than the
        several of its objects) and nothing else it does not need (the caller, the
        record it read first, the last rows); see docs/PERFORMANCE.md, "Memory per
        watch stream"."""
        caller = await self.access.identify(credentials)
        game = await self.game_for(caller, game_id)
        seat = self.viewer_seat(caller, game)
        if caller.player is not None:
            key, cap = f"token:{caller.player.token_hash}", self.watches.per_token
        else:
            assert caller.app is not None
            key, cap = f"app:{caller.app.id}", self.watches.per_app
        del caller, credentials
        with self.watches.hold(key, cap):
            if from_version < 0:
                raise malformed("from_version must be 0 or more")
            if from_version > game.version:
                raise malformed(
                    f"from_version {from_version} is ahead of the game ({game.version})"
                )
            game_id = game.id
            setup = game.state.setup
            table = setup.table
            # A seat's open stream says its player is there (tables with robots), at
            # most once per presence interval; the wait below wakes up for it.
            grace = table.robot_grace_seconds
            present = seat >= 0 and grace > 0
            wait = (
                min(WATCH_POLL_SECONDS, presence_interval(grace)) if present else WATCH_POLL_SECONDS
            )
            with self.hints.subscribe(game_id) as hint:
                # Before the log is first read: from here on every move of the game
                # hints this replica's listener, and any move before is in what is
                # read. (A finished game has no move left to hint.)
                if game.state.status != FINISHED:
                    await self.leases.hold(game_id)
                if from_version == 0:
                    state = game.state
                    version = game.version
                    yield WatchUpdate(Shown(game_id, version, state, seat, game.deadline_at))
                else:
                    state = new_game(setup)
                    for row in await self.repo.log(game_id, 0, from_version):
                        apply_action(state, row.action, row.version)
                    version = from_version
                del game
                status = state.status
                # Kept encoded while the stream waits (``freeze``), as objects for
                # WATCH_HOT_SECONDS after it delivered a move: an active game's next
                # move comes soon, and the encoding's round trip would cost every
                # watcher about 45 us a move.
                live: GameState | None = None
                frozen = freeze(state)
                del state
                # The first read is the log's (a move committed before this replica
                # took the game's hints is only there), and so is a timed re-read's and
                # one after a lost connection (hints may have been lost); a hint's wake
                # takes the rows that came with it where they follow on.
                first = True
                while True:
                    hinted = hint.is_set() and not hint.reread and not first
                    first = False
                    hint.clear()
                    if present:
                        await self.presence.touch_seat(game_id, seat, grace, status)
                    rows = self.hints.rows_after(game_id, version) if hinted else None
                    if rows is None:
                        rows = await self._rows_after(game_id, version)
                    if rows:
                        # A timed table's turn deadline is not in the log: read with
                        # the game's version, and shown on the view of that version
                        # (the batch's last).
                        deadline_version, deadline = -1, None
                        if table.turn_seconds:
                            deadline_version, deadline = await self.repo.deadline_of(game_id)
                        if live is None:
                            live, frozen = thaw(frozen, setup), b""
                        for row in rows:
                            apply_action(live, row.action, row.version)
                            version = row.version
                            shown = deadline if version == deadline_version else None
                            yield WatchUpdate(
                                Shown(game_id, version, live, seat, shown),
                                LoggedChange(row, live.deal_number),
                            )
                        status = live.status
                        del row
                    del rows
                    if status == FINISHED:
                        return  # nothing follows the end of a match
                    # Re-read the log on a timer too: a hint may have been lost.
                    period = wait
                    if not present and getattr(self.hints, "steady", False):
                        period = max(wait, WATCH_POLL_STEADY_SECONDS)
                    if live is not None:
                        hot = min(WATCH_HOT_SECONDS, period)
                        await hint.wait(hot)
                        if hint.is_set():
                            continue  # the next move: read it with the state at hand
                        frozen = freeze(live)
                        live = None
                        period -= hot
                        if period <= 0:
                            continue
                    await hint.wait(period)

    async def _rows_after(self, game_id: str, version: int) -> Sequence[LogRecord]:
        """The game's log after ``version``, for a watch stream: one read for all the
        watchers here that ask for the same rows at once (a hint wakes every watcher
        of the game together, and those at the same version want the same rows).
        The rows are read from the log all the same, once."""
        key = (game_id, version)
        pending = self._reads.get(key)
        if pending is not None:
            shared = await asyncio.shield(pending)
            if shared is not None:
                return shared
            return await self.repo.log(game_id, version)  # the first reader failed
        pending = self._reads[key] = asyncio.get_running_loop().create_future()
        try:
            rows = await self.repo.log(game_id, version)
        except BaseException:
            pending.set_result(None)  # the others read for themselves
            raise
        finally:
            if self._reads.get(key) is pending:
                del self._reads[key]
        pending.set_result(rows)
        return rows


def freeze(state: GameState) -> bytes:
    """A watch stream's folded state while it waits: the snapshot's encoding (the
    setup is kept apart, shared by the game's readers), compressed. Compressed for
    its size (about 600 bytes rather than 1,100-1,600), and also because orjson's
    own bytes keep the capacity of its output buffer, about 7.5 KB."""
    return zlib.compress(orjson.dumps(state.to_dict(with_setup=False)), 1)


def thaw(frozen: bytes, setup: Setup) -> GameState:
    return GameState.from_dict(orjson.loads(zlib.decompress(frozen)), setup)


class Hints(Protocol):
    """Hints that a game changed (``store/notify.py``'s hub): a watcher subscribes and
    is woken for each new version, from this process's moves and other replicas'.
    A hub may say it is ``steady`` (the NATS change feed connected): watchers then
    re-read on the longer ``WATCH_POLL_STEADY_SECONDS``."""

    def subscribe(self, game_id: str) -> contextlib.AbstractContextManager[Wakeup]: ...

    def rows_after(self, game_id: str, version: int) -> Sequence[LogRecord] | None:
        """The committed rows after ``version`` that came with the latest hints, if
        the hub holds every one up to the latest version hinted; None otherwise."""
        ...


class Leases(Protocol):
    """The replica's watch leases (``store/watch_leases.py``): while it holds one on a
    game, every replica's moves of the game hint it."""

    async def hold(self, game_id: str) -> None: ...


__all__ = [
    "DealReplay",
    "Games",
    "Joining",
    "LoggedChange",
    "Moved",
    "NewTable",
    "Replay",
    "Seated",
    "Shown",
    "WatchUpdate",
    "check_table_options",
    "fixed_deck",
    "robot_level_allowed",
    "rules_and_table",
]
