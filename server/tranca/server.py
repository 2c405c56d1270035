"""Wiring: the database, the notifier, the use cases and their transports (the gRPC
server with health and reflection, the browser port), and the background tasks.

The settings are in ``tranca.config`` and the processes that serve (signals, worker
processes sharing one port) in ``tranca.processes``; ``Config`` and
``configure_logging`` are importable from here too."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
import structlog
from google.protobuf.descriptor import ServiceDescriptor
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from . import metrics
from .api.admin import AdminService
from .api.chat import ChatService
from .api.edge import add_service
from .api.invitations import InvitationService
from .api.notifications import NotificationService
from .api.players import PlayerService
from .api.progression import ProgressionService
from .api.quick_play import QuickPlayService
from .api.servicer import GameService
from .api.sessions import SessionService
from .api.social import SocialService
from .api.tables import TableService
from .api.tournaments import TournamentService

# Re-exported: tests and benchmarks import the settings and logging from the wiring.
from .config import Config as Config
from .logs import LOG_LEVELS as LOG_LEVELS
from .logs import configure_logging as configure_logging
from .outbound import OutboundClient, SystemResolver
from .services.access import Access, FailedAuthThrottle
from .services.account_merge import AccountMerge
from .services.admin import Admin
from .services.audit import AuditLog
from .services.avatars import Avatars
from .services.chat import Chat
from .services.chat_filter import ProfanityFilter
from .services.chat_moderation import ChatModeration
from .services.chat_retention import ChatRetention
from .services.compute import Compute
from .services.destinations import Destinations, OutboundPolicy, Resolver, parse_networks
from .services.dev_identity import DevIdentity, DevKeyFetcher
from .services.friends import Friends
from .services.games import Games
from .services.identity_links import IdentityLinks
from .services.identity_sign_in import IdentitySignIn
from .services.invitations import Invitations
from .services.key_sets import HttpKeyFetcher, KeyFetcher, KeySets
from .services.limits import RateLimiter, WatchCounts
from .services.lobby import Lobby
from .services.matches import Matches
from .services.matchmaker import Matchmaker
from .services.moves import Moves, now_ms
from .services.notifications import Notifications
from .services.origins import Origins
from .services.player_data import PlayerData
from .services.player_erasure import PlayerErasure
from .services.player_presence import PlayerPresence, Sightings
from .services.players import Players
from .services.presence import Presence
from .services.profiles import Profiles
from .services.progression import Progressions
from .services.quick_play import QuickPlay
from .services.rematch import Rematch
from .services.robots import Robots, RobotSettings
from .services.sessions import Sessions
from .services.settlement import Settlement
from .services.table_options import TableHead
from .services.tables import Tables
from .services.timers import Sweeper
from .services.tournaments import Tournaments
from .services.webhooks import Deliverer, DeliveryPolicy, Webhooks
from .store import migrate
from .store.abandonment_store import AbandonmentsStore
from .store.audit_store import AuditStore
from .store.avatars_store import AvatarsStore
from .store.chat_store import ChatStore
from .store.database import is_sqlite, make_engine, normalise_url
from .store.erasure_store import ErasureStore
from .store.friends_store import FriendsStore
from .store.hints import Hub, PostgresListener
from .store.identities_store import IdentitiesStore
from .store.invitations_store import InvitationsStore
from .store.lobby_store import LobbyStore
from .store.merge_store import MergeStore
from .store.moderation_store import ModerationStore
from .store.nats_feed import NatsFeed
from .store.notifications_store import NotificationsStore
from .store.played_games_store import PlayedGamesStore
from .store.players_store import PlayersStore
from .store.presence_store import PresenceStore
from .store.profiles_store import ProfilesStore
from .store.progression_store import ProgressionStore
from .store.quick_play_store import QuickPlayStore
from .store.rematch_store import RematchStore
from .store.repository import Store
from .store.sessions_store import SessionsStore
from .store.settlement import SettlementStore
from .store.table_head_store import TournamentTablesStore
from .store.tournament_store import TournamentStore
from .store.watch_leases import WatchLeases

if TYPE_CHECKING:  # imported when a browser port is served (start): its web stack
    # (Starlette, Hypercorn) would cost a replica that serves none about 8 MB
    from .web_port import WebPort
from .v1 import (
    admin_pb2,
    chat_pb2,
    game_pb2,
    invitations_pb2,
    notifications_pb2,
    platform_pb2,
    progression_pb2,
    quick_play_pb2,
    session_pb2,
    social_pb2,
    tables_pb2,
)

SERVICE_NAME = game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
PLAYER_SERVICE_NAME = platform_pb2.DESCRIPTOR.services_by_name["PlayerService"].full_name
TOURNAMENT_SERVICE_NAME = platform_pb2.DESCRIPTOR.services_by_name["TournamentService"].full_name
SESSION_SERVICE_NAME = session_pb2.DESCRIPTOR.services_by_name["SessionService"].full_name
ADMIN_SERVICE_NAME = admin_pb2.DESCRIPTOR.services_by_name["AdminService"].full_name
QUICK_PLAY_SERVICE_NAME = quick_play_pb2.DESCRIPTOR.services_by_name["QuickPlayService"].full_name
NOTIFICATION_SERVICE = notifications_pb2.DESCRIPTOR.services_by_name["NotificationService"]
SOCIAL_SERVICE = social_pb2.DESCRIPTOR.services_by_name["SocialService"]
CHAT_SERVICE = chat_pb2.DESCRIPTOR.services_by_name["ChatService"]
INVITATION_SERVICE = invitations_pb2.DESCRIPTOR.services_by_name["InvitationService"]
TABLE_SERVICE = tables_pb2.DESCRIPTOR.services_by_name["TableService"]
PROGRESSION_SERVICE = progression_pb2.DESCRIPTOR.services_by_name["ProgressionService"]
# A health name for liveness probes: SERVING while the process runs, whatever the
# database does (a restart would not bring a database back); NOT_SERVING at shutdown.
LIVENESS = "tranca.liveness"
log = structlog.get_logger("tranca.server")


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
        self.poster: OutboundClient | None = None
        # The HTTP client that fetches identity providers' keys (its pool is made
        # at the first fetch).
        self.key_client: OutboundClient | None = None
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
        if self.key_client is not None:
            await self.key_client.close()
        if self.compute is not None:
            self.compute.close()
        if self.sweeper is not None:
            # The expert robots' worker processes (none were started for greedy).
            await asyncio.to_thread(self.sweeper.robots.close)
        await self.store.close()


async def start(
    cfg: Config, *, reuse_port: bool = False, resolver: Resolver | None = None
) -> Running:
    """A started server; ``resolver`` resolves outgoing calls' host names (default:
    the system's; tests give their own)."""
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
            origin=store.move_path.origin or "",
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
    # Invitations to tables: also whom a private table admits without its code.
    invitations_store = InvitationsStore(store, now_ms)
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
        guests=invitations_store,
    )
    players_store = PlayersStore(store)
    players = Players(players_store, access)
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
    # Players' abandonments of rated matches: quick play's cooldown, their profiles.
    abandonments_store = AbandonmentsStore(store)
    quick_play = QuickPlay(
        tickets,
        access,
        matches,
        sessions_store,
        now_ms,
        cfg.token_lifetime,
        blocks=invitations_store,
        abandonments=abandonments_store,
    )
    notes = NotificationsStore(store)
    # Where outgoing calls may go: checked when a webhook is set and at each delivery.
    destinations = Destinations(
        resolver or SystemResolver(),
        OutboundPolicy(cfg.outbound_allow_http, parse_networks(cfg.outbound_allow)),
    )
    # Identity providers' keys: fetched through the same checks as every outgoing call.
    key_client = OutboundClient(ca_file=cfg.outbound_ca_file)
    identities_store = IdentitiesStore(store)
    profiles_store = ProfilesStore(store)
    avatars = Avatars(access, AvatarsStore(store), profiles_store, now_ms)
    audit_store = AuditStore(store)
    friends_store = FriendsStore(store)
    # Players' presence: every call with a player's session or seat token (and their
    # open event stream) records them seen, at most every few seconds per process.
    presence_store = PresenceStore(store)
    # Sightings written once a second in one transaction, never on a call's path.
    sightings = Sightings(presence_store, now_ms, batch_seconds=1.0)
    access.sightings = sightings
    player_presence = PlayerPresence(access, presence_store, sessions_store, now_ms)
    key_fetcher: KeyFetcher = HttpKeyFetcher(destinations, key_client)
    # The development app also accepts a test identity provider of the server's own.
    dev_identity = DevIdentity(cfg.dev_api_key) if cfg.dev_api_key else None
    if dev_identity is not None:
        key_fetcher = DevKeyFetcher(key_fetcher, dev_identity)
    identities = IdentitySignIn(
        sessions,
        identities_store,
        KeySets(key_fetcher, min_refresh=cfg.identity_keys_refresh),
        now_ms,
    )
    notifications = Notifications(
        notes,
        access,
        event_hub,
        WatchCounts(cfg.max_watches_per_token, cfg.max_watches_per_app),
    )
    chat_store = ChatStore(store)
    chat = Chat(
        access,
        chat_store,
        sessions_store,
        ProfanityFilter(),
        now_ms,
        WatchCounts(cfg.max_watches_per_token * 2, cfg.max_watches_per_app),
        hub,
        feed or hub,
        event_hub,
        hold=feed.hold if feed is not None else None,
        steady=lambda: hub.steady,
    )
    # Each service's servicer, served on the gRPC port and on the browser port alike.
    services: list[tuple[object, ServiceDescriptor]] = [
        (
            GameService(
                games,
                Tables(games, sessions_store),
                Lobby(LobbyStore(store), access),
                TableHead(games, sessions_store, TournamentTablesStore(store)),
            ),
            game_pb2.DESCRIPTOR.services_by_name["GameService"],
        ),
        (PlayerService(players), platform_pb2.DESCRIPTOR.services_by_name["PlayerService"]),
        (
            TournamentService(tournaments),
            platform_pb2.DESCRIPTOR.services_by_name["TournamentService"],
        ),
        (
            SessionService(
                sessions,
                identities,
                IdentityLinks(access, identities, identities_store),
                Profiles(access, profiles_store, now_ms, abandonments_store),
                PlayerData(
                    access,
                    sessions_store,
                    identities_store,
                    profiles_store,
                    players_store,
                    notes,
                    PlayedGamesStore(store),
                    audit_store,
                    friends_store,
                    now_ms,
                    invitations=invitations_store,
                    chat=chat_store,
                    presence=presence_store,
                    abandonments=abandonments_store,
                    progression=ProgressionStore(store),
                ),
                PlayerErasure(access, ErasureStore(store), now_ms, notifier=feed or hub),
                avatars,
            ),
            session_pb2.DESCRIPTOR.services_by_name["SessionService"],
        ),
        (
            AdminService(
                Admin(store, access, moves),
                AuditLog(access, audit_store),
                AccountMerge(access, MergeStore(store), now_ms, notifier=feed or hub),
            ),
            admin_pb2.DESCRIPTOR.services_by_name["AdminService"],
        ),
        (
            QuickPlayService(quick_play),
            quick_play_pb2.DESCRIPTOR.services_by_name["QuickPlayService"],
        ),
        (
            NotificationService(notifications, Webhooks(notes, access, destinations)),
            NOTIFICATION_SERVICE,
        ),
        (
            SocialService(
                Friends(
                    access,
                    friends_store,
                    sessions_store,
                    now_ms,
                    event_hints=event_hub,
                    presence=player_presence,
                ),
                player_presence,
            ),
            SOCIAL_SERVICE,
        ),
        (
            ChatService(chat, ChatModeration(access, chat, ModerationStore(store), now_ms)),
            CHAT_SERVICE,
        ),
        # ----- invitations to tables --------------------------------------------------
        (
            InvitationService(
                Invitations(
                    access, invitations_store, games, sessions_store, now_ms, event_hints=event_hub
                )
            ),
            INVITATION_SERVICE,
        ),
        # ----- tables that outlive their match -----------------------------------------
        (
            TableService(Rematch(games, RematchStore(store), sessions_store, now_ms)),
            TABLE_SERVICE,
        ),
        # ----- experience, levels and achievements ----------------------------------
        (
            ProgressionService(Progressions(access, ProgressionStore(store), sessions_store)),
            PROGRESSION_SERVICE,
        ),
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
            SOCIAL_SERVICE.full_name,
            CHAT_SERVICE.full_name,
            INVITATION_SERVICE.full_name,
            TABLE_SERVICE.full_name,
            PROGRESSION_SERVICE.full_name,
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
    running.key_client = key_client
    running.feed = feed
    running.compute = compute
    running.tournaments = tournaments
    if cfg.web_port >= 0:
        from .api.browser import OpenStreams, reflection_apps, service_apps
        from .api.web import BrowserApp
        from .web_port import WebPort, open_development_app, web_root

        web_app = ""
        if dev_app:
            # The web table signs players into the development app, as guests or
            # with the test identity provider.
            web_app = dev_app
            await open_development_app(sessions_store, dev_app, dev_identity)
        streams = OpenStreams()
        running.web = await WebPort.start(
            BrowserApp(
                {
                    **service_apps(services, read_max_bytes=cfg.max_message_bytes, streams=streams),
                    **reflection_apps(descriptor.full_name for _, descriptor in services),
                },
                origins,
                web_root(cfg.web_root),
                {
                    "appId": web_app,
                    "guestSignIn": bool(web_app),
                    "devIdentity": bool(web_app) and dev_identity is not None,
                },
                dev_tokens=dev_identity.token if web_app and dev_identity else None,
                avatar_images=avatars.image,
            ),
            cfg.host,
            cfg.web_port,
            grace=cfg.grace_seconds,
            end_streams=streams.end_all,
            tls=(cfg.tls_cert, cfg.tls_key) if cfg.tls_cert else None,
            reuse_port=reuse_port,
        )
    running.tasks.append(asyncio.create_task(_watch_database(running, cfg.health_interval)))
    running.tasks.append(asyncio.create_task(sightings.run()))
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
        # Chat older than each app's retention, deleted by the replicas that sweep.
        retention = ChatRetention(chat_store, sessions_store, now_ms)
        running.tasks.append(asyncio.create_task(retention.run()))
    running.matchmaker = Matchmaker(tickets, hub, now_ms, blocks=friends_store)
    if cfg.match_interval > 0:
        running.tasks.append(asyncio.create_task(running.matchmaker.run(cfg.match_interval)))
    if cfg.webhook_interval > 0:
        running.poster = OutboundClient(ca_file=cfg.outbound_ca_file)
        running.deliverer = Deliverer(notes, running.poster, destinations, delivery_policy(cfg))
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
