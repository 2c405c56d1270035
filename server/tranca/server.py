"""Wiring: configuration, database, notifier, gRPC server with health and reflection,
metrics, signals, and optional worker processes sharing one port."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import multiprocessing
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from wsgiref.simple_server import WSGIServer

import grpc
import orjson
import structlog
from google.protobuf.descriptor import ServiceDescriptor
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import start_http_server

from . import metrics
from .api.admin import AdminService
from .api.edge import add_service
from .api.notifications import NotificationService
from .api.players import PlayerService
from .api.quick_play import QuickPlayService
from .api.servicer import GameService
from .api.sessions import SessionService
from .api.tournaments import TournamentService
from .outbound import HttpPoster
from .services.access import Access, FailedAuthThrottle
from .services.admin import Admin
from .services.compute import Compute
from .services.games import Games
from .services.limits import (
    DEFAULT_TOKEN_LIFETIME,
    MAX_TOKEN_LIFETIME,
    MIN_TOKEN_LIFETIME,
    RateLimiter,
    WatchCounts,
)
from .services.lobby import Lobby
from .services.matches import Matches
from .services.matchmaker import Matchmaker
from .services.moves import Moves, now_ms
from .services.notifications import Notifications
from .services.origins import Origins
from .services.players import Players
from .services.presence import Presence
from .services.quick_play import QuickPlay
from .services.robots import ROBOT_LEVELS, Robots, RobotSettings, level_within
from .services.sessions import Sessions
from .services.settlement import Settlement
from .services.tables import Tables
from .services.timers import Sweeper
from .services.tournaments import Tournaments
from .services.webhooks import Deliverer, DeliveryPolicy, Webhooks
from .store import migrate
from .store.database import DEFAULT_URL, is_sqlite, make_engine, normalise_url
from .store.lobby_store import LobbyStore
from .store.nats_feed import NatsFeed
from .store.notifications_store import NotificationsStore
from .store.notify import Hub, PostgresListener
from .store.players_store import PlayersStore
from .store.quick_play_store import QuickPlayStore
from .store.repository import Store
from .store.sessions_store import SessionsStore
from .store.settlement import SettlementStore
from .store.tournament_store import TournamentStore
from .store.watch_leases import WatchLeases

if TYPE_CHECKING:  # imported when a browser port is served (start): its web stack
    # (Starlette, Hypercorn) would cost a replica that serves none about 8 MB
    from .web_port import WebPort
from .v1 import admin_pb2, game_pb2, notifications_pb2, platform_pb2, quick_play_pb2, session_pb2

SERVICE_NAME = game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
PLAYER_SERVICE_NAME = platform_pb2.DESCRIPTOR.services_by_name["PlayerService"].full_name
TOURNAMENT_SERVICE_NAME = platform_pb2.DESCRIPTOR.services_by_name["TournamentService"].full_name
SESSION_SERVICE_NAME = session_pb2.DESCRIPTOR.services_by_name["SessionService"].full_name
ADMIN_SERVICE_NAME = admin_pb2.DESCRIPTOR.services_by_name["AdminService"].full_name
QUICK_PLAY_SERVICE_NAME = quick_play_pb2.DESCRIPTOR.services_by_name["QuickPlayService"].full_name
NOTIFICATION_SERVICE = notifications_pb2.DESCRIPTOR.services_by_name["NotificationService"]
# A health name for liveness probes: SERVING while the process runs, whatever the
# database does (a restart would not bring a database back); NOT_SERVING at shutdown.
LIVENESS = "tranca.liveness"
log = structlog.get_logger("tranca.server")


# The levels `--log-level` takes. Each applied move is a debug line: the move log in the
# database already records every one, and a line per move cost a busy server about a
# twentieth of its throughput (docs/PERFORMANCE.md).
LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


@dataclass
class Config:
    """Every setting, from flags or TRANCA_* environment variables."""

    host: str = "127.0.0.1"
    port: int = 50051
    metrics_port: int = 9464  # 0: no metrics endpoint
    database_url: str = DEFAULT_URL
    workers: int = 1
    auto_migrate: bool = False
    dev_api_key: str = ""  # registers an app with this key at start-up (development only)
    max_message_bytes: int = 256 * 1024
    grace_seconds: float = 10.0
    log_format: str = "json"  # or "console"
    log_level: str = "info"  # debug adds a line per applied move (the move log has them all)
    tls_cert: str = ""  # PEM certificate chain file: serve TLS
    tls_key: str = ""  # PEM private key file
    tls_client_ca: str = ""  # PEM CA file: require client certificates (mutual TLS)
    rate_per_token: float = 100.0  # calls per second per player token (bursts of 2x)
    rate_per_app: float = 2000.0  # calls per second per API key (bursts of 2x)
    # Failed authentications per second per peer address (bursts of 4x) before its
    # calls with unknown credentials are refused unread; 0: no throttle.
    auth_failures_per_peer: float = 5.0
    token_lifetime: int = DEFAULT_TOKEN_LIFETIME  # seconds a player token lives by default
    max_watches_per_token: int = 4  # open WatchGame streams per player token, per process
    max_watches_per_app: int = 1000  # open WatchGame streams per API key, per process
    health_interval: float = 5.0  # seconds between database health checks
    db_timeout: float = 5.0  # seconds any database call may take
    db_pool_size: int = 10  # PostgreSQL connections per process: moves; other calls (2x bursts)
    # PostgreSQL through PgBouncer in transaction mode: no prepared statement outlives
    # its query (asyncpg's statement caches off), and LISTEN goes to
    # listen_database_url (a direct or session-mode URL), never through the pooler.
    db_pgbouncer: bool = False
    listen_database_url: str = ""
    # The change feed between replicas: "" for PostgreSQL's NOTIFY (the default), or
    # nats://HOST:PORT for NATS (store/nats_feed.py).
    change_feed: str = ""
    max_connection_age: float = 300.0  # seconds before a client connection is recycled
    # The highest snapshot schema written: 1 or 2 while a release that reads only those
    # still runs (below 3 the platform's tables are refused until the upgrade is over).
    snapshot_schema: int = 3
    sweep_interval: float = 0.5  # seconds between sweeps for timers, robots, settlements; 0: none
    match_interval: float = 1.0  # seconds between quick play's passes here; 0: none
    # The server's robots (services/robots.py): their bot, and the expert's budget
    # per decision and worker processes.
    robot_level: str = "greedy"
    # The most expensive level a table may ask for (TableOptions.robot_level).
    robot_max_level: str = "expert"
    robot_ms: int = 200
    robot_iterations: int = 400
    robot_workers: int = 1
    # Webhooks (services/webhooks.py): seconds between this replica's sweeps of the
    # outbox (0: it delivers none), one POST's timeout, attempts before a delivery
    # fails, the wait before the second attempt (doubling after), and how long
    # players' events are kept.
    webhook_interval: float = 0.5
    webhook_timeout: float = 5.0
    webhook_attempts: int = 10
    webhook_backoff: float = 5.0
    event_retention_hours: float = 168.0
    # The browser port (api/web.py): Connect and gRPC-Web, and the web table's files
    # from web_root (default: clients/web/table/dist of this checkout, if built).
    # -1: none.
    web_port: int = -1
    web_root: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_args(cls, argv: list[str] | None = None) -> Config:
        env = os.environ
        p = argparse.ArgumentParser(prog="tranca serve", description="Run the Tranca game server.")
        p.add_argument("--host", default=env.get("TRANCA_HOST", cls.host))
        p.add_argument("--port", type=int, default=int(env.get("TRANCA_PORT", cls.port)))
        p.add_argument(
            "--metrics-port",
            type=int,
            default=int(env.get("TRANCA_METRICS_PORT", cls.metrics_port)),
        )
        p.add_argument("--database-url", default=env.get("TRANCA_DATABASE_URL", DEFAULT_URL))
        p.add_argument("--workers", type=int, default=int(env.get("TRANCA_WORKERS", 1)))
        p.add_argument(
            "--auto-migrate",
            action="store_true",
            default=env.get("TRANCA_AUTO_MIGRATE", "") in ("1", "true"),
            help="apply schema migrations at start-up instead of refusing to start",
        )
        p.add_argument("--dev-api-key", default=env.get("TRANCA_DEV_API_KEY", ""))
        p.add_argument("--log-format", default=env.get("TRANCA_LOG_FORMAT", "json"))
        p.add_argument(
            "--log-level",
            choices=tuple(LOG_LEVELS),
            default=env.get("TRANCA_LOG_LEVEL", cls.log_level).lower(),
            help="the least severe line written; debug adds one line per applied move",
        )
        p.add_argument("--tls-cert", default=env.get("TRANCA_TLS_CERT", ""))
        p.add_argument("--tls-key", default=env.get("TRANCA_TLS_KEY", ""))
        p.add_argument("--tls-client-ca", default=env.get("TRANCA_TLS_CLIENT_CA", ""))
        p.add_argument(
            "--rate-per-token", type=float, default=float(env.get("TRANCA_RATE_PER_TOKEN", 100))
        )
        p.add_argument(
            "--rate-per-app", type=float, default=float(env.get("TRANCA_RATE_PER_APP", 2000))
        )
        p.add_argument(
            "--auth-failures-per-peer",
            type=float,
            default=float(env.get("TRANCA_AUTH_FAILURES_PER_PEER", cls.auth_failures_per_peer)),
            help="failed authentications a second per peer address (bursts of 4x) before "
            "its calls with unknown credentials are refused unread; 0: no throttle",
        )
        p.add_argument(
            "--token-lifetime",
            type=int,
            default=int(env.get("TRANCA_TOKEN_LIFETIME", cls.token_lifetime)),
            help="seconds a player token lives when JoinGame asks for no lifetime "
            f"({MIN_TOKEN_LIFETIME} to {MAX_TOKEN_LIFETIME})",
        )
        p.add_argument(
            "--max-watches-per-token",
            type=int,
            default=int(env.get("TRANCA_MAX_WATCHES_PER_TOKEN", cls.max_watches_per_token)),
        )
        p.add_argument(
            "--max-watches-per-app",
            type=int,
            default=int(env.get("TRANCA_MAX_WATCHES_PER_APP", cls.max_watches_per_app)),
        )
        p.add_argument(
            "--health-interval",
            type=float,
            default=float(env.get("TRANCA_HEALTH_INTERVAL", 5)),
        )
        p.add_argument("--db-timeout", type=float, default=float(env.get("TRANCA_DB_TIMEOUT", 5)))
        p.add_argument("--db-pool-size", type=int, default=int(env.get("TRANCA_DB_POOL_SIZE", 10)))
        p.add_argument(
            "--db-pgbouncer",
            action="store_true",
            default=env.get("TRANCA_DB_PGBOUNCER", "") in ("1", "true"),
            help="--database-url is a PgBouncer in transaction mode: asyncpg's prepared "
            "statement caches off (PgBouncer before 1.21 cannot keep them)",
        )
        p.add_argument(
            "--listen-database-url",
            default=env.get("TRANCA_LISTEN_DATABASE_URL", ""),
            help="PostgreSQL URL for the NOTIFY listener's own connection when "
            "--database-url goes through a transaction-mode pooler (a direct or "
            "session-mode URL); default: --database-url",
        )
        p.add_argument(
            "--change-feed",
            default=env.get("TRANCA_CHANGE_FEED", ""),
            help="how replicas tell each other's watchers that a game changed: empty for "
            "PostgreSQL's NOTIFY (the default), or nats://HOST:PORT for a NATS server",
        )
        p.add_argument(
            "--snapshot-schema",
            type=int,
            choices=(1, 2, 3),
            default=int(env.get("TRANCA_SNAPSHOT_SCHEMA", 3)),
            help="highest snapshot format written (all are read): 1 or 2 during an "
            "upgrade from a release that reads only those; below 3 the platform's "
            "tables (table options, player ids) are refused",
        )
        p.add_argument(
            "--sweep-interval",
            type=float,
            default=float(env.get("TRANCA_SWEEP_INTERVAL", 0.5)),
            help="seconds between this replica's sweeps for expired turn timers, robots' "
            "turns and finished matches to settle; 0 runs no sweeper here",
        )
        p.add_argument(
            "--robot-level",
            choices=ROBOT_LEVELS,
            default=env.get("TRANCA_ROBOT_LEVEL", cls.robot_level),
            help="the bot that plays the robots' seats where the table asks for none: "
            "random or greedy (on the event loop) or expert (a search, in "
            "--robot-workers processes)",
        )
        p.add_argument(
            "--robot-max-level",
            choices=ROBOT_LEVELS,
            default=env.get("TRANCA_ROBOT_MAX_LEVEL", cls.robot_max_level),
            help="the most expensive level a table may ask its robots to play "
            "(TableOptions.robot_level; CreateGame refuses more); at least --robot-level",
        )
        p.add_argument(
            "--robot-ms",
            type=int,
            default=int(env.get("TRANCA_ROBOT_MS", cls.robot_ms)),
            help="the expert robot's milliseconds a decision (one core)",
        )
        p.add_argument(
            "--robot-iterations",
            type=int,
            default=int(env.get("TRANCA_ROBOT_ITERATIONS", cls.robot_iterations)),
            help="the expert robot's playouts a decision, at most",
        )
        p.add_argument(
            "--robot-workers",
            type=int,
            default=int(env.get("TRANCA_ROBOT_WORKERS", cls.robot_workers)),
            help="worker processes the expert robots think in, per server process",
        )
        p.add_argument(
            "--match-interval",
            type=float,
            default=float(env.get("TRANCA_MATCH_INTERVAL", 1.0)),
            help="seconds between this replica's quick-play passes over the waiting "
            "tickets (any number of replicas may run them); 0 runs none here",
        )
        p.add_argument(
            "--max-connection-age",
            type=float,
            default=float(env.get("TRANCA_MAX_CONNECTION_AGE", 300)),
        )
        p.add_argument(
            "--webhook-interval",
            type=float,
            default=float(env.get("TRANCA_WEBHOOK_INTERVAL", cls.webhook_interval)),
            help="seconds between this replica's sweeps of the webhook outbox; 0 delivers "
            "none here",
        )
        p.add_argument(
            "--webhook-timeout",
            type=float,
            default=float(env.get("TRANCA_WEBHOOK_TIMEOUT", cls.webhook_timeout)),
            help="seconds a webhook POST may take, from connecting to the answer's end",
        )
        p.add_argument(
            "--webhook-attempts",
            type=int,
            default=int(env.get("TRANCA_WEBHOOK_ATTEMPTS", cls.webhook_attempts)),
            help="attempts of a webhook delivery before it is marked failed",
        )
        p.add_argument(
            "--webhook-backoff",
            type=float,
            default=float(env.get("TRANCA_WEBHOOK_BACKOFF", cls.webhook_backoff)),
            help="seconds before a failed delivery's second attempt (doubling, with jitter)",
        )
        p.add_argument(
            "--event-retention-hours",
            type=float,
            default=float(env.get("TRANCA_EVENT_RETENTION_HOURS", cls.event_retention_hours)),
            help="hours players' events (and their deliveries) are kept",
        )
        p.add_argument(
            "--web-port",
            type=int,
            default=int(env.get("TRANCA_WEB_PORT", cls.web_port)),
            help="port of the browser endpoint (the Connect protocol and gRPC-Web, over "
            "HTTP/1.1 and HTTP/2, and the web table); -1: none",
        )
        p.add_argument(
            "--web-root",
            default=env.get("TRANCA_WEB_ROOT", cls.web_root),
            help="directory of the web table's files served on the browser port "
            "(default: clients/web/table/dist of this checkout, when it exists)",
        )
        a = p.parse_args(argv)
        if bool(a.tls_cert) != bool(a.tls_key):
            p.error("--tls-cert and --tls-key go together")
        if a.tls_client_ca and not a.tls_cert:
            p.error("--tls-client-ca needs --tls-cert and --tls-key")
        if a.change_feed and not a.change_feed.startswith(("nats://", "tls://")):
            p.error("--change-feed is empty (NOTIFY) or a nats:// URL")
        if not level_within(a.robot_level, a.robot_max_level):
            p.error("--robot-level is above --robot-max-level")
        if min(a.robot_ms, a.robot_iterations, a.robot_workers) < 1:
            p.error("--robot-ms, --robot-iterations and --robot-workers are at least 1")
        if not MIN_TOKEN_LIFETIME <= a.token_lifetime <= MAX_TOKEN_LIFETIME:
            p.error(f"--token-lifetime is {MIN_TOKEN_LIFETIME} to {MAX_TOKEN_LIFETIME} seconds")
        return cls(
            host=a.host,
            port=a.port,
            metrics_port=a.metrics_port,
            database_url=a.database_url,
            workers=a.workers,
            auto_migrate=a.auto_migrate,
            dev_api_key=a.dev_api_key,
            log_format=a.log_format,
            log_level=a.log_level,
            tls_cert=a.tls_cert,
            tls_key=a.tls_key,
            tls_client_ca=a.tls_client_ca,
            rate_per_token=a.rate_per_token,
            rate_per_app=a.rate_per_app,
            auth_failures_per_peer=a.auth_failures_per_peer,
            token_lifetime=a.token_lifetime,
            max_watches_per_token=a.max_watches_per_token,
            max_watches_per_app=a.max_watches_per_app,
            health_interval=a.health_interval,
            db_timeout=a.db_timeout,
            db_pool_size=a.db_pool_size,
            db_pgbouncer=a.db_pgbouncer,
            listen_database_url=a.listen_database_url,
            change_feed=a.change_feed,
            web_port=a.web_port,
            web_root=a.web_root,
            snapshot_schema=a.snapshot_schema,
            max_connection_age=a.max_connection_age,
            sweep_interval=a.sweep_interval,
            match_interval=a.match_interval,
            robot_level=a.robot_level,
            robot_max_level=a.robot_max_level,
            robot_ms=a.robot_ms,
            robot_iterations=a.robot_iterations,
            robot_workers=a.robot_workers,
            webhook_interval=a.webhook_interval,
            webhook_timeout=a.webhook_timeout,
            webhook_attempts=a.webhook_attempts,
            webhook_backoff=a.webhook_backoff,
            event_retention_hours=a.event_retention_hours,
        )


def configure_logging(fmt: str, level: str = "info") -> None:
    renderer: structlog.types.Processor
    logger_factory: Any
    if fmt == "console":
        renderer = structlog.dev.ConsoleRenderer()
        logger_factory = structlog.PrintLoggerFactory(sys.stderr)
    else:
        # JSON lines rendered by orjson straight to bytes: at debug every move logs a
        # line, and the standard library's encoder cost as much as the move's rules.
        renderer = structlog.processors.JSONRenderer(serializer=orjson.dumps)
        logger_factory = structlog.BytesLoggerFactory(sys.stderr.buffer)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(LOG_LEVELS[level]),
        logger_factory=logger_factory,
        # A module's logger is bound once, not on every line (at debug, one per move);
        # this is configured once per process, by `tranca serve` and its workers.
        cache_logger_on_first_use=True,
    )


class Running:
    """A started server and what it owns, for tests and for ``serve``."""

    def __init__(
        self,
        server: grpc.aio.Server,
        port: int,
        store: Store,
        moves: Moves,
        health_servicer: health.aio.HealthServicer,
        listener: PostgresListener | None,
    ) -> None:
        self.server = server
        self.port = port
        self.store = store
        self.moves = moves
        self.health = health_servicer
        self.listener = listener
        self.feed: NatsFeed | None = None  # the NATS change feed, when configured
        self.tasks: list[asyncio.Task[None]] = []
        self.watch_leases: WatchLeases | None = None
        self.sweeper: Sweeper | None = None
        self.matchmaker: Matchmaker | None = None  # quick play's passes (run or not)
        self.deliverer: Deliverer | None = None
        self.poster: HttpPoster | None = None
        # Finished matches' settlements, on this server's store.
        self.settlement = Settlement(SettlementStore(store))
        # The tournaments' rows, for the tranca_tournaments_running gauge's refresh.
        self.tournament_store = TournamentStore(store)
        # The worker process of Swiss pairings (services/compute.py), stopped with us.
        self.compute: Compute | None = None
        # The tournaments' use cases: the sweeper advances the scheduled ones.
        self.tournaments: Tournaments | None = None
        self.web: WebPort | None = None  # the browser port, when one is served

    def new_sweeper(self, **options: Any) -> Sweeper:
        """A sweeper on this server's store and moves, settling finished matches as it
        sweeps (``options``: ``Sweeper``'s lease, batch and clock)."""
        schedule = None if self.tournaments is None else self.tournaments.run_due
        return Sweeper(
            self.store, self.moves, self.settlement.settle_pending, schedule=schedule, **options
        )

    async def stop(self, grace: float = 5.0) -> None:
        """Health goes NOT_SERVING first, then in-flight calls get ``grace`` seconds."""
        await self.health.enter_graceful_shutdown()
        if self.web is not None:
            await self.web.stop()
        await self.server.stop(grace)
        for task in self.tasks:
            task.cancel()
        # Let them finish cancelling first: a sweep cut short inside a query closes its
        # connection, which hangs for ever once the engine is disposed (aiosqlite).
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.listener is not None:
            await self.listener.stop()
        if self.feed is not None:
            await self.feed.stop()
        if self.poster is not None:
            await self.poster.close()
        if self.compute is not None:
            self.compute.close()
        if self.sweeper is not None:
            # The expert robots' worker processes (none were started for greedy).
            await asyncio.to_thread(self.sweeper.robots.close)
        await self.store.close()


async def start(cfg: Config, *, reuse_port: bool = False) -> Running:
    url = normalise_url(cfg.database_url)
    if cfg.auto_migrate:
        await migrate.upgrade_async(url)
    elif not await migrate.is_up_to_date(url, pgbouncer=cfg.db_pgbouncer):
        raise SystemExit(
            f"the database schema is not at {migrate.head_revision()}: run `tranca migrate` first"
        )
    engine = make_engine(
        url,
        pool_size=cfg.db_pool_size,
        statement_timeout_ms=int(cfg.db_timeout * 1000),
        pgbouncer=cfg.db_pgbouncer,
    )
    hub = Hub()
    store = Store(
        engine,
        observe=metrics.observe_db,
        timeout=cfg.db_timeout,
        pool_size=cfg.db_pool_size,
        snapshot_schema=cfg.snapshot_schema,
        pgbouncer=cfg.db_pgbouncer,
    )
    dev_app = ""
    if cfg.dev_api_key:
        dev_app = await store.ensure_app("development", cfg.dev_api_key, frozenset({"fixed_deck"}))
    listener: PostgresListener | None = None
    feed: NatsFeed | None = None
    if cfg.change_feed:
        # Hints between replicas on NATS: no NOTIFY (no watch lease is taken, so no
        # move's statement sends one) and no LISTEN.
        feed = NatsFeed(
            cfg.change_feed,
            hub,
            on_state=lambda up: metrics.CHANGE_FEED_UP.set(1 if up else 0),
            on_hint=metrics.CHANGE_FEED_HINTS.inc,
        )
        await feed.start()
    elif not is_sqlite(url):
        listen_url = normalise_url(cfg.listen_database_url or cfg.database_url)
        dsn = "postgresql://" + listen_url.split("://", 1)[1]
        listener = PostgresListener(
            dsn,
            hub,
            on_state=lambda up: metrics.LISTENER_UP.set(1 if up else 0),
            origin=store.direct.origin or "",
        )
        await listener.start()
    server = grpc.aio.server(
        options=[
            ("grpc.so_reuseport", 1 if reuse_port else 0),
            ("grpc.max_receive_message_length", cfg.max_message_bytes),
            ("grpc.max_send_message_length", 4 * 1024 * 1024),
            ("grpc.keepalive_time_ms", 30_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
            # Recycled connections let clients that balance over DNS find new replicas.
            ("grpc.max_connection_age_ms", int(cfg.max_connection_age * 1000)),
            ("grpc.max_connection_age_grace_ms", 30_000),
        ]
    )
    # The use cases, wired to this process's store and hub (services/).
    sessions_store = SessionsStore(store)
    origins = Origins(sessions_store)
    access = Access(
        store,
        FailedAuthThrottle(cfg.auth_failures_per_peer, 4 * cfg.auth_failures_per_peer),
        token_limiter=RateLimiter(cfg.rate_per_token, 2 * cfg.rate_per_token),
        app_limiter=RateLimiter(cfg.rate_per_app, 2 * cfg.rate_per_app),
        origins=origins,
    )
    # Players' event streams are woken by their own hub: its subscribers are no
    # game's watchers, and must not start the PostgreSQL listener.
    event_hub = Hub()
    moves = Moves(store, notifier=feed or hub, event_hints=event_hub)
    matches = Matches(moves, store)
    watch_leases = WatchLeases(store, hub)
    if feed is not None:
        watch_leases.enabled = False  # the feed's subscriptions do their work
    games = Games(
        store,
        access,
        moves,
        matches,
        Presence(store),
        WatchCounts(cfg.max_watches_per_token, cfg.max_watches_per_app),
        hub,
        feed or watch_leases,
        cfg.token_lifetime,
        robot_level=cfg.robot_level,
        robot_max_level=cfg.robot_max_level,
    )
    players = Players(PlayersStore(store), access)
    compute = Compute()
    tournaments = Tournaments(
        TournamentStore(store),
        access,
        matches,
        cfg.token_lifetime,
        compute=compute,
        robot_max_level=cfg.robot_max_level,
    )
    sessions = Sessions(sessions_store, access, clock=now_ms)
    tickets = QuickPlayStore(store)
    quick_play = QuickPlay(tickets, access, matches, sessions_store, now_ms, cfg.token_lifetime)
    notes = NotificationsStore(store)
    notifications = Notifications(
        notes,
        access,
        event_hub,
        WatchCounts(cfg.max_watches_per_token, cfg.max_watches_per_app),
    )
    # Each service's servicer, served on the gRPC port and on the browser port alike.
    services: list[tuple[object, ServiceDescriptor]] = [
        (
            GameService(games, Tables(games), Lobby(LobbyStore(store), access)),
            game_pb2.DESCRIPTOR.services_by_name["GameService"],
        ),
        (PlayerService(players), platform_pb2.DESCRIPTOR.services_by_name["PlayerService"]),
        (
            TournamentService(tournaments),
            platform_pb2.DESCRIPTOR.services_by_name["TournamentService"],
        ),
        (SessionService(sessions), session_pb2.DESCRIPTOR.services_by_name["SessionService"]),
        (
            AdminService(Admin(store, access, moves)),
            admin_pb2.DESCRIPTOR.services_by_name["AdminService"],
        ),
        (
            QuickPlayService(quick_play),
            quick_play_pb2.DESCRIPTOR.services_by_name["QuickPlayService"],
        ),
        (NotificationService(notifications, Webhooks(notes, access)), NOTIFICATION_SERVICE),
    ]
    # Every request is decoded and checked against the contracts' limits at the edge
    # (api/edge.py) before a servicer sees it.
    for servicer, descriptor in services:
        add_service(server, servicer, descriptor)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (
            SERVICE_NAME,
            PLAYER_SERVICE_NAME,
            TOURNAMENT_SERVICE_NAME,
            SESSION_SERVICE_NAME,
            QUICK_PLAY_SERVICE_NAME,
            ADMIN_SERVICE_NAME,
            NOTIFICATION_SERVICE.full_name,
            health.SERVICE_NAME,
            reflection.SERVICE_NAME,
        ),
        server,
    )
    address = f"{cfg.host}:{cfg.port}"
    if cfg.tls_cert:
        creds = grpc.ssl_server_credentials(
            [(Path(cfg.tls_key).read_bytes(), Path(cfg.tls_cert).read_bytes())],
            root_certificates=Path(cfg.tls_client_ca).read_bytes() if cfg.tls_client_ca else None,
            require_client_auth=bool(cfg.tls_client_ca),
        )
        port = server.add_secure_port(address, creds)
    else:
        port = server.add_insecure_port(address)
    if port == 0:
        raise SystemExit(f"cannot listen on {cfg.host}:{cfg.port}")
    await server.start()
    for name in ("", SERVICE_NAME, LIVENESS):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    running = Running(server, port, store, moves, health_servicer, listener)
    running.feed = feed
    running.compute = compute
    running.tournaments = tournaments
    if cfg.web_port >= 0:
        from .api.browser import service_apps
        from .api.web import BrowserApp
        from .web_port import WebPort, allow_guests, web_root

        web_app = ""
        if dev_app:
            # The web table signs players into the development app, as guests.
            web_app = dev_app
            await allow_guests(sessions_store, dev_app)
        running.web = await WebPort.start(
            BrowserApp(
                service_apps(services, read_max_bytes=cfg.max_message_bytes),
                origins,
                web_root(cfg.web_root),
                {"appId": web_app, "guestSignIn": bool(web_app)},
            ),
            cfg.host,
            cfg.web_port,
            grace=cfg.grace_seconds,
            tls=(cfg.tls_cert, cfg.tls_key) if cfg.tls_cert else None,
            reuse_port=reuse_port,
        )
    running.tasks.append(asyncio.create_task(_watch_database(running, cfg.health_interval)))
    running.watch_leases = watch_leases
    if watch_leases.enabled:
        running.tasks.append(asyncio.create_task(watch_leases.renew_forever()))
    if cfg.sweep_interval > 0:
        robots = Robots(
            RobotSettings(
                cfg.robot_level,
                cfg.robot_ms,
                cfg.robot_iterations,
                cfg.robot_workers,
                cfg.robot_max_level,
            )
        )
        running.sweeper = running.new_sweeper(robots=robots)
        running.tasks.append(asyncio.create_task(robots.warm()))
        running.tasks.append(asyncio.create_task(running.sweeper.run(cfg.sweep_interval)))
    running.matchmaker = Matchmaker(tickets, hub, now_ms)
    if cfg.match_interval > 0:
        running.tasks.append(asyncio.create_task(running.matchmaker.run(cfg.match_interval)))
    if cfg.webhook_interval > 0:
        running.poster = HttpPoster()
        running.deliverer = Deliverer(notes, running.poster, delivery_policy(cfg))
        running.tasks.append(asyncio.create_task(running.deliverer.run(cfg.webhook_interval)))
    return running


def delivery_policy(cfg: Config) -> DeliveryPolicy:
    return DeliveryPolicy(
        timeout=cfg.webhook_timeout,
        max_attempts=cfg.webhook_attempts,
        backoff_ms=int(cfg.webhook_backoff * 1000),
        retention_ms=int(cfg.event_retention_hours * 3_600_000),
    )


async def _watch_database(running: Running, interval: float) -> None:
    """Health follows the database: NOT_SERVING while it cannot be reached. Also
    refreshes the games-by-status gauge."""
    serving = True
    while True:
        await asyncio.sleep(interval)
        try:
            await running.store.ping()
            counts = await running.store.count_games()
            for status in ("waiting", "playing", "finished"):
                metrics.GAMES.labels(status).set(counts.get(status, 0))
            # A tournament also finishes inside a settlement, which sets no gauge.
            metrics.TOURNAMENTS_RUNNING.set(await running.tournament_store.count_running())
            ok = True
        except Exception:
            ok = False
        if ok != serving:
            serving = ok
            state = (
                health_pb2.HealthCheckResponse.SERVING
                if ok
                else health_pb2.HealthCheckResponse.NOT_SERVING
            )
            for name in ("", SERVICE_NAME):
                await running.health.set(name, state)
            log.warning("database_health", serving=ok)


# The collector's thresholds once a server has started (``settle_collector``): a
# young collection every GC_YOUNG net allocations (Python's default is 700), each
# older generation every 10 of the one before, as by default.
GC_YOUNG = 10_000


def settle_collector() -> None:
    """Set the garbage collector for a server process that has started (``_serve``;
    the benchmarks that run a server in their own process call it too).

    Everything allocated so far (modules, presets, the server) lives as long as the
    process: it is collected once, then frozen out of every later collection
    (``gc.freeze``); otherwise each full collection walks it all, and shows up as a
    pause of the whole process (every call waits for it: in the tournament
    benchmark's process, before it froze, up to 0.5 s while a 64-entrant event
    recorded its results, 3.5 s at 1,024 entrants). A young collection every 10,000
    net allocations rather than 700 makes collections rarer (while that benchmark
    recorded 256 players' results: none, against about 4,000 of up to 22 ms), each
    of a few more objects, as large Python services do. See
    docs/platform/tournaments.md."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, 10, 10)


async def _serve(cfg: Config, reuse_port: bool, metrics_server: WSGIServer | None = None) -> None:
    running = await start(cfg, reuse_port=reuse_port)
    settle_collector()
    log.info("listening", address=f"{cfg.host}:{running.port}", pid=os.getpid())
    if running.web is not None:
        log.info("browser_port", url=f"http://{cfg.host}:{running.web.port}/")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting_down", grace_seconds=cfg.grace_seconds)

    async def close_metrics() -> None:
        if metrics_server is not None:
            await asyncio.to_thread(metrics_server.shutdown)  # its loop wakes every 0.5 s
            metrics_server.server_close()

    # Both ports are let go of as shutdown starts, so that a new process can listen on
    # them while this one drains its calls for up to the grace period: gRPC closes its
    # listener as server.stop begins; the metrics endpoint would listen until exit.
    await asyncio.gather(close_metrics(), running.stop(cfg.grace_seconds))


def _worker(cfg: Config, index: int) -> None:
    configure_logging(cfg.log_format, cfg.log_level)
    metrics_server = None
    if cfg.metrics_port:
        # One metrics port per worker: counters live in each process.
        metrics_server, _ = start_http_server(cfg.metrics_port + index, addr=cfg.host)
    asyncio.run(_serve(cfg, reuse_port=True, metrics_server=metrics_server))


def serve(argv: list[str] | None = None) -> int:
    cfg = Config.from_args(argv)
    configure_logging(cfg.log_format, cfg.log_level)
    print(f"tranca server: {cfg.host}:{cfg.port} (database {cfg.database_url})", flush=True)
    if cfg.web_port >= 0:
        scheme = "https" if cfg.tls_cert else "http"
        print(
            f"web table and browser endpoint (Connect, gRPC-Web): "
            f"{scheme}://{cfg.host}:{cfg.web_port}/",
            flush=True,
        )
    if cfg.workers <= 1:
        metrics_server = None
        if cfg.metrics_port:
            metrics_server, _ = start_http_server(cfg.metrics_port, addr=cfg.host)
            print(f"metrics: http://{cfg.host}:{cfg.metrics_port}/metrics", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_serve(cfg, reuse_port=False, metrics_server=metrics_server))
        return 0
    if cfg.auto_migrate:
        migrate.upgrade(normalise_url(cfg.database_url))
        cfg.auto_migrate = False
    # gRPC's core is not fork-safe: workers are spawned, each with its own server on
    # the shared port (SO_REUSEPORT; the kernel spreads connections, not calls).
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_worker, args=(cfg, i), daemon=False) for i in range(cfg.workers)]
    if cfg.metrics_port:
        last = cfg.metrics_port + cfg.workers - 1
        print(f"metrics: http://{cfg.host}:{cfg.metrics_port}..{last}/metrics", flush=True)
    return supervise(procs)


def supervise(procs: Sequence[multiprocessing.process.BaseProcess]) -> int:
    """Start worker processes, pass SIGTERM and SIGINT on to them, wait for them all."""
    for proc in procs:
        proc.start()

    def forward(signum: int, _frame: object) -> None:
        for proc in procs:
            if proc.pid:
                os.kill(proc.pid, signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    for proc in procs:
        proc.join()
    return 0
