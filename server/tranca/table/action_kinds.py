"""The kinds of change a game's log holds (``Action.kind`` in ``table/game.py``). The
values are those stored in the log (``store/codec.py``) since its first release:
never renamed."""

from __future__ import annotations

from enum import StrEnum


class ActionKind(StrEnum):
    """What a logged action does. ``by`` (``Action.by``) says who did it where that
    matters: a robot, the server's clock, or the app removing a player."""

    # A player (or, ``by`` BY_ROBOT, a robot from the start) takes a seat at a waiting table.
    JOIN = "join"
    # A player leaves a waiting table (``by`` BY_APP: the app removed them).
    LEAVE = "leave"
    # Every seat is taken: the first deal is dealt.
    START = "start"
    # A move of the rules engine (``by`` BY_TIMEOUT or BY_ROBOT when the server played).
    MOVE = "move"
    # A player resigns a game under way: their side loses (``by`` BY_APP: removed).
    RESIGN = "resign"
    # A robot takes a silent player's seat (``by`` BY_APP: the app removed the player).
    ROBOT = "robot"
    # The player takes their seat back from the robot.
    RETURN = "return"
    # A seat votes to annul the game.
    ANNUL_VOTE = "annul_vote"
    # A player adds entropy to a verifiable table's deals before the start.
    ENTROPY = "entropy"
    # The app ends the game with no result.
    END = "end"
    # A tournament table's game closed before it started: no result.
    NO_SHOW = "no_show"
    # The seat's player was erased (SessionService.ErasePlayer): the seat's name and
    # player id become the erasure's pseudonym (``name``, ``player_id``); seat -1 for
    # a player the app had removed, whom no seat names. In any status; nothing else
    # of the game changes.
    ERASE = "erase"
    # The seat's player's account was merged into another (AdminService.MergePlayers):
    # the seat's player id becomes ``player_id``; its name stays. In any status.
    MERGE = "merge"
    # A seat of a finished match confirms the rematch at its table
    # (services/rematch.py): ``text`` is the next match's game id and, after a space,
    # when its held seats are freed (epoch ms). Only in a finished game.
    REMATCH = "rematch"
    # The seats a rematch held for the last match's players who did not confirm are
    # freed for anyone (the sweeper, when the hold's time is up). Only before the start.
    RELEASE = "release"
    # The table head (the earliest join still seated, never a robot's seat) changes the
    # table's options before the start (003 "Opciones de mesa"): ``text`` holds the
    # new options as JSON (``table/game.py``'s ``options_text``).
    OPTIONS = "options"
    # A seated player agrees to the table's stake and rated play as the head last set
    # them: the match starts only once every seated player has.
    CONSENT = "consent"


# Kinds of change logged after a match's end that are not part of the match: a
# rematch's confirmations, a player's erasure or merge. When a match ended is the
# time of its last change of another kind.
AFTER_THE_END = frozenset({ActionKind.REMATCH, ActionKind.ERASE, ActionKind.MERGE})


__all__ = ["AFTER_THE_END", "ActionKind"]
