"""The service benchmark's load specs (bench/service_bench.py, ``--games``): how many
games, their pace and how they move."""

from __future__ import annotations

# "G" is G games moving as fast as they can (throughput); "G@T" is G games with a
# pause of about T ms before each move; "G@P%" is G games offered P % of the rate the
# same round's unpaced run reached on that database and layout, evenly spaced
# (latency at a load set by the machine's own speed, so that it compares across
# machines); a trailing "w" has every seat keep a WatchGame stream open while it
# plays, as a client showing the table does (the Python SDK's ``play_seat``): each
# move then also wakes its game's watchers, who read the log and receive a view.
# A trailing "t" plays whole turns: after each draw the rest of the turn goes in one
# SubmitTurn (``tranca loadtest --turns``); a trailing "p" plays the same planned
# turns one SubmitMove a move (``--planned``), its like-for-like single-move twin:
# the two run one after the other, and their ratio is the gain of batching.
DEFAULT_GAMES = ("16", "16p", "16t", "64@25%", "64@50%", "16w")
MODES = {"w": "watched", "t": "turns", "p": "planned"}


def parse_games(spec: str) -> tuple[int, float]:
    """``"64@100"`` -> (64 games, 100 ms think time); ``"16"``, ``"16w"`` and
    ``"64@25%"`` -> (games, 0)."""
    games, _, think = spec.rstrip("wtp").partition("@")
    return int(games), 0.0 if think.endswith("%") else float(think or 0)


def pace_fraction(spec: str) -> float | None:
    """``"64@25%"`` -> 0.25: the share of the unpaced run's rate offered; None else."""
    _, _, think = spec.rstrip("wtp").partition("@")
    return float(think[:-1]) / 100 if think.endswith("%") else None


def watched(spec: str) -> bool:
    """Whether the games of ``spec`` are watched (a trailing ``w``)."""
    return spec.endswith("w")


def mode(spec: str) -> str:
    """How the games of ``spec`` submit their moves: "single" (the load generator's
    own choice, one SubmitMove a move), "planned" (planned turns, one SubmitMove a
    move), "turns" (planned turns, the rest of each after its draw in one
    SubmitTurn); "watched" is single with watch streams."""
    return MODES.get(spec[-1:], "single")
