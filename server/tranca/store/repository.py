"""The game repository on a database (SQLite or PostgreSQL): every read of the
games, their logs and their credentials, and the one write of a game's change
(``commit``, through the move path's driver-level access, ``direct.py``). The use
cases that decide what to write are in ``tranca.services``; this module only stores
and loads, and turns the drivers' errors into the service's (``errors.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import Row, func, insert, select, text, update
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..services.credentials import hash_secret, new_api_key
from ..services.errors import NotFound
from ..services.moves import now_ms
from ..services.policy import AppPolicy
from ..services.ports import (
    AppRecord,
    Claim,
    GameChange,
    GameRecord,
    LogRecord,
    NewGame,
    SeatGame,
    SeatToken,
    SessionKind,
    SessionRecord,
    Stake,
    TokenRecord,
)
from ..table.deadlines import lease_deadline, turn_deadline
from ..table.game import FINISHED, PLATFORM_SCHEMA_VERSION, WAITING, Action, GameState, Setup
from . import ledger, postgres, sqlite
from .codec import (
    action_from_text,
    action_text,
    dumps,
    loads,
    setup_from_text,
    state_from_text,
    state_text,
)
from .database import busy_timeout_ms, reader
from .errors import Bounded
from .models import (
    App,
    Game,
    MoveLog,
    PlayerSession,
    PlayerToken,
    SeatPresence,
    TableMatch,
    TournamentGame,
    TournamentRecord,
)
from .move_path import Dialect, GameInsert, MovePathAccess, MoveWrite, epoch_seconds

__all__ = ["Store", "move_path_access"]

# Above every version a game can reach (BIGINT), for "the log to its end".
MAX_VERSION = 2**62


# The states kept for the next read of their games (``Store.seat_game``): at most
# this many games' (beyond, all are dropped and kept afresh); 0 keeps none, which
# decodes every snapshot read (``TRANCA_KEEP_STATES=0``, for measuring the gain).
KEEP_STATES = int(os.environ.get("TRANCA_KEEP_STATES", "4096"))


class Store:
    """All database access of the service. Holds an engine; of games, only the state
    a player's move of this process just wrote, for the next read of that game at
    that version (a version names one state: the write's compare-and-swap), handed
    out once and never written back, so a read at any other version, or in another
    process, decodes the snapshot as ever."""

    def __init__(
        self,
        engine: AsyncEngine,
        observe: Callable[[str, float], None] | None = None,
        timeout: float = 5.0,
        pool_size: int = 10,
        snapshot_schema: int = PLATFORM_SCHEMA_VERSION,
        pgbouncer: bool = False,
    ) -> None:
        self.engine = engine
        self.timeout = timeout
        self.snapshot_schema = snapshot_schema  # written; both are read (codec.py)
        # The move path's own access to the same database (see direct.py).
        self.move_path = move_path_access(
            engine.url,
            pool_size=pool_size,
            timeout_ms=int(timeout * 1000),
            busy_timeout_ms=busy_timeout_ms(int(timeout * 1000)),
            pgbouncer=pgbouncer,
        )
        self.reads = reader(engine)
        self.is_postgres = engine.dialect.name == "postgresql"
        # The writes of games and of the log inside a SQLAlchemy transaction.
        self.sql: Dialect = postgres if self.is_postgres else sqlite
        # SQLite has one writer at a time; queueing writers here instead of in
        # SQLite's busy handler (which sleeps and retries) keeps latency flat.
        self._write_lock: asyncio.Lock | None = None if self.is_postgres else asyncio.Lock()
        self._observe = observe
        # Game id -> (version, the state a player's move wrote at it): see KEEP_STATES.
        self._kept: dict[str, tuple[int, GameState]] = {}
        self._kept_hits = 0

    def bounded(self) -> Bounded:
        """A bounded call on the move path's connections from another of the store's
        modules (chat's): the store's deadline, driver errors as ``Unavailable``."""
        return self._guard()

    def _guard(self, seconds: float | None = None) -> Bounded:
        """A bounded database call whose driver errors become ``Unavailable``
        (``seconds``: longer than the store's timeout, for a large write)."""
        return Bounded(self.timeout if seconds is None else max(seconds, self.timeout))

    def _one_writer(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """On SQLite, every write of this process waits here, in turn, rather than in
        SQLite's busy handler (which sleeps in growing steps): see ``_write_lock``."""
        return self._write_lock or contextlib.nullcontext()

    @contextlib.asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncConnection]:
        """A bounded read connection for the store's modules (ledger, settlement,
        tournaments, players): driver errors and timeouts become ``Unavailable``."""
        async with self._guard(), self.reads.connect() as conn:
            yield conn

    @contextlib.asynccontextmanager
    async def writing(self, seconds: float | None = None) -> AsyncIterator[AsyncConnection]:
        """One bounded transaction for the store's modules, taken in turn with this
        process's other writers on SQLite (``_one_writer``): committed when the block
        ends, rolled back if it raises; driver errors and timeouts become
        ``Unavailable``. ``seconds``: a longer bound for a transaction of many
        statements (a large tournament round's games), each statement still bound by
        the database's own statement timeout."""
        async with self._guard(seconds), self._one_writer(), self.engine.begin() as conn:
            yield conn

    def _timed(self, op: str, started: float) -> None:
        if self._observe is not None:
            self._observe(op, time.perf_counter() - started)

    async def close(self) -> None:
        await self.move_path.close()
        await self.engine.dispose()

    async def ping(self) -> None:
        async with self._guard(), self.reads.connect() as conn:
            await conn.execute(text("SELECT 1"))

    # ----- apps --------------------------------------------------------------------

    async def create_app(
        self, name: str, permissions: frozenset[str] = frozenset()
    ) -> tuple[str, str]:
        """A new app and its API key (returned once; only its hash is stored)."""
        key = new_api_key()
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

    async def chip_balance(self, app_id: str, player_id: str) -> int:
        """A player's chips now (0 for a player the app never granted any)."""
        from ..platform import chips

        async with self.reading() as conn:
            return await ledger.balance(conn, app_id, chips.player_account(player_id))

    async def app_by_key(self, key: str) -> AppRecord | None:
        started = time.perf_counter()
        async with self._guard():
            row = await self.move_path.app(hash_secret(key))
        self._timed("app_by_key", started)
        if row is None:
            return None
        perms = frozenset(p for p in row.permissions.split(",") if p)
        return AppRecord(row.id, row.name, perms)

    async def session(self, access_hash: str, now: int) -> SessionRecord | None:
        """A player session's, by its access token's hash: live while neither it nor
        its app is revoked and the token has not expired."""
        started = time.perf_counter()
        q = (
            select(PlayerSession, App.policy)
            .join(App, App.id == PlayerSession.app_id)
            .where(
                PlayerSession.access_hash == access_hash,
                PlayerSession.revoked.is_(False),
                PlayerSession.access_expires_at > now,
                App.revoked.is_(False),
            )
        )
        async with self.reading() as conn:
            row = (await conn.execute(q)).first()
        self._timed("session", started)
        return None if row is None else session_record(row)

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
            row = await self.move_path.seat_game(token_hash, now_ms())
        self._timed("seat_game", started)
        if row is None:
            return None
        version = int(row.version)
        kept = self._kept.pop(row.game_id, None)
        if kept is not None and kept[0] == version:
            # The state this process wrote at this very version (a game's version
            # names one state): no decoding. Taken out, so it is used once.
            state = kept[1]
            self._kept_hits += 1
        else:
            state = state_from_text(row.snapshot, row.setup)
        return SeatGame(
            TokenRecord(row.game_id, int(row.seat), row.player_name, token_hash),
            row.app_id,
            version,
            state,
            row.deadline_at,
        )

    async def add_token(self, game_id: str, token: SeatToken) -> None:
        """A token written without a change of the game: a spectator's, or a new one
        for a seat its player already holds (a session joining again)."""
        await self.add_tokens([(game_id, token)])

    async def add_tokens(self, tokens: Sequence[tuple[str, SeatToken]]) -> None:
        """Tokens written without a change of their games (``(game_id, token)``
        pairs), in one transaction: the only insert of ``player_tokens`` besides a
        change's own (a join's, in ``postgres.py`` and ``sqlite.py``)."""
        if not tokens:
            return
        async with self._guard(), self._one_writer(), self.engine.begin() as conn:
            await conn.execute(
                insert(PlayerToken),
                [
                    {
                        "token_hash": t.token_hash,
                        "game_id": game_id,
                        "seat": t.seat,
                        "player_name": t.player_name,
                        "revoked": False,
                        "player_id": t.player_id,
                        "address": t.address,
                        "expires_at": t.expires_at,
                        "session_id": t.session_id,
                    }
                    for game_id, t in tokens
                ],
            )

    # ----- games -------------------------------------------------------------------

    def game_insert(self, new: NewGame) -> GameInsert:
        """A new game's row (its id: ``new.game_id``, or a new one)."""
        setup = new.setup
        return GameInsert(
            new.game_id or uuid.uuid4().hex,
            new.app_id,
            new.state.status,
            setup.rules.name,
            setup.players,
            new.label,
            dumps(setup.to_dict()),
            state_text(new.state, self.snapshot_schema),
            self.snapshot_schema,
            new.invite_hash,
            new.owner_id,
        )

    async def create_game(self, new: NewGame) -> str:
        """Store a new game at version 0; its id."""
        row = self.game_insert(new)
        async with self._guard(), self._one_writer():
            await self.move_path.insert_game(row)
        return row.id

    async def invite_hash(self, game_id: str) -> str | None:
        """SHA-256 of a private table's invite code; None for a public table."""
        async with self._guard(), self.reads.connect() as conn:
            row = (await conn.execute(select(Game.invite_hash).where(Game.id == game_id))).first()
        return None if row is None else row.invite_hash

    async def game(self, game_id: str) -> GameRecord:
        started = time.perf_counter()
        async with self._guard():
            row = await self.move_path.game(game_id)
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
            # A rematch's next match whose seats are held for the last match's
            # players (until its deadline: services/rematch.py) is not open yet.
            held_for_rematch = Game.id.in_(select(TableMatch.game_id)) & Game.deadline_at.is_not(
                None
            )
            q = q.where(
                Game.status == WAITING,
                Game.invite_hash.is_(None),
                seats_held + robots_seated < Game.players,
                ~held_for_rematch,
            )
        q = q.order_by(Game.created_at.desc(), Game.id).limit(limit).offset(offset)
        async with self._guard(), self.reads.connect() as conn:
            rows = (await conn.execute(q)).all()
        return [game_record(r) for r in rows]

    async def log(self, game_id: str, after: int = 0, upto: int | None = None) -> list[LogRecord]:
        """The game's log after version ``after`` (up to ``upto``), in order. Through
        the driver, as the move path's reads: every open watch stream reads it on
        every move of its game, and through SQLAlchemy's pool a read cost four round
        trips (a liveness ping, BEGIN, the query, ROLLBACK)."""
        async with self._guard():
            rows = await self.move_path.log_rows(
                game_id, after, MAX_VERSION if upto is None else upto
            )
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

    async def duplicate_round_in_play(self, game_id: str) -> bool:
        """Whether ``game_id`` is a table of a duplicate tournament round some of whose
        games are not finished (GetReplay then hides the deals' decks and the seed: the
        other tables are dealt the same cards). False for a game of no tournament.
        Every table of a round is written in one transaction with its pairing, so the
        round's games read here are all of them."""
        link_q = select(TournamentGame.tournament_id, TournamentGame.round).where(
            TournamentGame.game_id == game_id
        )
        async with self.reading() as conn:
            link = (await conn.execute(link_q)).first()
            if link is None:
                return False
            config_q = select(TournamentRecord.config).where(
                TournamentRecord.id == link.tournament_id
            )
            config = (await conn.execute(config_q)).scalar_one_or_none()
            if config is None or not loads(config).get("duplicate", False):
                return False
            round_q = (
                select(Game.status)
                .join(TournamentGame, Game.id == TournamentGame.game_id)
                .where(
                    TournamentGame.tournament_id == link.tournament_id,
                    TournamentGame.round == link.round,
                )
            )
            statuses = (await conn.execute(round_q)).scalars().all()
        return any(status != FINISHED for status in statuses)

    async def count_games(self) -> dict[str, int]:
        async with self._guard(), self.reads.connect() as conn:
            rows = (
                await conn.execute(select(Game.status, func.count()).group_by(Game.status))
            ).all()
        return {str(r[0]): int(r[1]) for r in rows}

    # ----- the write of a game's change ---------------------------------------------

    async def commit(self, change: GameChange) -> float | None:
        """Write ``change`` whole if the game is still at ``change.version``: the time
        its log rows carry; or nothing: None. ``DuplicateRequest`` if its request id
        is in the log."""
        started = time.perf_counter()
        write = self.move_write(change)
        if change.stake is not None:
            written = await self._commit_staked(write, change.stake)
        else:
            async with self._guard(), self._one_writer():
                written = await self.move_path.write_move(write)
        self._timed("commit", started)
        if written is not None and change.keep_state and KEEP_STATES:
            if len(self._kept) >= KEEP_STATES:
                self._kept.clear()
            self._kept[change.game_id] = (write.new_version, change.state)
        return written

    def forget_states(self, game_ids: Iterable[str]) -> None:
        """Drop the states kept of ``game_ids``: their snapshots were rewritten
        outside a move (an erasure), at the same version."""
        for game_id in game_ids:
            self._kept.pop(game_id, None)

    def move_write(self, change: GameChange) -> MoveWrite:
        """A change as the databases write it: its snapshot and log row as text."""
        action = change.action
        return MoveWrite(
            change.game_id,
            change.version,
            change.state.status,
            state_text(change.state, self.snapshot_schema),
            action.seat,
            action_text(action),
            change.request_id,
            change.actor,
            change.new_token,
            change.revoke_seat,
            change.deadline_set,
            change.deadline_at,
            tuple((e.player_id, e.kind, dumps(e.payload)) for e in change.events)
            if change.events
            else (),
            tuple((a.seat, action_text(a), rid) for a, rid in change.then),
        )

    async def _commit_staked(self, w: MoveWrite, stake: Stake) -> float | None:
        """A change with every seat's stake taken into the match's pot, in one
        transaction: both or neither (``chips.InsufficientChips`` rolls it back)."""
        async with self._guard(), self._one_writer(), self.engine.begin() as conn:
            # This replica hints its own watchers after the commit (Moves._write).
            logged_at = await self.sql.run_change(conn, w, self.move_path.origin)
            if logged_at is None:
                return None
            await ledger.stake(conn, stake.app_id, w.game_id, list(stake.player_ids), stake.amount)
        return logged_at

    async def logged_request(self, game_id: str, request_id: str) -> tuple[int, Action] | None:
        """The version and action a request id was logged with, if it was."""
        async with self._guard(), self.reads.connect() as conn:
            row = (
                await conn.execute(
                    select(MoveLog.version, MoveLog.action).where(
                        MoveLog.game_id == game_id, MoveLog.request_id == request_id
                    )
                )
            ).first()
        return None if row is None else (int(row.version), action_from_text(row.action))

    async def current_version(self, game_id: str) -> int:
        async with self._guard(), self.reads.connect() as conn:
            row = (await conn.execute(select(Game.version).where(Game.id == game_id))).first()
        return -1 if row is None else int(row.version)

    # ----- timers, robots and presence (the sweeper's side) ------------------------

    async def claim_due(self, now: int, lease_ms: int, limit: int) -> list[Claim]:
        """Claim up to ``limit`` overdue games for ``lease_ms`` (see ``Claim``)."""
        started = time.perf_counter()
        async with self._guard(), self._one_writer():
            claims = await self.move_path.claim_due(now, lease_deadline(now + lease_ms), limit)
        self._timed("claim", started)
        return claims

    async def set_deadline(self, claim: Claim, version: int, deadline_at: int | None) -> bool:
        """A claimed game's next deadline, unless it changed since (False then)."""
        if deadline_at is not None:
            deadline_at = turn_deadline(deadline_at)
        async with self._guard(), self._one_writer():
            return await self.move_path.set_deadline(
                claim.game_id, version, claim.lease_until, deadline_at
            )

    async def touch_presence(self, game_id: str, seat: int, now: int | None = None) -> None:
        """The seat's player showed they are there (a heartbeat, a call, a watch)."""
        async with self._guard(), self._one_writer():
            await self.move_path.touch_presence(game_id, seat, now_ms() if now is None else now)

    async def lease_watches(self, game_ids: list[str], seconds: float) -> None:
        """Moves of these games hint watchers on other replicas for ``seconds`` from
        now (store/watch_leases.py); nothing on SQLite."""
        if game_ids:
            async with self._guard():
                await self.move_path.lease_watches(game_ids, seconds)

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


def session_record(s: Any) -> SessionRecord:
    """A session's row with its app's policy (a select of PlayerSession, App.policy)."""
    return SessionRecord(
        s.id,
        s.app_id,
        s.player_id,
        s.display_name,
        SessionKind(s.kind),
        s.access_hash,
        int(s.refresh_expires_at),
        AppPolicy.from_dict(loads(s.policy)),
    )


def game_record(row: Row[Any]) -> GameRecord:
    """A ``games`` row read through SQLAlchemy, as the use cases see a game."""
    return GameRecord(
        id=row.id,
        app_id=row.app_id,
        status=row.status,
        version=int(row.version),
        label=row.label,
        created_at=epoch_seconds(row.created_at),
        state=state_from_text(row.snapshot, row.setup),
        deadline_at=row.deadline_at,
    )


def move_path_access(
    url: URL, *, pool_size: int, timeout_ms: int, busy_timeout_ms: int, pgbouncer: bool = False
) -> MovePathAccess:
    """The move path's access to the database at ``url`` (``direct.py``)."""
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if not database or database == ":memory:":
            raise ValueError("the service needs a SQLite file, not an in-memory database")
        return sqlite.SqliteMovePath(database, busy_timeout_ms)
    return postgres.PostgresMovePath(url, pool_size, timeout_ms, pgbouncer=pgbouncer)
