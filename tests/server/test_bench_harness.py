"""The service benchmark's own accounting: CPU time over the load generator's
measured window, and the summary of several rounds (bench/ceilings.py,
bench/service_bench.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from bench import ceilings

BENCH = Path(__file__).resolve().parents[2] / "bench"

# A stand-in for `tranca loadtest`: half a CPU second before its window, a fifth of
# one inside it, half a second after, then its report.
FAKE_LOADTEST = """
import sys, time
def burn(seconds):
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass
burn(0.5)
print("loadtest: measured window open", file=sys.stderr, flush=True)
burn(0.2)
print("loadtest: measured window closed", file=sys.stderr, flush=True)
burn(0.5)
print('{"moves": 100}')
"""


def test_cpu_is_counted_over_the_marked_window_only() -> None:
    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        result, code, cpu = ceilings.run_json_metered(
            [sys.executable, "-c", FAKE_LOADTEST],
            timeout=60,
            groups={"server": lambda: ceilings.process_tree(idle.pid)},
        )
    finally:
        idle.kill()
        idle.wait()
    assert code == 0 and result == {"moves": 100}
    assert cpu is not None
    # The load generator's own fifth of a second (clock ticks are 10 ms), not the
    # second it burnt outside the window; the sleeping "server" used next to nothing.
    assert 0.15 <= cpu["load"] <= 0.45
    assert cpu["server"] < 0.1
    per_move = ceilings.cpu_ms_per(cpu, result["moves"])
    assert per_move is not None and 1.5 <= per_move["load"] <= 4.5


def test_a_run_that_marks_no_window_has_no_cpu_figures() -> None:
    result, code, cpu = ceilings.run_json_metered(
        [sys.executable, "-c", 'print("{}")'], timeout=60, groups={}
    )
    assert (result, code, cpu) == ({}, 0, None)
    assert ceilings.cpu_ms_per(cpu, 10) is None


def test_the_process_tree_holds_a_process_and_its_children() -> None:
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time; "
            "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)']); "
            "print(c.pid, flush=True); time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert set(ceilings.process_tree(parent.pid)) == {parent.pid, child}
    finally:
        for pid in ceilings.process_tree(parent.pid):
            subprocess.run(["kill", str(pid)], check=False)
        parent.wait()


@pytest.fixture
def service_bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    # The benchmark scripts import their neighbours by name, as when run from bench/.
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module("service_bench")


def _run(moves: float, ratio: float, p99: float, lost: int = 0, **cpu: float) -> dict[str, Any]:
    return {
        "database": "postgresql",
        "workers": 1,
        "games": 64,
        "think_ms": 100.0,
        "moves_per_second": moves,
        "submit_p50_ms": p99 / 4,
        "submit_p99_ms": p99,
        "rpcs_per_move": 1.0,
        "db_ceiling_tps": moves / ratio,
        "transport_ceiling_cps": 3000.0,
        "ratio": ratio,
        "cpu_ms_per_move": cpu or None,
        "verification": {"lost": lost, "doubled": 0},
    }


def test_rounds_are_summarised_by_their_medians(service_bench: ModuleType) -> None:
    rounds = [
        [_run(600, 0.30, 20, server=1.5, load=0.6, database=0.7)],
        [_run(500, 0.20, 40, server=1.7, load=0.7, database=0.8)],
        [_run(650, 0.35, 22, lost=1, server=1.4, load=0.5, database=0.6)],
    ]
    (summary,) = service_bench.summarise(rounds)
    assert summary["runs"] == 3
    assert summary["moves_per_second"] == 600
    assert summary["submit_p99_ms"] == 22
    assert (summary["ratio"], summary["ratio_min"], summary["ratio_max"]) == (0.30, 0.20, 0.35)
    assert summary["cpu_ms_per_move"] == {"database": 0.7, "load": 0.6, "server": 1.5}
    # A lost move in any round shows in the summary: it is never averaged away.
    assert (summary["lost"], summary["doubled"]) == (1, 0)


def test_configurations_are_summarised_apart(service_bench: ModuleType) -> None:
    sqlite = {**_run(800, 0.3, 30), "database": "sqlite"}
    summary = service_bench.summarise([[_run(600, 0.3, 20), sqlite]])
    assert [(s["database"], s["moves_per_second"]) for s in summary] == [
        ("postgresql", 600),
        ("sqlite", 800),
    ]
    assert summary[1]["cpu_ms_per_move"] is None


def test_a_watched_run_is_named_by_a_trailing_w_and_summarised_apart(
    service_bench: ModuleType,
) -> None:
    assert service_bench.parse_games("16w") == (16, 0.0)
    assert service_bench.parse_games("64@100") == (64, 100.0)
    assert service_bench.watched("16w") and not service_bench.watched("64@100")
    plain = {**_run(1300, 0.3, 20), "games": 16, "think_ms": 0.0, "watched": False}
    watched = {**plain, "watched": True, "moves_per_second": 700}
    summary = service_bench.summarise([[plain, watched]])
    assert [(s["watched"], s["moves_per_second"]) for s in summary] == [
        (False, 1300),
        (True, 700),
    ]


def test_a_paced_run_is_a_share_of_the_unpaced_rate_and_summarised_apart(
    service_bench: ModuleType,
) -> None:
    assert service_bench.parse_games("64@25%") == (64, 0.0)
    assert service_bench.pace_fraction("64@25%") == 0.25
    assert service_bench.pace_fraction("64@100") is None
    assert service_bench.pace_fraction("16w") is None
    unpaced = {**_run(1000, 0.3, 20), "games": 64, "think_ms": 0.0, "pace": None}
    quarter = {**unpaced, "pace": 0.25, "offered_rate": 250.0, "moves_per_second": 249}
    half = {**unpaced, "pace": 0.5, "offered_rate": 500.0, "moves_per_second": 498}
    summary = service_bench.summarise([[unpaced, quarter, half]])
    assert [(s["pace"], s["moves_per_second"]) for s in summary] == [
        (None, 1000),
        (0.25, 249),
        (0.5, 498),
    ]
    assert summary[1]["offered_rate"] == 250.0


def test_the_combined_ceiling_adds_the_costs_of_a_transaction_and_a_call(
    service_bench: ModuleType,
) -> None:
    # 1 / (1/2000 + 1/3000): 0.5 ms and 0.333 ms of the machine per move.
    assert service_bench.combined_ceiling(2000.0, 3000.0) == pytest.approx(1200.0)
    assert service_bench.combined_ceiling(None, 3000.0) is None
    assert service_bench.combined_ceiling(2000.0, 0.0) is None


def test_the_load_generator_paces_every_game_from_one_clock() -> None:
    """Slots at 200 a second shared by 20 waiting games: 40 moves cannot take less
    than 40 slots, however many games there are (no upper bound: the machine may be
    busy; this checks the spacing, not the speed)."""
    import asyncio
    import time

    from tranca.tools.loadgen import Pacer

    async def forty() -> float:
        pacer = Pacer(200.0)
        started = time.perf_counter()

        async def game() -> None:
            for _ in range(2):
                await pacer.wait()

        await asyncio.gather(*(game() for _ in range(20)))
        return time.perf_counter() - started

    took = asyncio.run(forty())
    assert took >= 39 / 200
