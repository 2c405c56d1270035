"""What both load generators (``tranca loadtest`` and its echo mode) report: the
measured window's marks on stderr and latency percentiles."""

from __future__ import annotations

import statistics
import sys


def mark_window(state: str) -> None:
    """A line on stderr as the measured window opens and closes, for a harness that
    reads the CPU time of the server and database processes over the same window
    (bench/service_bench.py); stdout carries only the report."""
    print(f"loadtest: measured window {state}", file=sys.stderr, flush=True)


def latency_summary(values: list[float]) -> dict[str, float]:
    """Calls and p50/p90/p99/max in milliseconds of latencies in seconds."""
    q = statistics.quantiles(values, n=100) if len(values) >= 2 else values * 99
    return {
        "calls": len(values),
        "p50_ms": round(q[49] * 1000, 2),
        "p90_ms": round(q[89] * 1000, 2),
        "p99_ms": round(q[98] * 1000, 2),
        "max_ms": round(max(values) * 1000, 2),
    }
