"""The game's refusal, kept out of the compiled ``table/game.py``: mypyc's compiled
``Exception`` subclasses never freed their attributes (mypy issue 21716), and one is
raised for every refused request (server/compile_engine.py says more)."""

from __future__ import annotations


class GameError(Exception):
    """A request the game's state refuses (maps to FAILED_PRECONDITION or ALREADY_EXISTS)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message
