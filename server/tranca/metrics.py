"""Prometheus metrics of the service (served on their own HTTP port)."""

from __future__ import annotations

import functools
from typing import Any

from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics

# No `_created` series (a start time per counter, histogram and label set): nothing
# reads them. Called when this module is imported, so it holds in every process that
# has these metrics: the server and each of its workers (spawned: fresh interpreters
# that import this module themselves). PROMETHEUS_DISABLE_CREATED_SERIES would hold
# only where it was set before prometheus_client was first imported.
disable_created_metrics()  # type: ignore[no-untyped-call]

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)

RPCS = Counter("tranca_rpc_requests_total", "RPCs handled", ["method", "code"])
# Calls that came through the browser port (Connect or gRPC-Web); RPCS counts them too.
BROWSER_CALLS = Counter(
    "tranca_browser_requests_total", "Calls made through the browser port", ["method"]
)
RPC_LATENCY = Histogram(
    "tranca_rpc_latency_seconds", "RPC latency", ["method"], buckets=LATENCY_BUCKETS
)
MOVES = Counter("tranca_moves_applied_total", "Moves applied", ["kind"])
REJECTIONS = Counter("tranca_move_rejections_total", "Moves refused by the rules", ["reason"])
CONFLICTS = Counter("tranca_version_conflicts_total", "Writes refused by the version check")
REPLAYS = Counter("tranca_idempotent_replays_total", "Retried requests answered from the log")
DB_LATENCY = Histogram(
    "tranca_db_latency_seconds", "Database operation latency", ["op"], buckets=LATENCY_BUCKETS
)
WATCHES = Gauge("tranca_watch_streams_open", "Open WatchGame streams")
GAMES = Gauge("tranca_games", "Games stored, by status", ["status"])
_LISTENER_UP = Gauge(
    "tranca_notify_listener_up",
    "1 while the PostgreSQL LISTEN connection is up",
    ["database"],
)


class _ListenerUp:
    """``tranca_notify_listener_up{database="postgresql"}``, which exists only once
    set: server.py sets it from the LISTEN connection's state, which only a
    PostgreSQL-backed server has. A SQLite-backed server exports no such series, so
    the TrancaNotifyListenerDown alert cannot fire for it."""

    def set(self, value: float) -> None:
        _LISTENER_UP.labels("postgresql").set(value)


LISTENER_UP = _ListenerUp()
# The NATS change feed (``--change-feed nats://...``, store/nats_feed.py): its
# connection's state, and the hints it brought from the bus (other replicas' moves:
# a replica's own are not echoed back to it).
CHANGE_FEED_UP = Gauge("tranca_change_feed_up", "1 while the NATS change feed is connected")
CHANGE_FEED_HINTS = Counter(
    "tranca_change_feed_hints_total", "Hints received from the NATS change feed"
)


def observe_db(op: str, seconds: float) -> None:
    db_latency(op).observe(seconds)


# The labelled children of the move path's metrics, looked up once per label value
# (``labels`` costs a few microseconds, and every move counts four): the label values
# are few and fixed (methods, status codes, move kinds, database operations).
@functools.cache
def rpc_count(method: str, code: str) -> Any:
    return RPCS.labels(method, code)


@functools.cache
def rpc_latency(method: str) -> Any:
    return RPC_LATENCY.labels(method)


@functools.cache
def moves_applied(kind: str) -> Any:
    return MOVES.labels(kind)


@functools.cache
def db_latency(op: str) -> Any:
    return DB_LATENCY.labels(op)


# ----- friendly annulment and verifiable deals (services/tables.py) -----------------
ANNUL_VOTES = Counter("tranca_annul_votes_total", "Votes to annul a match (VoteAnnul)")
ANNULMENTS = Counter(
    "tranca_annulments_total", "Matches annulled by agreement (003 'anular partida')"
)
ENTROPY_ADDED = Counter(
    "tranca_entropy_added_total", "Entropy strings mixed into verifiable tables' deals"
)

# ----- tournaments (TournamentService) ------------------------------------------------
# Set after every change a TournamentService call makes; a game's result that ends a
# tournament is recorded by the settlement, so server.py's periodic refresh (with the
# games-by-status gauge) sets it too, from TournamentStore.count_running.
TOURNAMENTS_RUNNING = Gauge("tranca_tournaments_running", "Tournaments running (every app's)")

# ----- ratings, ranking points and chips (services/settlement.py, matches.py, players.py)
MATCHES_SETTLED = Counter(
    "tranca_matches_settled_total",
    "Finished matches settled, by outcome: rated (competitive), annulled, forfeited, practice",
    ["outcome"],
)
SETTLEMENT_FAILURES = Counter(
    "tranca_settlement_failures_total", "Settlements that failed and are retried next sweep"
)
CHIPS_STAKED = Counter("tranca_chips_staked_total", "Chips taken into pots as matches started")
CHIPS_MOVED = Counter(
    "tranca_chips_moved_total",
    "Chips moved by settlements, grants and tournaments' prize pools, by purpose: payout, "
    "house_share, refund, grant, entry_fee, entry_refund, prize",
    ["purpose"],
)

# ----- Turn timers and robots (services/timers.py, services/presence.py) -----------------------
TURN_TIMEOUTS = Counter(
    "tranca_turn_timeouts_total", "Turns whose time ran out and which the server played"
)
ROBOT_TAKEOVERS = Counter(
    "tranca_robot_takeovers_total", "Seats a robot took over from a silent player"
)
SEATS_RECLAIMED = Counter("tranca_seats_reclaimed_total", "Seats taken back from a robot")
AUTOMATIC_SWITCHES = Counter(
    "tranca_automatic_switches_total",
    "Automatic mode switched on or off by a seat's player",
    ["to"],
)  # to: on or off
ABANDONMENTS = Counter(
    "tranca_abandonments_total", "Players penalised for abandoning a rated match", ["how"]
)  # how: left or robot
SERVER_MOVES = Counter(
    "tranca_server_moves_total", "Moves the server played for a seat", ["by"]
)  # by: timeout or robot
FALLBACKS_DROPPED = Counter(
    "tranca_fallbacks_dropped_total",
    "Server moves not written because the game changed meanwhile (the player moved)",
)
SWEEPS = Counter("tranca_sweeps_total", "Sweeps run, by outcome", ["outcome"])
SWEEP_SECONDS = Histogram("tranca_sweep_seconds", "Duration of one sweep", buckets=LATENCY_BUCKETS)

# Quick play (services/quick_play.py).
TICKETS_ASKED = Counter("tranca_quick_play_tickets_total", "Quick-play tickets asked for")
TICKETS_ENDED = Counter(
    "tranca_quick_play_tickets_ended_total",
    "Quick-play tickets that stopped waiting, by outcome",
    ["outcome"],
)
TABLES_MATCHED = Counter("tranca_quick_play_tables_total", "Tables quick play made")
MATCH_WAIT = Histogram(
    "tranca_quick_play_wait_seconds",
    "How long a matched ticket waited",
    buckets=(0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 900),
)

# Webhooks (services/webhooks.py).
WEBHOOK_ATTEMPTS = Counter(
    "tranca_webhook_attempts_total",
    "Webhook delivery attempts, by outcome (delivered, retry, failed, no_webhook)",
    ["outcome"],
)
WEBHOOK_DELAY = Histogram(
    "tranca_webhook_delay_seconds",
    "From an event's write to its delivery's 2xx answer",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600),
)
