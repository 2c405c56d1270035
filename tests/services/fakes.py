"""An in-memory repository for the use cases' unit tests (cosmicpython's fake): the
ports of ``tranca.services`` kept in dictionaries, with the semantics the database
adapters give them (``tranca.store``): a change is written only at the version it was
made on, a request id once per game, a token works while it is not revoked, not
expired and its app not revoked; a sweeper's claim moves a due game's deadline to its
lease. The same use cases run on SQLite and PostgreSQL in the service tests."""

from __future__ import annotations

import contextlib
import itertools
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from tranca.app.game import Action, GameState, Setup
from tranca.app.notifications import Event
from tranca.platform import chips
from tranca.services.credentials import hash_secret, new_api_key
from tranca.services.errors import DuplicateRequest, NotFound
from tranca.services.lobby import Cursor
from tranca.services.notifications import StoredEvent
from tranca.services.policy import AppPolicy
from tranca.services.ports import (
    AppRecord,
    Claim,
    GameChange,
    GameRecord,
    LogRecord,
    NewGame,
    SeatGame,
    SeatToken,
    SessionRecord,
    TokenRecord,
)
from tranca.services.quick_play import AlreadyWaiting, PlannedTable, TicketRecord, TicketStatus
from tranca.services.sessions import (
    NewSession,
    RefreshOutcome,
    Revoked,
    Rotation,
    SessionInfo,
)
from tranca.services.webhooks import ClaimedDelivery, DeliveryRecord, Outcome, WebhookConfig
from tranca.store.notify import Signal


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


@dataclass
class StoredSession:
    new: NewSession
    access_hash: str
    access_expires_at: int
    refresh_hash: str
    refresh_expires_at: int
    previous_refresh_hash: str | None = None
    last_used_at: int = 0
    revoked: bool = False


OPEN_TICKETS = (TicketStatus.FORMING, TicketStatus.WAITING)


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

    # ----- player sessions --------------------------------------------------------------

    def _live_app(self, app_id: str) -> bool:
        return app_id in self.apps and not self.apps[app_id][2]

    async def app_policy(self, app_id: str) -> AppPolicy | None:
        return self.policies.get(app_id, AppPolicy()) if self._live_app(app_id) else None

    async def set_app_policy(self, app_id: str, policy: AppPolicy) -> None:
        self.policies[app_id] = policy

    async def create_session(self, new: NewSession) -> None:
        self.sessions[new.session_id] = StoredSession(
            new,
            new.access_hash,
            new.access_expires_at,
            new.refresh_hash,
            new.refresh_expires_at,
            last_used_at=new.now,
        )

    def _session_record(self, s: StoredSession) -> SessionRecord:
        n = s.new
        return SessionRecord(
            n.session_id,
            n.app_id,
            n.player_id,
            n.display_name,
            n.kind,
            s.access_hash,
            s.refresh_expires_at,
            self.policies.get(n.app_id, AppPolicy()),
        )

    async def session(self, access_hash: str, now: int) -> SessionRecord | None:
        for s in self.sessions.values():
            if (
                s.access_hash == access_hash
                and not s.revoked
                and s.access_expires_at > now
                and self._live_app(s.new.app_id)
            ):
                return self._session_record(s)
        return None

    async def rotate_refresh(
        self, rotation: Rotation
    ) -> tuple[RefreshOutcome, SessionRecord | None]:
        for s in self.sessions.values():
            if (
                s.refresh_hash == rotation.refresh_hash
                and not s.revoked
                and s.refresh_expires_at > rotation.now
                and self._live_app(s.new.app_id)
            ):
                policy = self.policies.get(s.new.app_id, AppPolicy())
                s.previous_refresh_hash = s.refresh_hash
                s.access_hash = rotation.access_hash
                s.access_expires_at = policy.access_expiry(rotation.now)
                s.refresh_hash = rotation.new_refresh_hash
                s.refresh_expires_at = policy.refresh_expiry(rotation.now)
                s.last_used_at = rotation.now
                return RefreshOutcome.ROTATED, self._session_record(s)
        for s in self.sessions.values():
            if s.previous_refresh_hash == rotation.refresh_hash:
                await self.end_session(s.new.session_id)
                return RefreshOutcome.REUSED, None
        return RefreshOutcome.UNKNOWN, None

    async def end_session(self, session_id: str) -> Revoked:
        s = self.sessions.get(session_id)
        ended = 0
        if s is not None and not s.revoked:
            s.revoked, ended = True, 1
        tokens = 0
        for t in self.tokens.values():
            if t.token.session_id == session_id and not t.revoked:
                t.revoked, tokens = True, tokens + 1
        return Revoked(ended, tokens)

    async def revoke_player(self, app_id: str, player_id: str) -> Revoked:
        ended = tokens = 0
        for s in self.sessions.values():
            if s.new.app_id == app_id and s.new.player_id == player_id and not s.revoked:
                s.revoked, ended = True, ended + 1
        for t in self.tokens.values():
            game = self.games[t.game_id]
            if game.app_id == app_id and t.token.player_id == player_id and not t.revoked:
                t.revoked, tokens = True, tokens + 1
        return Revoked(ended, tokens)

    async def list_sessions(
        self, app_id: str, player_id: str, live_only: bool, now: int, limit: int, offset: int
    ) -> list[SessionInfo]:
        rows = [
            SessionInfo(
                s.new.session_id,
                s.new.player_id,
                s.new.display_name,
                s.new.kind,
                s.new.now / 1000,
                s.last_used_at,
                s.access_expires_at,
                s.refresh_expires_at,
                s.revoked,
                s.new.address,
            )
            for s in self.sessions.values()
            if s.new.app_id == app_id
            and (not player_id or s.new.player_id == player_id)
            and (not live_only or (not s.revoked and s.refresh_expires_at > now))
        ]
        rows.sort(key=lambda r: (-r.last_used_at, r.session_id))
        return rows[offset : offset + limit]

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

    async def waiting_tables(
        self, app_id: str, preset: str, players: int, after: Cursor | None, limit: int
    ) -> list[tuple[GameRecord, Cursor]]:
        found = [
            (g, Cursor(round(g.created_at * 1e6), g.id))
            for g in self.games.values()
            if g.app_id == app_id
            and g.state.status == "waiting"
            and g.invite_hash is None
            and (not preset or g.state.setup.rules.name == preset)
            and (not players or g.state.setup.players == players)
        ]
        found.sort(key=lambda gc: (gc[1].created_us, gc[1].game_id))
        if after is not None:
            found = [
                gc
                for gc in found
                if (gc[1].created_us, gc[1].game_id) > (after.created_us, after.game_id)
            ]
        return [(self._record(g), c) for g, c in found[:limit]]

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

    async def commit(self, change: GameChange) -> float | None:
        """As each database's change: all or nothing, at the version read only."""
        g = self._stored(change.game_id)
        if g.version != change.version:
            return None
        rows = ((change.action, change.request_id), *change.then)
        for _, rid in rows:
            if rid and any(r.request_id == rid for r in g.log):
                raise DuplicateRequest(f"request id {rid} is in the log")
        if change.stake is not None:
            s = change.stake
            for player in s.player_ids:
                balance = self.chips.get((s.app_id, player), 0)
                if balance < s.amount:
                    raise chips.InsufficientChips(player, balance, s.amount)
            for player in s.player_ids:
                self.chips[(s.app_id, player)] -= s.amount
        g.state = _copy(change.state)
        if change.deadline_set:
            g.deadline_at = change.deadline_at
        for action, rid in rows:  # a turn's moves: each its own row and version
            g.version += 1
            g.log.append(
                LogRecord(g.version, action.seat, action, rid, change.actor, self.now / 1000)
            )
        if change.revoke_seat is not None:
            for stored in self.tokens.values():
                if stored.game_id == g.id and stored.token.seat == change.revoke_seat:
                    stored.revoked = True
        if change.new_token is not None:
            await self.add_token(g.id, change.new_token)
        self._write_events(g.app_id, change.events)
        self.commits += 1
        return self.now / 1000

    # ----- quick play -------------------------------------------------------------------

    async def add_ticket(self, ticket: TicketRecord, events: Sequence[Event] = ()) -> TicketRecord:
        for t in self.tickets.values():
            if ticket.request_id and (t.app_id, t.request_id) == (ticket.app_id, ticket.request_id):
                return t
        for t in self.tickets.values():
            if t.app_id == ticket.app_id and t.status in OPEN_TICKETS:
                both = set(t.player_ids) & set(ticket.player_ids)
                if both:
                    raise AlreadyWaiting(sorted(both)[0])
        self.tickets[ticket.id] = ticket
        self._write_events(ticket.app_id, events)
        return ticket

    async def join_party(
        self, ticket_id: str, partner: int, name: str, now: int
    ) -> TicketRecord | None:
        t = self.tickets.get(ticket_id)
        if t is None or t.status != TicketStatus.FORMING:
            return None
        names = list(t.display_names)
        names[partner] = name or names[partner]
        t = replace(t, status=TicketStatus.WAITING, display_names=tuple(names), created_ms=now)
        self.tickets[ticket_id] = t
        return t

    async def ticket(self, app_id: str, ticket_id: str) -> TicketRecord | None:
        t = self.tickets.get(ticket_id)
        return t if t is not None and t.app_id == app_id else None

    async def end_ticket(self, ticket_id: str, reason: str, now: int) -> TicketRecord | None:
        t = self.tickets.get(ticket_id)
        if t is not None and t.status in OPEN_TICKETS:
            t = replace(t, status=TicketStatus.CANCELLED, reason=reason, ended_ms=now)
            self.tickets[ticket_id] = t
        return t

    async def waiting_tickets(self, limit: int) -> list[TicketRecord]:
        waiting = [t for t in self.tickets.values() if t.status == TicketStatus.WAITING]
        return sorted(waiting, key=lambda t: (t.created_ms, t.id))[:limit]

    async def write_table(self, table: PlannedTable, now: int) -> bool:
        if any(self.tickets[i].status != TicketStatus.WAITING for i in table.seats):
            return False
        if table.stake is not None:
            s = table.stake
            for player in s.player_ids:
                balance = self.chips.get((s.app_id, player), 0)
                if balance < s.amount:
                    raise chips.InsufficientChips(player, balance, s.amount)
            for player in s.player_ids:
                self.chips[(s.app_id, player)] -= s.amount
        await self.create_game(table.new)
        for change in table.changes:
            assert await self.commit(change) is not None
        for ticket_id, seats in table.seats.items():
            self.tickets[ticket_id] = replace(
                self.tickets[ticket_id],
                status=TicketStatus.MATCHED,
                game_id=table.new.game_id,
                seats=seats,
                ended_ms=now,
            )
        return True

    async def expire_tickets(self, before: int, now: int) -> int:
        old = [
            t.id
            for t in self.tickets.values()
            if t.status in OPEN_TICKETS and t.created_ms < before
        ]
        for ticket_id in old:
            await self.end_ticket(ticket_id, "EXPIRED", now)
        return len(old)

    async def mean_ratings(self, app_id: str, player_ids: Sequence[str]) -> float:
        return 25.0

    async def add_tokens(self, tokens: Sequence[tuple[str, SeatToken]]) -> None:
        for game_id, token in tokens:
            await self.add_token(game_id, token)

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
        self._watchers: dict[str, set[Signal]] = {}
        # The rows of each game's latest hint, and how many times a watcher took
        # rows from here instead of the log.
        self.rows: dict[str, Sequence[LogRecord]] = {}
        self.rows_taken = 0
        self.unversioned: list[str] = []  # hints that have every watcher read the log

    def publish(self, game_id: str, version: int | None, rows: Sequence[LogRecord] = ()) -> None:
        if version is None:
            self.unversioned.append(game_id)
        else:
            self.published.append((game_id, version))
        self.rows[game_id] = rows
        for event in self._watchers.get(game_id, ()):
            event.set()

    def rows_after(self, game_id: str, version: int) -> Sequence[LogRecord] | None:
        """As the hub's, for the latest hint's rows only."""
        rows = self.rows.get(game_id, ())
        if not rows:
            return None
        if version >= rows[-1].version:
            return ()
        if rows[0].version > version + 1:
            return None
        self.rows_taken += 1
        return rows[version + 1 - rows[0].version :]

    @contextlib.contextmanager
    def subscribe(self, game_id: str) -> Iterator[Signal]:
        event = Signal()
        self._watchers.setdefault(game_id, set()).add(event)
        try:
            yield event
        finally:
            self._watchers[game_id].discard(event)

    async def hold(self, game_id: str) -> None:
        self.leases.append(game_id)
