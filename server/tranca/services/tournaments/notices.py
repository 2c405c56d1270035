"""What the players are told of a tournament's new events (``notices``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...platform.tournament_events import (
    Event,
)
from ...platform.tournaments import (
    Outcome,
    Standing,
    Tournament,
)
from ...table.events import Event as PlayerEvent
from ...table.events import EventKind


def notices(
    tournament_id: str, t: Tournament, new: Sequence[Event], standings: Sequence[Standing]
) -> list[PlayerEvent]:
    """What the players are told of ``new`` events (``t`` as they left it): each
    recorded result to both sides' players (``tournament_result``: won, lost or
    drawn, the source, points and rank now); at a knockout table the winner
    ``tournament_advanced`` (to the next round, or champion) and the loser
    ``tournament_eliminated``; when a play-off's first round is paired, its entrants
    ``tournament_advanced`` and the rest ``tournament_eliminated``."""
    place = {s.entrant: s for s in standings}
    out: list[PlayerEvent] = []

    def tell(entrant: str, kind: EventKind, payload: dict[str, Any]) -> None:
        for player in t.entrants[entrant].players:
            body = {"tournament_id": tournament_id, "entrant": entrant, **payload}
            out.append(PlayerEvent(player, kind, None, body))

    for event in new:
        if event["type"] in ("result", "correction"):
            round_no, table_no = int(event["round"]), int(event["table"])
            table = t.rounds[round_no - 1].tables[table_no - 1]
            effects = RESULT_WORDS[Outcome(event["outcome"])]
            for entrant, said in ((table.a, effects[0]), (table.b, effects[1])):
                standing = place.get(entrant)
                tell(
                    entrant,
                    EventKind.TOURNAMENT_RESULT,
                    {
                        "round": round_no,
                        "table": table_no,
                        "result": said,
                        "outcome": event["outcome"],
                        "source": event.get("source", "correction"),
                        "points": standing.points if standing else 0.0,
                        "rank": standing.rank if standing else 0,
                    },
                )
                if not t.is_knockout_round(round_no) or event["type"] == "correction":
                    continue
                if said == "won":
                    last = round_no == t.total_rounds
                    tell(
                        entrant,
                        EventKind.TOURNAMENT_ADVANCED,
                        {
                            "round": round_no,
                            "next_round": 0 if last else round_no + 1,
                            "champion": last,
                        },
                    )
                else:
                    tell(entrant, EventKind.TOURNAMENT_ELIMINATED, {"round": round_no})
        elif event["type"] == "pair" and t.playoff and int(event["round"]) == t.swiss_rounds + 1:
            qualified = set(t.playoff_seeds)
            for entrant in t.ids:
                if entrant in qualified:
                    payload = {"round": t.swiss_rounds, "next_round": t.swiss_rounds + 1}
                    tell(entrant, EventKind.TOURNAMENT_ADVANCED, {**payload, "champion": False})
                elif entrant not in t.withdrawn:
                    tell(entrant, EventKind.TOURNAMENT_ELIMINATED, {"round": t.swiss_rounds})
    return out


# Each outcome as its sides A and B are told it.
RESULT_WORDS = {
    Outcome.A_WINS: ("won", "lost"),
    Outcome.B_WINS: ("lost", "won"),
    Outcome.DRAW: ("drawn", "drawn"),
    Outcome.A_FORFEITS: ("lost", "won"),
    Outcome.B_FORFEITS: ("won", "lost"),
    Outcome.DOUBLE_NO_SHOW: ("lost", "lost"),
}
