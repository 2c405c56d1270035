"""The server's settings: each declared once, as a ``Config`` field with its
environment variable and help, from which ``tranca serve``'s flags and the
``TRANCA_*`` lookups are both built (``Config.from_args``).

A flag is the field's name with dashes (``db_pool_size``: ``--db-pool-size``); its
default is the environment variable when set, else the field's default; its type is
the field's (a ``bool`` is a switch, on when the variable is ``1`` or ``true``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import Field, dataclass, field, fields
from typing import Any

from .logs import LOG_LEVELS
from .services.destinations import parse_networks
from .services.limits import DEFAULT_TOKEN_LIFETIME, MAX_TOKEN_LIFETIME, MIN_TOKEN_LIFETIME
from .services.robots import ROBOT_LEVELS, level_within
from .store.database import DEFAULT_URL

# The key of an option's declaration in its field's metadata.
OPTION = "tranca_option"
# The field types an option may have (annotations are strings here: `from __future__
# import annotations`), and how a value is read from a flag or an environment variable.
OPTION_TYPES: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool}
# The values of an environment variable that turn a switch on.
TRUE_WORDS = ("1", "true")


@dataclass(frozen=True)
class Option:
    """A setting's flag and environment variable: its name, help and allowed values."""

    env: str
    help: str
    choices: tuple[object, ...] | None = None
    # Lowercase the environment variable's value (``TRANCA_LOG_LEVEL=INFO``).
    lower: bool = False


def option(
    default: Any,
    env: str,
    help: str,
    *,
    choices: Sequence[object] | None = None,
    lower: bool = False,
) -> Any:
    """A ``Config`` field that is a flag of ``tranca serve`` and an environment variable."""
    declared = Option(env, help, None if choices is None else tuple(choices), lower)
    return field(default=default, metadata={OPTION: declared})


@dataclass
class Config:
    """Every setting, from flags or TRANCA_* environment variables."""

    host: str = option("127.0.0.1", "TRANCA_HOST", "address the gRPC port listens on")
    port: int = option(50051, "TRANCA_PORT", "port of the gRPC endpoint")
    metrics_port: int = option(
        9464,
        "TRANCA_METRICS_PORT",
        "port of the Prometheus metrics endpoint (one per worker, from this one up); 0: none",
    )
    database_url: str = option(
        DEFAULT_URL, "TRANCA_DATABASE_URL", "the database: a SQLite or PostgreSQL URL"
    )
    workers: int = option(1, "TRANCA_WORKERS", "server processes sharing the port (SO_REUSEPORT)")
    auto_migrate: bool = option(
        False,
        "TRANCA_AUTO_MIGRATE",
        "apply schema migrations at start-up instead of refusing to start",
    )
    dev_api_key: str = option(
        "",
        "TRANCA_DEV_API_KEY",
        "register an app with this API key at start-up (development only)",
    )
    # No flag: tests and embedders set these.
    max_message_bytes: int = 256 * 1024
    grace_seconds: float = 10.0
    log_format: str = option(
        "json", "TRANCA_LOG_FORMAT", "json (lines of JSON) or console (for a terminal)"
    )
    log_level: str = option(
        "info",
        "TRANCA_LOG_LEVEL",
        "the least severe line written; debug adds one line per applied move",
        choices=tuple(LOG_LEVELS),
        lower=True,
    )
    tls_cert: str = option(
        "", "TRANCA_TLS_CERT", "PEM certificate chain file: serve TLS (with --tls-key)"
    )
    tls_key: str = option("", "TRANCA_TLS_KEY", "PEM private key file of --tls-cert")
    tls_client_ca: str = option(
        "",
        "TRANCA_TLS_CLIENT_CA",
        "PEM CA file: require client certificates it signed (mutual TLS)",
    )
    rate_per_token: float = option(
        100.0, "TRANCA_RATE_PER_TOKEN", "calls a second per player token (bursts of 2x)"
    )
    rate_per_app: float = option(
        2000.0, "TRANCA_RATE_PER_APP", "calls a second per API key (bursts of 2x)"
    )
    auth_failures_per_peer: float = option(
        5.0,
        "TRANCA_AUTH_FAILURES_PER_PEER",
        "failed authentications a second per peer address (bursts of 4x) before "
        "its calls with unknown credentials are refused unread; 0: no throttle",
    )
    token_lifetime: int = option(
        DEFAULT_TOKEN_LIFETIME,
        "TRANCA_TOKEN_LIFETIME",
        "seconds a player token lives when JoinGame asks for no lifetime "
        f"({MIN_TOKEN_LIFETIME} to {MAX_TOKEN_LIFETIME})",
    )
    max_watches_per_token: int = option(
        4, "TRANCA_MAX_WATCHES_PER_TOKEN", "open WatchGame streams per player token, per process"
    )
    max_watches_per_app: int = option(
        1000, "TRANCA_MAX_WATCHES_PER_APP", "open WatchGame streams per API key, per process"
    )
    health_interval: float = option(
        5.0, "TRANCA_HEALTH_INTERVAL", "seconds between database health checks"
    )
    db_timeout: float = option(5.0, "TRANCA_DB_TIMEOUT", "seconds any database call may take")
    db_pool_size: int = option(
        10,
        "TRANCA_DB_POOL_SIZE",
        "PostgreSQL connections per process for moves, as many for other calls (bursts of 2x)",
    )
    # PostgreSQL through PgBouncer in transaction mode: no prepared statement outlives
    # its query (asyncpg's statement caches off), and LISTEN goes to
    # listen_database_url (a direct or session-mode URL), never through the pooler.
    db_pgbouncer: bool = option(
        False,
        "TRANCA_DB_PGBOUNCER",
        "--database-url is a PgBouncer in transaction mode: asyncpg's prepared "
        "statement caches off (PgBouncer before 1.21 cannot keep them)",
    )
    listen_database_url: str = option(
        "",
        "TRANCA_LISTEN_DATABASE_URL",
        "PostgreSQL URL for the NOTIFY listener's own connection when "
        "--database-url goes through a transaction-mode pooler (a direct or "
        "session-mode URL); default: --database-url",
    )
    # The change feed between replicas: "" for PostgreSQL's NOTIFY (the default), or
    # nats://HOST:PORT for NATS (store/nats_feed.py).
    change_feed: str = option(
        "",
        "TRANCA_CHANGE_FEED",
        "how replicas tell each other's watchers that a game changed: empty for "
        "PostgreSQL's NOTIFY (the default), or nats://HOST:PORT for a NATS server",
    )
    max_connection_age: float = option(
        300.0,
        "TRANCA_MAX_CONNECTION_AGE",
        "seconds before a client connection is recycled (clients balancing over DNS "
        "find new replicas)",
    )
    # The highest snapshot schema written: 1 or 2 while a release that reads only those
    # still runs (below 3 the platform's tables are refused until the upgrade is over).
    snapshot_schema: int = option(
        3,
        "TRANCA_SNAPSHOT_SCHEMA",
        "highest snapshot format written (all are read): 1 or 2 during an "
        "upgrade from a release that reads only those; below 3 the platform's "
        "tables (table options, player ids) are refused",
        choices=(1, 2, 3),
    )
    sweep_interval: float = option(
        0.5,
        "TRANCA_SWEEP_INTERVAL",
        "seconds between this replica's sweeps for expired turn timers, robots' "
        "turns and finished matches to settle; 0 runs no sweeper here",
    )
    match_interval: float = option(
        1.0,
        "TRANCA_MATCH_INTERVAL",
        "seconds between this replica's quick-play passes over the waiting "
        "tickets (any number of replicas may run them); 0 runs none here",
    )
    # The server's robots (services/robots.py): their bot, and the expert's budget
    # per decision and worker processes.
    robot_level: str = option(
        "greedy",
        "TRANCA_ROBOT_LEVEL",
        "the bot that plays the robots' seats where the table asks for none: "
        "random or greedy (on the event loop) or expert (a search, in "
        "--robot-workers processes)",
        choices=ROBOT_LEVELS,
    )
    # The most expensive level a table may ask for (TableOptions.robot_level).
    robot_max_level: str = option(
        "expert",
        "TRANCA_ROBOT_MAX_LEVEL",
        "the most expensive level a table may ask its robots to play "
        "(TableOptions.robot_level; CreateGame refuses more); at least --robot-level",
        choices=ROBOT_LEVELS,
    )
    robot_ms: int = option(
        200, "TRANCA_ROBOT_MS", "the expert robot's milliseconds a decision (one core)"
    )
    robot_iterations: int = option(
        400, "TRANCA_ROBOT_ITERATIONS", "the expert robot's playouts a decision, at most"
    )
    robot_workers: int = option(
        1,
        "TRANCA_ROBOT_WORKERS",
        "worker processes the expert robots think in, per server process",
    )
    # Webhooks (services/webhooks.py): seconds between this replica's sweeps of the
    # outbox (0: it delivers none), one POST's timeout, attempts before a delivery
    # fails, the wait before the second attempt (doubling after), and how long
    # players' events are kept.
    webhook_interval: float = option(
        0.5,
        "TRANCA_WEBHOOK_INTERVAL",
        "seconds between this replica's sweeps of the webhook outbox; 0 delivers none here",
    )
    webhook_timeout: float = option(
        5.0,
        "TRANCA_WEBHOOK_TIMEOUT",
        "seconds a webhook POST may take, from connecting to the answer's end",
    )
    webhook_attempts: int = option(
        10, "TRANCA_WEBHOOK_ATTEMPTS", "attempts of a webhook delivery before it is marked failed"
    )
    webhook_backoff: float = option(
        5.0,
        "TRANCA_WEBHOOK_BACKOFF",
        "seconds before a failed delivery's second attempt (doubling, with jitter)",
    )
    event_retention_hours: float = option(
        168.0,
        "TRANCA_EVENT_RETENTION_HOURS",
        "hours players' events (and their deliveries) are kept",
    )
    # Outgoing calls (webhooks; services/destinations.py): plain http allowed (for
    # development), CIDR ranges reachable though not public (comma-separated: an
    # internal receiver), PEM certificates trusted beside the usual authorities.
    outbound_allow_http: bool = option(
        False,
        "TRANCA_OUTBOUND_ALLOW_HTTP",
        "let webhooks (and other outgoing calls) use plain http URLs: for "
        "development only; https otherwise",
    )
    outbound_allow: str = option(
        "",
        "TRANCA_OUTBOUND_ALLOW",
        "CIDR ranges, comma-separated, that outgoing calls may reach although "
        "loopback, private or otherwise not public (e.g. an internal receiver)",
    )
    outbound_ca_file: str = option(
        "",
        "TRANCA_OUTBOUND_CA_FILE",
        "PEM certificates outgoing calls trust beside the usual authorities",
    )
    # Identity providers' keys (services/key_sets.py): kept for an hour, fetched again
    # at once for a key id they do not list, but not more often than this.
    identity_keys_refresh: float = option(
        30.0,
        "TRANCA_IDENTITY_KEYS_REFRESH",
        "seconds between two fetches of one identity provider's keys for key ids they do not list",
    )
    # The browser port (api/web.py): Connect and gRPC-Web, and the web table's files
    # from web_root (default: clients/web/table/dist of this checkout, if built).
    web_port: int = option(
        -1,
        "TRANCA_WEB_PORT",
        "port of the browser endpoint (the Connect protocol and gRPC-Web, over "
        "HTTP/1.1 and HTTP/2, and the web table); -1: none",
    )
    web_root: str = option(
        "",
        "TRANCA_WEB_ROOT",
        "directory of the web table's files served on the browser port "
        "(default: clients/web/table/dist of this checkout, when it exists)",
    )
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_args(cls, argv: list[str] | None = None) -> Config:
        p = argument_parser(os.environ)
        a = p.parse_args(argv)
        check(p, a)
        return cls(**{f.name: getattr(a, f.name) for f in options()})


def options() -> list[Field[Any]]:
    """``Config``'s fields that are flags and environment variables, in order."""
    return [f for f in fields(Config) if OPTION in f.metadata]


def flag(f: Field[Any]) -> str:
    """The command-line flag of an option's field."""
    return "--" + f.name.replace("_", "-")


def argument_parser(env: Mapping[str, str]) -> argparse.ArgumentParser:
    """``tranca serve``'s parser, each flag's default taken from ``env`` when set."""
    p = argparse.ArgumentParser(prog="tranca serve", description="Run the Tranca game server.")
    for f in options():
        declared: Option = f.metadata[OPTION]
        kind = OPTION_TYPES[str(f.type)]
        raw = env.get(declared.env)
        if kind is bool:
            on = raw is not None and raw in TRUE_WORDS
            p.add_argument(flag(f), action="store_true", default=on, help=declared.help)
            continue
        default = f.default
        if raw is not None:
            default = kind(raw.lower() if declared.lower else raw)
        p.add_argument(
            flag(f), type=kind, choices=declared.choices, default=default, help=declared.help
        )
    return p


def check(p: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """The rules between settings: a usage error (``p.error``) for any broken."""
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
    try:
        parse_networks(a.outbound_allow)
    except ValueError as exc:
        p.error(f"--outbound-allow: {exc}")
