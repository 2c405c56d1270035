"""A tournament's standings, pairings and results as an organiser exports them, in CSV
or JSON. Pure: no I/O.

Two documents: the standings (rank, entrant, players, points, wins, draws, losses,
byes, forfeits, Buchholz, Sonneborn-Berger, withdrawn, and the prize won once a
tournament with an entry fee has finished) and the rounds (one row per
table: round, table, entrant A, entrant B, outcome, the result's source, the game;
one row per bye, its outcome ``bye``), all rounds or one.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .tournament_events import latest_result
from .tournaments import Standing, Tournament

STANDINGS_COLUMNS = (
    "rank",
    "entrant",
    "players",
    "points",
    "wins",
    "draws",
    "losses",
    "byes",
    "forfeits",
    "buchholz",
    "sonneborn_berger",
    "withdrawn",
    "prize",
)
ROUND_COLUMNS = ("round", "table", "entrant_a", "entrant_b", "outcome", "source", "game_id")


def standings_rows(
    t: Tournament, standings: Sequence[Standing], prizes: Mapping[str, int] | None = None
) -> list[dict[str, Any]]:
    return [
        {
            "rank": s.rank,
            "entrant": s.entrant,
            "players": " ".join(t.entrants[s.entrant].players) if s.entrant in t.entrants else "",
            "points": s.points,
            "wins": s.wins,
            "draws": s.draws,
            "losses": s.losses,
            "byes": s.byes,
            "forfeits": s.forfeits,
            "buchholz": s.buchholz,
            "sonneborn_berger": s.sonneborn_berger,
            "withdrawn": s.withdrawn,
            "prize": (prizes or {}).get(s.entrant, 0),
        }
        for s in standings
    ]


def round_rows(
    t: Tournament,
    events: Sequence[Mapping[str, Any]],
    games: Mapping[tuple[int, int], str],
    round_no: int = 0,
) -> list[dict[str, Any]]:
    """Every table (and bye) of round ``round_no`` (0: of every round)."""
    rows: list[dict[str, Any]] = []
    for rnd in t.rounds:
        if round_no and rnd.number != round_no:
            continue
        for tb in rnd.tables:
            latest = latest_result(events, rnd.number, tb.number)
            outcome = t.result(tb)
            rows.append(
                {
                    "round": rnd.number,
                    "table": tb.number,
                    "entrant_a": tb.a,
                    "entrant_b": tb.b,
                    "outcome": outcome.value if outcome else "",
                    "source": str(latest["source"]) if latest else "",
                    "game_id": games.get((rnd.number, tb.number), ""),
                }
            )
        for e in rnd.byes:
            rows.append(
                {
                    "round": rnd.number,
                    "table": 0,
                    "entrant_a": e,
                    "entrant_b": "",
                    "outcome": "bye",
                    "source": "",
                    "game_id": "",
                }
            )
    return rows


def as_csv(columns: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def as_json(rows: Sequence[Mapping[str, Any]]) -> str:
    return json.dumps(list(rows), indent=1) + "\n"


__all__ = [
    "ROUND_COLUMNS",
    "STANDINGS_COLUMNS",
    "as_csv",
    "as_json",
    "round_rows",
    "standings_rows",
]
