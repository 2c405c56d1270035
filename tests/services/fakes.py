"""An in-memory repository for the use cases' unit tests (cosmicpython's fake): the
ports of ``tranca.services`` kept in dictionaries, with the semantics the database
adapters give them (``tranca.store``): a change is written only at the version it was
made on, a request id once per game, a token works while it is not revoked, not
expired and its app not revoked; a sweeper's claim moves a due game's deadline to its
lease. The same use cases run on SQLite and PostgreSQL in the service tests."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from tranca.app.game import Action, GameState, Setup
from tranca.app.notifications import Event
from tranca.platform import chips
from tranca.services.credentials import hash_secret, new_api_key
from tranca.services.errors import DuplicateRequest, NotFound
from tranca.services.notifications import StoredEvent
from tranca.services.ports import (
    AppRecord,
    Claim,
    GameChange,
    GameRecord,
    LogRecord,
    NewGame,
    SeatGame,
    SeatToken,
    TokenRecord,
)
from tranca.services.webhooks import ClaimedDelivery, DeliveryRecord, Outcome, WebhookConfig


def _copy(state: GameState) -> GameState:
    """The state as a database would give it back: through its stored form, so that
    no caller shares it with the repository."""
    return GameState.from_dict(state.to_dict(with_setup=False), state.setup)


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


class InMemoryRepository:
    """Every port the game use cases use, in memory. ``now`` is the repository's clock
    (epoch ms), which a test moves forward."""

    def __init__(self, now: int = 1_700_000_000_000) -> None:
        self.now = now
        self.games: dict[str, StoredGame] = {}
        self.tokens: dict[str, StoredToken] = {}  # by hash
        self.apps: dict[str, tuple[AppRecord, str, bool]] = {}  # id -> (app, key hash, revoked)
        self.presence: dict[tuple[str, int], int] = {}
        self.chips: dict[tuple[str, str], int] = {}
        self.commits = 0
        self._order = itertools.count()
        # Notifications: (app id, event) in the order written; each app's webhook
        # (url, secret, enabled); the outbox, by delivery id.
        self.events: list[tuple[str, StoredEvent]] = []
        self.webhooks: dict[str, tuple[str, str, bool]] = {}
        self.outbox: dict[int, StoredDelivery] = {}

    # ----- apps and credentials -------------------------------------------------------

    def add_app(
        self, name: str = "app", permissions: frozenset[str] = frozenset()
    ) -> tuple[AppRecord, str]:
        key = new_api_key()
        app = AppRecord(uuid.uuid4().hex, name, permissions)
        self.apps[app.id] = (app, hash_secret(key), False)
        return app, key

    def revoke_app(self, app_id: str) -> None:
        app, key_hash, _ = self.apps[app_id]
        self.apps[app_id] = (app, key_hash, True)

    async def app_by_key(self, key: str) -> AppRecord | None:
        wanted = hash_secret(key)
        for app, key_hash, revoked in self.apps.values():
            if key_hash == wanted and not revoked:
                return app
        return None

    def _working(self, token: str) -> StoredToken | None:
        found = self.tokens.get(hash_secret(token))
        if found is None or found.revoked or found.token.expires_at <= self.now:
            return None
        game = self.games[found.game_id]
        if self.apps[game.app_id][2]:
            return None
        return found

    async def token(self, token: str) -> TokenRecord | None:
        found = self._working(token)
        if found is None:
            return None
        t = found.token
        return TokenRecord(found.game_id, t.seat, t.player_name, t.token_hash)

    async def seat_game(self, token: str) -> SeatGame | None:
        found = self._working(token)
        if found is None:
            return None
        g = self.games[found.game_id]
        t = found.token
        return SeatGame(
            TokenRecord(g.id, t.seat, t.player_name, t.token_hash),
            g.app_id,
            g.version,
            _copy(g.state),
            g.deadline_at,
        )

    async def add_token(self, game_id: str, token: SeatToken) -> None:
        self.tokens[token.token_hash] = StoredToken(game_id, token, self.now / 1000)

    # ----- games ------------------------------------------------------------------------

    async def create_game(self, new: NewGame) -> str:
        game_id = new.game_id or uuid.uuid4().hex
        self.games[game_id] = StoredGame(
            game_id,
            new.app_id,
            0,
            _copy(new.state),
            new.label,
            self.now / 1000 + next(self._order) * 1e-6,
            new.invite_hash,
        )
        return game_id

    def _stored(self, game_id: str) -> StoredGame:
        g = self.games.get(game_id)
        if g is None:
            raise NotFound(f"no game {game_id}")
        return g

    def _record(self, g: StoredGame) -> GameRecord:
        status = str(g.state.status)
        return GameRecord(
            g.id, g.app_id, status, g.version, g.label, g.created_at, _copy(g.state),
            g.deadline_at,
        )  # fmt: skip

    async def game(self, game_id: str) -> GameRecord:
        return self._record(self._stored(game_id))

    async def setup_of(self, game_id: str) -> Setup:
        return self._stored(game_id).state.setup

    async def current_version(self, game_id: str) -> int:
        g = self.games.get(game_id)
        return -1 if g is None else g.version

    async def invite_hash(self, game_id: str) -> str | None:
        return self._stored(game_id).invite_hash

    async def list_games(
        self, app_id: str, status: str | None, limit: int, offset: int, open_only: bool = False
    ) -> list[GameRecord]:
        games = [g for g in self.games.values() if g.app_id == app_id]
        if status:
            games = [g for g in games if g.state.status == status]
        if open_only:
            games = [
                g
                for g in games
                if g.state.status == "waiting"
                and g.invite_hash is None
                and sum(1 for s in g.state.seats if s.taken) < g.state.setup.players
            ]
        games.sort(key=lambda g: (-g.created_at, g.id))
        return [self._record(g) for g in games[offset : offset + limit]]

    async def log(self, game_id: str, after: int = 0, upto: int | None = None) -> list[LogRecord]:
        rows = self._stored(game_id).log
        return [r for r in rows if after < r.version and (upto is None or r.version <= upto)]

    async def logged_request(self, game_id: str, request_id: str) -> tuple[int, Action] | None:
        for row in self._stored(game_id).log:
            if row.request_id == request_id:
                return row.version, row.action
        return None

    async def deadline_of(self, game_id: str) -> tuple[int, int | None]:
        g = self.games.get(game_id)
        return (-1, None) if g is None else (g.version, g.deadline_at)

    async def duplicate_round_in_play(self, game_id: str) -> bool:
        return False  # no tournaments here

    async def commit(self, change: GameChange) -> bool:
        """As each database's change: all or nothing, at the version read only."""
        g = self._stored(change.game_id)
        if g.version != change.version:
            return False
        if change.request_id and any(r.request_id == change.request_id for r in g.log):
            raise DuplicateRequest(f"request id {change.request_id} is in the log")
        if change.stake is not None:
            s = change.stake
            for player in s.player_ids:
                balance = self.chips.get((s.app_id, player), 0)
                if balance < s.amount:
                    raise chips.InsufficientChips(player, balance, s.amount)
            for player in s.player_ids:
                self.chips[(s.app_id, player)] -= s.amount
        g.version += 1
        g.state = _copy(change.state)
        if change.deadline_set:
            g.deadline_at = change.deadline_at
        g.log.append(
            LogRecord(
                g.version,
                change.action.seat,
                change.action,
                change.request_id,
                change.actor,
                self.now / 1000,
            )
        )
        if change.revoke_seat is not None:
            for stored in self.tokens.values():
                if stored.game_id == g.id and stored.token.seat == change.revoke_seat:
                    stored.revoked = True
        if change.new_token is not None:
            await self.add_token(g.id, change.new_token)
        self._write_events(g.app_id, change.events)
        self.commits += 1
        return True

    # ----- notifications ----------------------------------------------------------------

    def _write_events(self, app_id: str, events: Sequence[Event]) -> list[int]:
        """As the databases do in the change's transaction: each event, and its
        delivery if the app has an enabled webhook."""
        ids = []
        hooked = self.webhooks.get(app_id, ("", "", False))[2]
        for e in events:
            stored = StoredEvent(
                len(self.events) + 1, e.player_id, str(e.kind), e.game_id, dict(e.payload),
                self.now,
            )  # fmt: skip
            self.events.append((app_id, stored))
            ids.append(stored.id)
            if hooked:
                delivery_id = len(self.outbox) + 1
                self.outbox[delivery_id] = StoredDelivery(
                    delivery_id, stored.id, app_id, next_attempt_at=self.now
                )
        return ids

    async def player_events(
        self, app_id: str, player_id: str, after_id: int, limit: int
    ) -> list[StoredEvent]:
        found = [
            e
            for a, e in self.events
            if a == app_id and e.player_id == player_id and e.id > after_id
        ]
        return found[:limit]

    async def publish_events(self, app_id: str, events: Sequence[Event]) -> list[int]:
        return self._write_events(app_id, events)

    async def set_webhook(self, app_id: str, url: str, secret: str) -> None:
        self.webhooks[app_id] = (url, secret, True)

    async def webhook(self, app_id: str) -> WebhookConfig | None:
        found = self.webhooks.get(app_id)
        return None if found is None else WebhookConfig(found[0], found[2], self.now / 1000)

    async def delete_webhook(self, app_id: str) -> bool:
        return self.webhooks.pop(app_id, None) is not None

    def _delivery(self, d: StoredDelivery) -> DeliveryRecord:
        event = self.events[d.event_id - 1][1]
        return DeliveryRecord(
            d.id, d.event_id, event.kind, event.player_id, d.status, d.attempts,
            d.next_attempt_at if d.status == "pending" else None, d.last_status_code,
            d.last_error, d.delivered_at, event.created_at,
        )  # fmt: skip

    async def deliveries(
        self, app_id: str, status: str | None, before_id: int | None, limit: int
    ) -> list[DeliveryRecord]:
        rows = [
            d
            for d in sorted(self.outbox.values(), key=lambda d: -d.id)
            if d.app_id == app_id
            and (status is None or d.status == status)
            and (before_id is None or d.id < before_id)
        ]
        return [self._delivery(d) for d in rows[:limit]]

    async def delivery(self, app_id: str, delivery_id: int) -> DeliveryRecord | None:
        d = self.outbox.get(delivery_id)
        return None if d is None or d.app_id != app_id else self._delivery(d)

    async def redeliver(self, app_id: str, delivery_id: int, now: int) -> bool:
        d = self.outbox.get(delivery_id)
        if d is None or d.app_id != app_id or d.status != "failed":
            return False
        d.status, d.attempts, d.next_attempt_at, d.lease_until = "pending", 0, now, None
        return True

    async def claim_deliveries(
        self, now: int, lease_until: int, limit: int
    ) -> list[ClaimedDelivery]:
        due = sorted(
            (d for d in self.outbox.values() if d.status == "pending" and d.next_attempt_at <= now),
            key=lambda d: d.next_attempt_at,
        )[:limit]
        out = []
        for d in due:
            d.next_attempt_at = d.lease_until = lease_until
            d.attempts += 1
            url, secret, enabled = self.webhooks.get(d.app_id, (None, None, False))
            live = enabled and url is not None
            out.append(
                ClaimedDelivery(
                    d.id, d.attempts, lease_until, self.events[d.event_id - 1][1],
                    url if live else None, secret if live else None,
                )
            )  # fmt: skip
        return out

    async def record(self, outcomes: Sequence[Outcome]) -> None:
        for o in outcomes:
            d = self.outbox[o.delivery_id]
            if d.status != "pending":
                continue
            if o.error is None:
                d.status, d.delivered_at, d.lease_until = "delivered", o.at, None
                d.last_status_code, d.last_error = o.status_code, None
            elif d.lease_until == o.lease_until:
                d.lease_until, d.last_status_code, d.last_error = None, o.status_code, o.error
                if o.next_attempt_at is None:
                    d.status = "failed"
                else:
                    d.next_attempt_at = o.next_attempt_at

    async def prune(self, events_before: int, delivered_before: int, limit: int) -> int:
        gone = [
            i
            for i, d in self.outbox.items()
            if d.status == "delivered" and (d.delivered_at or 0) < delivered_before
        ][:limit]
        for i in gone:
            del self.outbox[i]
        return len(gone)

    # ----- chips, presence and the sweeper's side -------------------------------------

    async def chip_balance(self, app_id: str, player_id: str) -> int:
        return self.chips.get((app_id, player_id), 0)

    async def touch_presence(self, game_id: str, seat: int) -> None:
        key = (game_id, seat)
        self.presence[key] = max(self.presence.get(key, 0), self.now)

    async def last_seen_ms(self, game_id: str, seat: int) -> int:
        seen = self.presence.get((game_id, seat), 0)
        acted = max(
            (
                int(r.created_at * 1000)
                for r in self._stored(game_id).log
                if r.seat == seat and r.actor == "player"
            ),
            default=0,
        )
        joined = max(
            (
                int(t.created_at * 1000)
                for t in self.tokens.values()
                if t.game_id == game_id and t.token.seat == seat and not t.revoked
            ),
            default=0,
        )
        return max(seen, acted, joined)

    async def claim_due(self, now: int, lease_ms: int, limit: int) -> list[Claim]:
        due = sorted(
            (g for g in self.games.values() if g.deadline_at is not None and g.deadline_at <= now),
            key=lambda g: g.deadline_at or 0,
        )[:limit]
        claims = []
        for g in due:
            lease = (now + lease_ms) | 1
            claims.append(Claim(g.id, g.version, g.deadline_at or 0, lease))
            g.deadline_at = lease
        return claims

    async def set_deadline(self, claim: Claim, version: int, deadline_at: int | None) -> bool:
        g = self._stored(claim.game_id)
        if g.version != version or g.deadline_at != claim.lease_until:
            return False
        g.deadline_at = None if deadline_at is None else deadline_at & ~1
        return True


class Notes:
    """The hub's stand-in: a notifier that remembers what it was told and wakes the
    watchers subscribed to the game, and watch leases that are only counted."""

    def __init__(self) -> None:
        self.published: list[tuple[str, int]] = []
        self.leases: list[str] = []
        self._watchers: dict[str, set[asyncio.Event]] = {}

    def publish(self, game_id: str, version: int) -> None:
        self.published.append((game_id, version))
        for event in self._watchers.get(game_id, ()):
            event.set()

    @contextlib.contextmanager
    def subscribe(self, game_id: str) -> Iterator[asyncio.Event]:
        event = asyncio.Event()
        self._watchers.setdefault(game_id, set()).add(event)
        try:
            yield event
        finally:
            self._watchers[game_id].discard(event)

    async def hold(self, game_id: str) -> None:
        self.leases.append(game_id)
