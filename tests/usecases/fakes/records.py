"""The rows the in-memory repository keeps, as the database's tables hold them."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from tranca.services.notifications import StoredEvent
from tranca.services.policy import AppPolicy
from tranca.services.ports import (
    AppRecord,
    LogRecord,
    SeatToken,
)
from tranca.services.quick_play import TicketRecord, TicketStatus
from tranca.services.sessions import (
    NewSession,
)
from tranca.table.game import GameState


def _copy(state: GameState) -> GameState:
    """The state as a database would give it back: through its stored form, so that
    no caller shares it with the repository."""
    return GameState.from_dict(state.to_dict(with_setup=False), state.created)


@dataclass
class StoredGame:
    id: str
    app_id: str
    version: int
    state: GameState
    label: str
    created_at: float
    invite_hash: str | None
    deadline_at: int | None = None
    log: list[LogRecord] = field(default_factory=list)
    owner_id: str | None = None  # the table's owner (services/invitations.py)


@dataclass
class StoredDelivery:
    id: int
    event_id: int
    app_id: str
    status: str = "pending"
    attempts: int = 0
    next_attempt_at: int = 0
    lease_until: int | None = None
    last_status_code: int | None = None
    last_error: str | None = None
    delivered_at: int | None = None


@dataclass
class StoredToken:
    game_id: str
    token: SeatToken
    created_at: float
    revoked: bool = False


@dataclass
class StoredSession:
    new: NewSession
    access_hash: str
    access_expires_at: int
    refresh_hash: str
    refresh_expires_at: int
    previous_refresh_hash: str | None = None
    family_hash: str | None = None
    last_used_at: int = 0
    revoked: bool = False


OPEN_TICKETS = (TicketStatus.FORMING, TicketStatus.WAITING)


class MemoryState:
    """The in-memory repository's rows, shared by the port families' fakes. ``now``
    is the repository's clock (epoch ms), which a test moves forward."""

    def __init__(self, now: int = 1_700_000_000_000) -> None:
        self.now = now
        self.games: dict[str, StoredGame] = {}
        self.tokens: dict[str, StoredToken] = {}  # by hash
        self.apps: dict[str, tuple[AppRecord, str, bool]] = {}  # id -> (app, key hash, revoked)
        self.presence: dict[tuple[str, int], int] = {}
        self.chips: dict[tuple[str, str], int] = {}
        self.policies: dict[str, AppPolicy] = {}
        self.sessions: dict[str, StoredSession] = {}  # by session id
        self.tickets: dict[str, TicketRecord] = {}
        self.commits = 0
        self._order = itertools.count()
        # Notifications: (app id, event) in the order written; each app's webhook
        # (url, secret, enabled); the outbox, by delivery id.
        self.events: list[tuple[str, StoredEvent]] = []
        self.webhooks: dict[str, tuple[str, str, bool]] = {}
        self.outbox: dict[int, StoredDelivery] = {}
