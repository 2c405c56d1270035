"""Reads and the one write path of the service.

Every change of a game goes through ``_write`` (from ``commit_move`` for a player's
move, ``commit_action`` for the rest): the snapshot read (one query), the action
applied by the pure game logic, then one write that stores the new snapshot only
if the version is still the one read (compare-and-swap) together with the log row.
A request id already in the log (the write meets its unique index, a moved-on
version, or a refusal by the rules) gets the first answer instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row, func, insert, select, text, update
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..app.game import (
    FINISHED,
    PLATFORM_SCHEMA_VERSION,
    PLAYING,
    Action,
    GameError,
    GameState,
    Setup,
    apply_action,
    rebuild,
)
from ..rules.errors import InvalidMove, RuleViolation
from .codec import (
    action_from_text,
    action_text,
    dumps,
    setup_from_text,
    state_from_text,
    state_text,
)
from .database import BUSY_TIMEOUT_MS, reader
from .direct import (
    HINT_IF_WATCHED_SQL,
    NOTIFY_CHANNEL,
    Claim,
    DuplicateRequest,
    MoveWrite,
    NewGame,
    SeatToken,
    direct_access,
    epoch_seconds,
    sqlite_unavailable,
)
from .models import App, Game, MoveLog, PlayerToken, SeatPresence

__all__ = ["NOTIFY_CHANNEL", "Claim", "Store", "next_deadline"]

# Above every version a game can reach (BIGINT), for "the log to its end".
MAX_VERSION = 2**62


def _unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` means the database cannot be reached or answered too slowly
    (as opposed to a bug, which must surface as one)."""
    if isinstance(
        exc,
        OperationalError | InterfaceError | PoolTimeout | OSError | TimeoutError,
    ):
        return True
    if isinstance(exc, sqlite3.Error):
        return sqlite_unavailable(exc)
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    try:
        from asyncpg import exceptions as pg
    except ImportError:  # pragma: no cover - asyncpg is a dependency
        return False
    # asyncpg's own errors arrive as they are (while a pool opens a connection) or
    # wrapped by SQLAlchemy's adapter: look down the chain of causes.
    seen: BaseException | None = exc
    for _ in range(6):
        if seen is None:
            return False
        if isinstance(
            seen,
            pg.PostgresConnectionError
            | pg.CannotConnectNowError
            | pg.InterfaceError
            | pg.AdminShutdownError
            | pg.CrashShutdownError,
        ):
            return True
        # SQLSTATE class 08 (connection exception), 57P (operator intervention), 53
        # (insufficient resources: too many connections, out of memory or disk) and
        # 57014 (the statement timeout): the database cannot serve now.
        state = str(getattr(seen, "sqlstate", "") or getattr(seen, "pgcode", "") or "")
        if state.startswith(("08", "57P", "53")) or state == "57014":
            return True
        seen = getattr(seen, "orig", None) or seen.__cause__ or seen.__context__
    return False


def _raise_if_outage(exc: BaseException | None) -> None:
    """``Unavailable`` in place of an error that means the database cannot serve now;
    a bug, or a cancellation (not an ``Exception``), is left to propagate as it is."""
    if isinstance(exc, Exception) and _unavailable(exc):
        raise Unavailable(str(exc) or "database timeout") from exc


class outages_as_unavailable:
    """Errors that mean the database cannot serve now become ``Unavailable``; any
    other error (a bug) surfaces as it is. A class rather than a generator-based
    context manager: it wraps every database call of every move, where the
    generator's creation, ``next`` and ``throw`` cost more than the test itself."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any
    ) -> None:
        _raise_if_outage(exc)


class Bounded:
    """A bounded database call: cancelled after ``seconds`` (``asyncio.timeout``),
    its outages raised as ``Unavailable`` (``outages_as_unavailable``). One object
    for both, used by each of a move's two database calls (see ``Store._guard``)."""

    __slots__ = ("_deadline",)

    def __init__(self, seconds: float) -> None:
        self._deadline = asyncio.timeout(seconds)

    async def __aenter__(self) -> None:
        await self._deadline.__aenter__()

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any
    ) -> None:
        try:
            # Past the deadline the block was cancelled: this raises TimeoutError.
            await self._deadline.__aexit__(kind, exc, tb)
        except Exception as timed_out:
            _raise_if_outage(timed_out)
            raise
        _raise_if_outage(exc)


class StoreError(Exception):
    """Base of the storage errors the API maps to status codes."""


class NotFound(StoreError):
    pass


class VersionConflict(StoreError):
    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class RequestIdReused(StoreError):
    pass


class Unavailable(StoreError):
    """The database cannot be reached or answered too slowly."""


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    """256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def new_seat_token(
    seat: int,
    name: str,
    player_id: str | None = None,
    address: str = "",
    *,
    expires_at: int,
) -> tuple[str, SeatToken]:
    """A new player token for ``seat``, valid until ``expires_at`` (epoch ms): the
    token the player is given, and the row (its hash) written with the join."""
    token = "tp_" + new_secret()
    return token, SeatToken(hash_secret(token), seat, name, player_id, address, expires_at)


@dataclass(frozen=True)
class AppRecord:
    id: str
    name: str
    permissions: frozenset[str]


@dataclass(frozen=True)
class TokenRecord:
    game_id: str
    seat: int
    player_name: str
    # The token's hash: what identifies this credential (its rate limit, its watches).
    token_hash: str


@dataclass(frozen=True)
class GameRecord:
    id: str
    app_id: str
    status: str
    version: int
    label: str
    created_at: float
    state: GameState
    deadline_at: int | None = None  # when the sweeper looks next (epoch ms)

    @classmethod
    def from_row(cls, row: Row[Any]) -> GameRecord:
        return cls(
            id=row.id,
            app_id=row.app_id,
            status=row.status,
            version=int(row.version),
            label=row.label,
            created_at=epoch_seconds(row.created_at),
            state=state_from_text(row.snapshot, row.setup),
            deadline_at=row.deadline_at,
        )


@dataclass(frozen=True)
class SeatGame:
    """A player token's seat and its game, read together (the move path's one read)."""

    player: TokenRecord
    app_id: str
    version: int
    state: GameState
    deadline_at: int | None = None  # games.deadline_at at that version (epoch ms)


@dataclass(frozen=True)
class LogRecord:
    version: int
    seat: int
    action: Action
    request_id: str | None
    actor: str
    created_at: float


@dataclass(frozen=True)
class Committed:
    version: int
    state: GameState
    replayed: bool  # True: the request id was already in the log
    # Whether the write set games.deadline_at, and to what (None: cleared).
    deadline_set: bool = False
    deadline_at: int | None = None


def now_ms() -> int:
    return int(time.time() * 1000)


TurnPoint = tuple[str, int, int]


def turn_point(g: GameState) -> TurnPoint:
    """Status, deal number and seat to act: a turn starts when this changes."""
    deal = g.deal
    return (g.status, g.deal_number, -1 if deal is None else deal.turn)


def turn_deadline(ms: int) -> int:
    """A deadline a write sets is even, a sweeper's lease odd (``lease_deadline``), so
    that a sweeper never mistakes a new turn's deadline for its own lease (they could
    otherwise fall on the same millisecond: a 30 s turn and a 30 s lease)."""
    return ms & ~1


def lease_deadline(ms: int) -> int:
    """See ``turn_deadline``."""
    return ms | 1


def next_deadline(
    before: TurnPoint, g: GameState, action: Action, now: int
) -> tuple[bool, int | None]:
    """games.deadline_at after ``action`` took the game from ``before`` to ``g``:
    (whether to set it, the value). Only called for tables with timers.

    A finished game needs no sweeper (None). A new turn (the game started, the turn
    passed, a new deal, or the player to act took their seat back from a robot)
    starts a clock: none for a robot's turn (it plays at once), else the turn's time,
    else the robot grace period. Anything else within a turn leaves the deadline
    alone, which also keeps a sweeper's lease while it plays a turn's moves."""
    status = g.status
    if status == FINISHED:
        return True, None
    if status != PLAYING:
        return False, None
    point = turn_point(g)
    turn = point[2]
    if point == before and not (action.kind == "return" and action.seat == turn):
        return False, None
    if turn in g.robots:
        return True, turn_deadline(now)
    table = g.setup.table
    if table.turn_seconds:
        return True, turn_deadline(now + table.turn_seconds * 1000)
    if table.robot_grace_seconds:
        return True, turn_deadline(now + table.robot_grace_seconds * 1000)
    return False, None


def apply_timed(state: GameState, action: Action, version: int) -> tuple[bool, int | None]:
    """``apply_action`` (raising, and changing nothing, if it is refused), and the
    deadline the write must set (``next_deadline``). Tables without timers pay one
    attribute test here, and their writes two constant parameters."""
    before = turn_point(state) if state.setup.table.timed else None
    apply_action(state, action, version)
    if before is None:
        return False, None
    return next_deadline(before, state, action, now_ms())


class Store:
    """All database access of the service. Holds an engine, never a game."""

    def __init__(
        self,
        engine: AsyncEngine,
        on_commit: Callable[[str, int], Awaitable[None]] | None = None,
        observe: Callable[[str, float], None] | None = None,
        timeout: float = 5.0,
        pool_size: int = 10,
        snapshot_schema: int = PLATFORM_SCHEMA_VERSION,
    ) -> None:
        self.engine = engine
        self.timeout = timeout
        self.snapshot_schema = snapshot_schema  # written; both are read (codec.py)
        # The move path's own access to the same database (see direct.py).
        self.direct = direct_access(
            engine.url,
            pool_size=pool_size,
            timeout_ms=int(timeout * 1000),
            busy_timeout_ms=BUSY_TIMEOUT_MS,
        )
        self.reads = reader(engine)
        self.is_postgres = engine.dialect.name == "postgresql"
        # SQLite has one writer at a time; queueing writers here instead of in
        # SQLite's busy handler (which sleeps and retries) keeps latency flat.
        self._write_lock: asyncio.Lock | None = None if self.is_postgres else asyncio.Lock()
        self._on_commit = on_commit
        self._observe = observe

    def _guard(self) -> Bounded:
        """A bounded database call whose driver errors become ``Unavailable``."""
        return Bounded(self.timeout)

    def _one_writer(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """On SQLite, every write of this process waits here, in turn, rather than in
        SQLite's busy handler (which sleeps in growing steps): see ``_write_lock``."""
        return self._write_lock or contextlib.nullcontext()

    def _deadline(self) -> asyncio.Timeout:
        """Every database call is bounded: a slow database answers UNAVAILABLE rather
        than holding the caller (and a connection) indefinitely."""
        return asyncio.timeout(self.timeout)

    @contextlib.asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncConnection]:
        """A bounded read connection for the store's modules (ledger, settlement,
        tournaments, players): driver errors and timeouts become ``Unavailable``."""
        async with self._guard(), self.reads.connect() as conn:
            yield conn

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[AsyncConnection]:
        """One bounded transaction for the store's modules, taken in turn with this
        process's other writers on SQLite (``_one_writer``): committed when the block
        ends, rolled back if it raises; driver errors and timeouts become
        ``Unavailable``."""
        async with self._guard(), self._one_writer(), self.engine.begin() as conn:
            yield conn

    def _timed(self, op: str, started: float) -> None:
        if self._observe is not None:
            self._observe(op, time.perf_counter() - started)

    async def close(self) -> None:
        await self.direct.close()
        await self.engine.dispose()

    async def ping(self) -> None:
        async with self._guard(), self.reads.connect() as conn:
            await conn.execute(text("SELECT 1"))

    # ----- apps --------------------------------------------------------------------

    async def create_app(
        self, name: str, permissions: frozenset[str] = frozenset()
    ) -> tuple[str, str]:
        """A new app and its API key (returned once; only its hash is stored)."""
        key = "tk_" + new_secret()
        app_id = uuid.uuid4().hex
        async with self._guard(), self._one_writer(), self.engine.begin() as conn:
            await conn.execute(
                insert(App).values(
                    id=app_id,
                    name=name,
                    key_hash=hash_secret(key),
                    permissions=",".join(sorted(permissions)),
                    revoked=False,
                )
            )
        return app_id, key

    async def ensure_app(self, name: str, key: str, permissions: frozenset[str]) -> str:
        """Register an app with a given key if no app has it (the dev key of ``make run``)."""
        h = hash_secret(key)
        async with self._guard(), self._one_writer(), self.engine.begin() as conn:
            found = (await conn.execute(select(App.id).where(App.key_hash == h))).first()
            if found:
                return str(found.id)
            app_id = uuid.uuid4().hex
            await conn.execute(
                insert(App).values(
                    id=app_id,
                    name=name,
                    key_hash=h,
                    permissions=",".join(sorted(permissions)),
                    revoked=False,
                )
            )
            return app_id

    async def revoke_app(self, app_id: str) -> bool:
        """Revoke an app's API key (its games stay; it can no longer call)."""
        async with self._guard(), self._one_writer(), self.engine.begin() as conn:
            done = await conn.execute(update(App).where(App.id == app_id).values(revoked=True))
        return bool(done.rowcount)

    async def app_by_key(self, key: str) -> AppRecord | None:
        started = time.perf_counter()
        async with self._guard():
            row = await self.direct.app(hash_secret(key))
        self._timed("app_by_key", started)
        if row is None:
            return None
        perms = frozenset(p for p in row.permissions.split(",") if p)
        return AppRecord(row.id, row.name, perms)

    # ----- tokens ------------------------------------------------------------------

    async def token(self, token: str) -> TokenRecord | None:
        """The seat of a player token that works now: not revoked, not expired, and
        its game's app not revoked (as ``seat_game``)."""
        started = time.perf_counter()
        token_hash = hash_secret(token)
        async with self._guard(), self.reads.connect() as conn:
            row = (
                await conn.execute(
                    select(PlayerToken.game_id, PlayerToken.seat, PlayerToken.player_name)
                    .join(Game, Game.id == PlayerToken.game_id)
                    .join(App, App.id == Game.app_id)
                    .where(
                        PlayerToken.token_hash == token_hash,
                        PlayerToken.revoked.is_(False),
                        PlayerToken.expires_at > now_ms(),
                        App.revoked.is_(False),
                    )
                )
            ).first()
        self._timed("token", started)
        if row is None:
            return None
        return TokenRecord(row.game_id, int(row.seat), row.player_name, token_hash)

    async def seat_game(self, token: str) -> SeatGame | None:
        """The seat a player token holds and its game's current state, in one read;
        None for an unknown or revoked token."""
        started = time.perf_counter()
        token_hash = hash_secret(token)
        async with self._guard():
            row = await self.direct.seat_game(token_hash, now_ms())
        self._timed("seat_game", started)
        if row is None:
            return None
        return SeatGame(
            TokenRecord(row.game_id, int(row.seat), row.player_name, token_hash),
            row.app_id,
            int(row.version),
            state_from_text(row.snapshot, row.setup),
            row.deadline_at,
        )

    async def add_spectator(self, game_id: str, name: str, expires_at: int) -> str:
        """A spectator's token for the game, valid until ``expires_at`` (epoch ms)."""
        token = "tp_" + new_secret()
        async with self._guard(), self._one_writer(), self.engine.begin() as conn:
            await conn.execute(
                insert(PlayerToken).values(
                    token_hash=hash_secret(token),
                    game_id=game_id,
                    seat=-1,
                    player_name=name,
                    revoked=False,
                    expires_at=expires_at,
                )
            )
        return token

    # ----- games -------------------------------------------------------------------

    async def create_game(
        self,
        app_id: str,
        setup: Setup,
        state: GameState,
        label: str,
        invite_hash: str | None = None,
    ) -> str:
        game_id = uuid.uuid4().hex
        new = NewGame(
            game_id,
            app_id,
            state.status,
            setup.rules.name,
            setup.players,
            label,
            dumps(setup.to_dict()),
            state_text(state, self.snapshot_schema),
            self.snapshot_schema,
            invite_hash,
        )
        async with self._guard(), self._one_writer():
            await self.direct.insert_game(new)
        return game_id

    async def invite_hash(self, game_id: str) -> str | None:
        """SHA-256 of a private table's invite code; None for a public table."""
        async with self._guard(), self.reads.connect() as conn:
            row = (await conn.execute(select(Game.invite_hash).where(Game.id == game_id))).first()
        return None if row is None else row.invite_hash

    async def game(self, game_id: str) -> GameRecord:
        started = time.perf_counter()
        async with self._guard():
            row = await self.direct.game(game_id)
        self._timed("load", started)
        if row is None:
            raise NotFound(f"no game {game_id}")
        return GameRecord(
            row.id,
            row.app_id,
            row.status,
            row.version,
            row.label,
            row.created_at,
            state_from_text(row.snapshot, row.setup),
            row.deadline_at,
        )

    async def setup_of(self, game_id: str) -> Setup:
        async with self._guard(), self.reads.connect() as conn:
            row = (await conn.execute(select(Game.setup).where(Game.id == game_id))).first()
        if row is None:
            raise NotFound(f"no game {game_id}")
        return setup_from_text(row.setup)

    async def list_games(
        self, app_id: str, status: str | None, limit: int, offset: int, open_only: bool = False
    ) -> list[GameRecord]:
        q = select(Game).where(Game.app_id == app_id)
        if status:
            q = q.where(Game.status == status)
        if open_only:
            # Public tables still waiting for players, with a free seat (the contract's
            # "with a free seat": a seat is held while its player's token is not revoked,
            # or by a robot, whose join is the one robot row of a waiting game's log).
            seats_held = (
                select(func.count(func.distinct(PlayerToken.seat)))
                .where(
                    PlayerToken.game_id == Game.id,
                    PlayerToken.seat >= 0,
                    PlayerToken.revoked.is_(False),
                )
                .scalar_subquery()
            )
            robots_seated = (
                select(func.count())
                .select_from(MoveLog)
                .where(MoveLog.game_id == Game.id, MoveLog.actor == "robot")
                .scalar_subquery()
            )
            q = q.where(
                Game.status == "waiting",
                Game.invite_hash.is_(None),
                seats_held + robots_seated < Game.players,
            )
        q = q.order_by(Game.created_at.desc(), Game.id).limit(limit).offset(offset)
        async with self._guard(), self.reads.connect() as conn:
            rows = (await conn.execute(q)).all()
        return [GameRecord.from_row(r) for r in rows]

    async def log(self, game_id: str, after: int = 0, upto: int | None = None) -> list[LogRecord]:
        """The game's log after version ``after`` (up to ``upto``), in order. Through
        the driver, as the move path's reads: every open watch stream reads it on
        every move of its game, and through SQLAlchemy's pool a read cost four round
        trips (a liveness ping, BEGIN, the query, ROLLBACK)."""
        async with self._guard():
            rows = await self.direct.log_rows(game_id, after, MAX_VERSION if upto is None else upto)
        return [
            LogRecord(
                int(version),
                int(seat),
                action_from_text(action),
                request_id,
                actor,
                epoch_seconds(created_at),
            )
            for version, seat, action, request_id, actor, created_at in rows
        ]

    async def count_games(self) -> dict[str, int]:
        async with self._guard(), self.reads.connect() as conn:
            rows = (
                await conn.execute(select(Game.status, func.count()).group_by(Game.status))
            ).all()
        return {str(r[0]): int(r[1]) for r in rows}

    # ----- the write path ----------------------------------------------------------

    async def commit_action(
        self,
        game_id: str,
        action: Action,
        *,
        expected_version: int | None,
        request_id: str | None = None,
        actor: str = "player",
        new_token: SeatToken | None = None,
        revoke_seat: int | None = None,
    ) -> Committed:
        """Apply ``action`` to the game as it is now (see the module's doc): joins,
        starts, leaves and resignations. ``new_token`` is a seat's
        token written with the action; ``revoke_seat`` revokes a seat's tokens.

        Without ``expected_version`` the action applies to whatever version is
        current: a lost race re-reads the game and tries again (a few times).
        Raises ``NotFound``, ``VersionConflict``, ``RequestIdReused``, ``Unavailable``,
        or the game logic's own errors; on any error nothing is written.
        """
        started = time.perf_counter()
        token = new_token
        # A retry of a request already logged is found by ``_write`` (it meets the
        # request id's index, or the action is refused now): no look-up up front.
        with outages_as_unavailable():
            for attempt in range(5):
                async with self._guard():
                    row = await self.direct.game(game_id)
                if row is None:
                    raise NotFound(f"no game {game_id}")
                try:
                    result = await self._write(
                        game_id,
                        row.version,
                        state_from_text(row.snapshot, row.setup),
                        action,
                        expected_version,
                        request_id,
                        actor,
                        new_token=token,
                        revoke_seat=revoke_seat,
                    )
                    break
                except VersionConflict:
                    if expected_version is not None or attempt == 4:
                        raise
            else:  # pragma: no cover - the loop either breaks or raises
                raise AssertionError("unreachable")
        return await self._finished(game_id, result, started)

    async def commit_action_with(
        self,
        game_id: str,
        action: Action,
        also: Callable[[AsyncConnection, str, GameState], Awaitable[None]],
    ) -> Committed:
        """``action`` applied to the game as it is now and written as ``_write`` writes
        it (snapshot at the next version and a log row), in one transaction with what
        ``also(conn, app_id, new_state)`` writes on the same connection: both or
        neither (a staked start and its chip postings). The game's row is locked
        while it runs (PostgreSQL), or the one writer holds the file (SQLite). Not a
        hot path: SQLAlchemy, not ``direct``."""
        started = time.perf_counter()
        with outages_as_unavailable():
            async with self._deadline(), self._one_writer(), self.engine.begin() as conn:
                row = (
                    await conn.execute(
                        select(Game.app_id, Game.version, Game.snapshot, Game.setup)
                        .where(Game.id == game_id)
                        .with_for_update()
                    )
                ).first()
                if row is None:
                    raise NotFound(f"no game {game_id}")
                version = int(row.version)
                state = state_from_text(row.snapshot, row.setup)
                deadline_set, deadline_at = apply_timed(state, action, version + 1)
                now = datetime.now(UTC)
                values: dict[str, Any] = {
                    "version": version + 1,
                    "status": state.status,
                    "snapshot": state_text(state, self.snapshot_schema),
                    "updated_at": now,
                }
                if deadline_set:  # as ``_write``: a timed table's clock starts
                    values["deadline_at"] = deadline_at
                done = await conn.execute(
                    update(Game).where(Game.id == game_id, Game.version == version).values(values)
                )
                if done.rowcount != 1:  # pragma: no cover - the row is locked
                    raise VersionConflict(-1)
                await conn.execute(
                    insert(MoveLog).values(
                        game_id=game_id,
                        version=version + 1,
                        seat=action.seat,
                        action=action_text(action),
                        request_id=None,
                        actor=action.actor,
                        created_at=now,
                    )
                )
                await also(conn, str(row.app_id), state)
                if self.is_postgres:
                    # As every write of a game: the replicas' watchers (if it has any)
                    # hear of it at commit.
                    await conn.execute(
                        text(HINT_IF_WATCHED_SQL.format(":game_id", ":payload")),
                        {"game_id": game_id, "payload": f"{game_id}:{version + 1}"},
                    )
        result = Committed(version + 1, state, False, deadline_set, deadline_at)
        return await self._finished(game_id, result, started)

    async def commit_move(
        self,
        loaded: SeatGame,
        action: Action,
        *,
        expected_version: int,
        request_id: str | None,
        actor: str = "player",
    ) -> Committed:
        """A player's action on the game ``loaded`` by ``seat_game``: applied to that
        state and written only if the game is still at that version (the move path).

        A retry of a request already logged gets its first answer; a stale
        ``expected_version`` is a ``VersionConflict``; the game logic's refusals
        propagate; on any error nothing is written.
        """
        started = time.perf_counter()
        game_id = loaded.player.game_id
        with outages_as_unavailable():
            result = await self._write(
                game_id,
                loaded.version,
                loaded.state,
                action,
                expected_version,
                request_id,
                actor,
            )
        return await self._finished(game_id, result, started)

    async def _finished(self, game_id: str, result: Committed, started: float) -> Committed:
        """Timing, and the watchers woken for a new version (not for a replay)."""
        self._timed("replay" if result.replayed else "commit", started)
        if self._on_commit is not None and not result.replayed:
            await self._on_commit(game_id, result.version)
        return result

    async def _write(
        self,
        game_id: str,
        version: int,
        state: GameState,
        action: Action,
        expected_version: int | None,
        request_id: str | None,
        actor: str,
        *,
        new_token: SeatToken | None = None,
        revoke_seat: int | None = None,
    ) -> Committed:
        """``action`` applied to ``state`` (read at ``version``) and written if the game
        is still at that version: the one write of every change of a game."""
        if action.by:
            actor = action.actor  # the server played it: "timeout" or "robot"
        try:
            if expected_version is not None and expected_version != version:
                raise VersionConflict(version)
            try:
                deadline_set, deadline_at = apply_timed(state, action, version + 1)
            except (GameError, InvalidMove, RuleViolation):
                # Refused now, but perhaps because this very request was applied
                # already (a retry racing its first attempt, or with a fresher
                # version): then the first answer; a reused id, REQUEST_ID_REUSED.
                if request_id:
                    first = await self._first_answer(game_id, request_id, action)
                    if first is not None:
                        return first
                raise
            write = MoveWrite(
                game_id,
                version,
                state.status,
                state_text(state, self.snapshot_schema),
                action.seat,
                action_text(action),
                request_id,
                actor,
                new_token,
                revoke_seat,
                deadline_set,
                deadline_at,
            )
            async with self._deadline(), self._one_writer():
                written = await self.direct.write_move(write)
            if not written:
                raise VersionConflict(-1)
        except (VersionConflict, DuplicateRequest) as exc:
            # A retry of a change already made (its expected version is now stale, or
            # its request id is taken): the first answer. Otherwise a lost race.
            if request_id:
                first = await self._first_answer(game_id, request_id, action)
                if first is not None:
                    return first
            if isinstance(exc, DuplicateRequest):
                raise RequestIdReused(
                    f"request id {request_id!r} was used for another action"
                ) from None
            if exc.current >= 0:
                raise
            raise VersionConflict(await self._current_version(game_id)) from None
        return Committed(version + 1, state, False, deadline_set, deadline_at)

    async def _first_answer(
        self, game_id: str, request_id: str, action: Action
    ) -> Committed | None:
        async with self._guard(), self.reads.connect() as conn:
            return await self._logged_request(conn, game_id, request_id, action)

    async def _logged_request(
        self, conn: AsyncConnection, game_id: str, request_id: str, action: Action
    ) -> Committed | None:
        row = (
            await conn.execute(
                select(MoveLog.version, MoveLog.action).where(
                    MoveLog.game_id == game_id, MoveLog.request_id == request_id
                )
            )
        ).first()
        if row is None:
            return None
        if action_from_text(row.action) != action:
            raise RequestIdReused(f"request id {request_id!r} was used for another action")
        # The first answer: the game as that action left it, folded from the log.
        version = int(row.version)
        setup_row = (await conn.execute(select(Game.setup).where(Game.id == game_id))).first()
        assert setup_row is not None
        logged = (
            await conn.execute(
                select(MoveLog.action)
                .where(MoveLog.game_id == game_id, MoveLog.version <= version)
                .order_by(MoveLog.version)
            )
        ).all()
        state = rebuild(
            setup_from_text(setup_row.setup), [action_from_text(r.action) for r in logged]
        )
        return Committed(version, state, replayed=True)

    async def _current_version_in(self, conn: AsyncConnection, game_id: str) -> int:
        row = (await conn.execute(select(Game.version).where(Game.id == game_id))).first()
        return -1 if row is None else int(row.version)

    async def _current_version(self, game_id: str) -> int:
        async with self._guard(), self.reads.connect() as conn:
            return await self._current_version_in(conn, game_id)

    # ----- timers, robots and presence (the sweeper's side) ------------------------

    async def commit_server_action(
        self, game_id: str, version: int, state: GameState, action: Action, actor: str
    ) -> Committed:
        """An action the server takes for a seat (a robot's or a timed-out turn's move,
        a robot taking a seat) on ``state`` read at ``version``: written only if the
        game is still there (``VersionConflict`` otherwise). ``state`` is changed."""
        started = time.perf_counter()
        with outages_as_unavailable():
            result = await self._write(game_id, version, state, action, version, None, actor)
        return await self._finished(game_id, result, started)

    async def claim_due(self, now: int, lease_ms: int, limit: int) -> list[Claim]:
        """Claim up to ``limit`` overdue games for ``lease_ms`` (see ``Claim``)."""
        started = time.perf_counter()
        async with self._guard(), self._one_writer():
            claims = await self.direct.claim_due(now, lease_deadline(now + lease_ms), limit)
        self._timed("claim", started)
        return claims

    async def set_deadline(self, claim: Claim, version: int, deadline_at: int | None) -> bool:
        """A claimed game's next deadline, unless it changed since (False then)."""
        if deadline_at is not None:
            deadline_at = turn_deadline(deadline_at)
        async with self._guard(), self._one_writer():
            return await self.direct.set_deadline(
                claim.game_id, version, claim.lease_until, deadline_at
            )

    async def touch_presence(self, game_id: str, seat: int, now: int | None = None) -> None:
        """The seat's player showed they are there (a heartbeat, a call, a watch)."""
        async with self._guard(), self._one_writer():
            await self.direct.touch_presence(game_id, seat, now_ms() if now is None else now)

    async def lease_watches(self, game_ids: list[str], seconds: float) -> None:
        """Moves of these games hint watchers on other replicas for ``seconds`` from
        now (store/watch_leases.py); nothing on SQLite."""
        if game_ids:
            async with self._guard():
                await self.direct.lease_watches(game_ids, seconds)

    async def last_seen_ms(self, game_id: str, seat: int) -> int:
        """When the seat's player was last known to be there: the latest of their
        presence, their own last logged action and their token's creation (epoch ms)."""
        async with self._guard(), self.reads.connect() as conn:
            seen = (
                await conn.execute(
                    select(SeatPresence.last_seen_ms).where(
                        SeatPresence.game_id == game_id, SeatPresence.seat == seat
                    )
                )
            ).scalar()
            acted = (
                await conn.execute(
                    select(func.max(MoveLog.created_at)).where(
                        MoveLog.game_id == game_id,
                        MoveLog.seat == seat,
                        MoveLog.actor == "player",
                    )
                )
            ).scalar()
            joined = (
                await conn.execute(
                    select(func.max(PlayerToken.created_at)).where(
                        PlayerToken.game_id == game_id,
                        PlayerToken.seat == seat,
                        PlayerToken.revoked.is_(False),
                    )
                )
            ).scalar()
        return max(
            int(seen or 0),
            int(epoch_seconds(acted) * 1000),
            int(epoch_seconds(joined) * 1000),
        )

    async def deadline_of(self, game_id: str) -> tuple[int, int | None]:
        """A game's version and deadline (for watch streams of timed tables)."""
        async with self._guard(), self.reads.connect() as conn:
            row = (
                await conn.execute(select(Game.version, Game.deadline_at).where(Game.id == game_id))
            ).first()
        return (-1, None) if row is None else (int(row.version), row.deadline_at)
