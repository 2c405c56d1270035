"""The move path's database access, one level below SQLAlchemy: what both databases'
drivers share (the rows, the reads' SQL), the module of each database beside it
(``postgres.py``, ``sqlite.py``).

A move costs two round trips: one read (the caller's seat and its game's snapshot,
joined on the player token) and one write (the change of the game: one statement on
PostgreSQL, one short transaction on SQLite).

Why not SQLAlchemy here: profiled under load, Core spent more time building,
caching and adapting each statement than PostgreSQL spent running it, and on
SQLite every statement crossed to aiosqlite's thread and back (docs/PERFORMANCE.md
has the profile). So this path speaks to the drivers with fixed SQL: a small pool of
asyncpg connections on PostgreSQL (each statement is prepared once per connection),
and the standard library's sqlite3 on SQLite, on the event loop itself unless it
would have to wait for another process's lock. The schema stays SQLAlchemy's and
Alembic's; only these statements are written out, and the tests run them on both
databases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncConnection

from ..services.ports import Claim, SeatToken


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A player token's seat and its game's current row."""

    game_id: str
    seat: int
    player_name: str
    app_id: str
    version: int
    snapshot: str
    setup: str
    deadline_at: int | None  # when the sweeper looks at the game next (epoch ms)


@dataclass(frozen=True, slots=True)
class GameRow:
    id: str
    app_id: str
    status: str
    version: int
    label: str
    created_at: float  # seconds since the epoch
    snapshot: str
    setup: str
    deadline_at: int | None = None  # epoch ms


@dataclass(frozen=True, slots=True)
class AppRow:
    id: str
    name: str
    permissions: str


@dataclass(frozen=True, slots=True)
class GameInsert:
    id: str
    app_id: str
    status: str
    preset: str
    players: int
    label: str
    setup: str
    snapshot: str
    snapshot_schema: int
    invite_hash: str | None = None  # a private table's, with the row: never without it
    owner_id: str | None = None  # the table's owner, if it has one


# A player's event as a change writes it: player id, kind, payload (JSON text).
EventWrite = tuple[str, str, str]
# A further log row of a change that logs several moves (a turn): seat, action (text),
# request id. The k-th of them (from 1) is logged at ``version + 1 + k``.
LogWrite = tuple[int, str, str | None]


@dataclass(frozen=True, slots=True)
class MoveWrite:
    """The new snapshot of a game at ``version + 1`` and the log row that made it,
    with, for the rarer actions, a seat's token to add or a seat's tokens to revoke."""

    game_id: str
    version: int  # the version the snapshot was read at (the compare-and-swap guard)
    status: str
    snapshot: str
    seat: int
    action: str
    request_id: str | None
    actor: str
    new_token: SeatToken | None = None
    revoke_seat: int | None = None
    # games.deadline_at, written in the same statement as the move: set to
    # ``deadline_at`` (NULL when None) if ``deadline_set``, else left as it is. Tables
    # without timers never set it (see app.deadlines.next_deadline).
    deadline_set: bool = False
    deadline_at: int | None = None
    # The players' events written with the change: (player id, kind, payload as JSON
    # text). Empty for most changes (seats without player ids, moves within a turn).
    events: tuple[EventWrite, ...] = ()
    # The rows logged after the first, in order, when the change is a sequence of
    # moves (a turn in one request): the snapshot is then the state after the last,
    # at ``version + 1 + len(then)``, and every move keeps its own row and version.
    then: tuple[LogWrite, ...] = ()

    @property
    def new_version(self) -> int:
        return self.version + 1 + len(self.then)


class MovePathAccess(Protocol):
    """The move path's operations, on one database."""

    # The name this replica's writes give their hint (a PostgreSQL NOTIFY), which
    # its own listener holds back (store/hints.py); None where no hint crosses
    # processes (SQLite).
    origin: str | None

    async def seat_game(self, token_hash: str, now_ms: int) -> SeatRow | None:
        """The seat of a token valid at ``now_ms`` and its game's row (SEAT_GAME_SQL)."""
        ...

    async def game(self, game_id: str) -> GameRow | None: ...

    async def app(self, key_hash: str) -> AppRow | None: ...

    async def insert_game(self, game: GameInsert) -> None: ...

    async def write_move(self, write: MoveWrite) -> float | None:
        """A change of a game: when written, the time its log rows carry (seconds
        since the epoch, as ``epoch_seconds`` reads them back); None when the game is
        no longer at ``write.version``; ``DuplicateRequest`` when its request id is
        logged."""
        ...

    async def claim_due(self, now_ms: int, lease_until: int, limit: int) -> list[Claim]:
        """Up to ``limit`` games whose deadline is at or before ``now_ms``, their
        deadline moved to ``lease_until`` atomically: each is claimed by one caller."""
        ...

    async def set_deadline(
        self, game_id: str, version: int, held: int, deadline_at: int | None
    ) -> bool:
        """The deadline of a claimed game (still at ``version`` and at the lease
        ``held``) set to ``deadline_at``; False when something was written since."""
        ...

    async def touch_presence(self, game_id: str, seat: int, now_ms: int) -> None: ...

    async def lease_watches(self, game_ids: list[str], seconds: float) -> None:
        """Moves of these games hint watchers for ``seconds`` from now (PostgreSQL;
        on SQLite, where no hint crosses processes, nothing)."""
        ...

    async def log_rows(self, game_id: str, after: int, upto: int) -> list[Any]:
        """The game's log rows with ``after < version <= upto``, in order: version,
        seat, action, request id, actor, created_at (as the driver gives it)."""
        ...

    async def close(self) -> None: ...


class Dialect(Protocol):
    """The writes of games and of the move log inside a SQLAlchemy transaction, in one
    database's SQL: each of ``postgres.py`` and ``sqlite.py`` is one (the module
    itself), and nothing else writes those tables."""

    async def run_change(
        self, conn: AsyncConnection, w: MoveWrite, origin: str | None = None
    ) -> float | None:
        """A change of a game: the time its log rows carry if written, None if the
        game moved on."""
        ...

    async def insert_game_in(self, conn: AsyncConnection, g: GameInsert) -> None:
        """A new game's row."""
        ...

    async def mark_settled(self, conn: AsyncConnection, game_ids: Sequence[str]) -> list[str]:
        """The settled flag of the games still finished and unsettled; their ids."""
        ...


# The log's rows after a version (a watch stream's read on every hint, a replay's).
LOG_SQL = (
    "SELECT version, seat, action, request_id, actor, created_at FROM move_log"
    " WHERE game_id = {0} AND version > {1} AND version <= {2} ORDER BY version"
)
GAME_SQL = (
    "SELECT id, app_id, status, version, label, created_at, snapshot, setup, deadline_at"
    " FROM games WHERE id = {0}"
)
APP_SQL = "SELECT id, name, permissions FROM apps WHERE key_hash = {0} AND NOT revoked"
# A token works while it is not revoked, not expired (``{1}``: now, epoch ms), and its
# game's app is not revoked: revoking an app ends every credential of it at once.
SEAT_GAME_SQL = (
    "SELECT t.game_id, t.seat, t.player_name, g.app_id, g.version, g.snapshot,"
    " g.setup, g.deadline_at"
    " FROM player_tokens t JOIN games g ON g.id = t.game_id JOIN apps a ON a.id = g.app_id"
    " WHERE t.token_hash = {0} AND NOT t.revoked AND t.expires_at > {1} AND NOT a.revoked"
)


def new_game_values(g: GameInsert) -> tuple[Any, ...]:
    """A new game's row, in the order of both modules' INSERT_GAME_SQL."""
    return (
        g.id,
        g.app_id,
        g.status,
        g.preset,
        g.players,
        g.label,
        g.setup,
        g.snapshot,
        g.snapshot_schema,
        g.invite_hash,
        g.owner_id,
    )


def epoch_seconds(value: Any) -> float:
    """A stored timestamp as seconds since the epoch: asyncpg gives a datetime,
    sqlite3 the text SQLAlchemy wrote (UTC, without a zone)."""
    if value is None:
        return 0.0
    return float(utc_datetime(value).timestamp())


def utc_datetime(value: datetime | str) -> datetime:
    """A stored timestamp with its zone: SQLite gives back the UTC time it was given
    (as text through sqlite3) without its zone."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def game_row(row: Any) -> GameRow:
    return GameRow(
        row[0], row[1], row[2], int(row[3]), row[4], epoch_seconds(row[5]), row[6], row[7], row[8]
    )
