"""Prometheus metrics of the service (served on their own HTTP port)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)

RPCS = Counter("tranca_rpc_requests_total", "RPCs handled", ["method", "code"])
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
LISTENER_UP = Gauge("tranca_notify_listener_up", "1 while the PostgreSQL LISTEN connection is up")


def observe_db(op: str, seconds: float) -> None:
    DB_LATENCY.labels(op).observe(seconds)
