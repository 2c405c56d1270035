"""What a player is told: the events of a change of a game (pure: no I/O).

An event is addressed to a player by the app's own id for them (``Seat.player_id``):
seats without one (anonymous players, the load generator's bots, robots' seats from
the start) are told nothing, and a game none of whose seats has one costs the move
path one pass over its seats (``before``), nothing more.

The events of a change are decided from the game as it was before the change
(``before``: its status and the seat to act) and as it is after (``game_events``):

- ``your_turn``: the turn passed to a seat of another player (a new match's first
  turn included), that player not replaced by a robot for now;
- ``game_over``: the match ended (won, drawn, resigned or annulled), to every seat
  with a player id, with the result.

The other kinds (``match_found``, ``invited``, ``tournament_round_ready``) are
written by the use cases that make them, with whatever change they belong to.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .game import FINISHED, PLAYING, GameState, GameStatus


class EventKind(StrEnum):
    """The kinds of events; the values are the stored ones and what webhooks carry
    as their ``type``."""

    YOUR_TURN = "your_turn"
    GAME_OVER = "game_over"
    MATCH_FOUND = "match_found"
    INVITED = "invited"
    TOURNAMENT_ROUND_READY = "tournament_round_ready"
    TOURNAMENT_RESULT = "tournament_result"  # a table's result recorded
    TOURNAMENT_ADVANCED = "tournament_advanced"  # through a knockout round, or to a play-off
    TOURNAMENT_ELIMINATED = "tournament_eliminated"  # out of a knockout, or of the play-off cut
    FRIENDSHIP = "friendship"  # a friend, a request or a block changed (services/friends.py)
    DIRECT_MESSAGE = "direct_message"  # a friend wrote to the player (services/chat.py)
    CHAT_WARNING = "chat_warning"  # a moderator warned the player (chat_moderation.py)
    CHAT_SANCTION = "chat_sanction"  # a moderator muted or banned the player's chat
    # An invitation to a table made, answered or cancelled (services/invitations.py).
    TABLE_INVITATION = "table_invitation"
    # A settled rated match unlocked an achievement, or raised the player's level
    # (services/progression.py).
    ACHIEVEMENT_UNLOCKED = "achievement_unlocked"
    LEVEL_UP = "level_up"


EVENT_KINDS: frozenset[str] = frozenset(k.value for k in EventKind)


@dataclass(frozen=True, slots=True)
class Event:
    """One event for one player of an app (the app is the game's, or the caller's).
    ``payload`` is plain JSON (strings, numbers, booleans, None, lists, dicts)."""

    player_id: str
    kind: EventKind
    game_id: str | None
    payload: dict[str, Any]


# The game before a change, as far as events go: its status and the seat to act (-1
# when no deal is being played). None: no seat has a player id, nothing to tell.
Before = tuple[GameStatus, int]


def before(g: GameState) -> Before | None:
    """What ``game_events`` compares with, taken before the change is applied."""
    for seat in g.seats:
        if seat.player_id:
            break
    else:
        return None
    deal = g.deal
    return g.status, (deal.turn if g.status == PLAYING and deal is not None else -1)


def sides(g: GameState) -> int:
    """How many sides a match has: partnerships at four, every player else."""
    return 2 if g.setup.players == 4 else g.setup.players


def game_events(
    was: Before, game_id: str, g: GameState, version: int, deadline_at: int | None
) -> tuple[Event, ...]:
    """The events of the change that took the game from ``was`` to ``g`` (now at
    ``version``); ``deadline_at`` is the new turn's time limit (epoch ms) if the
    table has one, else None."""
    status = g.status
    if status == FINISHED:
        if was[0] == FINISHED:
            return ()
        return _game_over(game_id, g, version)
    deal = g.deal
    if status != PLAYING or deal is None:
        return ()
    turn = deal.turn
    if was[0] == PLAYING and was[1] == turn:
        return ()  # the same seat goes on (a meld after a draw, a new deal it opens)
    player_id = g.seats[turn].player_id
    if not player_id or turn in g.robots:
        return ()
    payload = {"game_id": game_id, "seat": turn, "version": version, "deadline_ms": deadline_at}
    return (Event(player_id, EventKind.YOUR_TURN, game_id, payload),)


def _game_over(game_id: str, g: GameState, version: int) -> tuple[Event, ...]:
    n_sides = sides(g)
    totals = list(g.match.totals) if g.match is not None else []
    events = []
    for i, seat in enumerate(g.seats):
        if not seat.player_id:
            continue
        side = i % n_sides
        payload = {
            "game_id": game_id,
            "seat": i,
            "version": version,
            "side": side,
            # -1: no winner (annulled), -2: drawn; else the winning side.
            "winner": g.winner,
            "won": g.winner >= 0 and g.winner == side,
            "result_reason": g.result_reason,
            "totals": totals,
        }
        events.append(Event(seat.player_id, EventKind.GAME_OVER, game_id, payload))
    return tuple(events)
