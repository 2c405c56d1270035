"""What a game is created with: its table's options (003 "Opciones de mesa", and the
service's own) and its setup, which with the log rebuilds the whole game. Kept apart
from the game model (``table/game.py``, which re-exports both) so that the table
head's options (``table/head.py``) can build on them."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from tranca_rules.presets import Rules, rules_from_dict


@dataclass(frozen=True)
class TableOptions:
    """A table's options (003 "Opciones de mesa", plus robots and verifiable deals).
    ``express`` and ``point_limit`` are already folded into the rules' target score;
    they are kept here to show the table as it was set up."""

    turn_seconds: int = 0  # 0: no time limit
    robot_grace_seconds: int = 0  # 0: no robots
    private: bool = False
    competitive: bool = False
    stake: int = 0
    express: bool = False
    point_limit: int = 0
    verifiable: bool = False
    annulment_allowed: bool = False
    # The level the server's robots play here ("random", "greedy", "expert"); "": the
    # operator's (``tranca serve --robot-level``).
    robot_level: str = ""
    # What the players may write in the table's chat ("off", "phrases", "free"); "":
    # quick phrases at a rated partnership table, free text elsewhere
    # (platform/chat.py).
    chat: str = ""

    def to_dict(self) -> dict[str, Any]:
        # Only what differs from the defaults: most tables store nothing.
        default = TableOptions()
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(default, f.name) != getattr(self, f.name)
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TableOptions:
        known = {f.name: d[f.name] for f in fields(cls) if f.name in d}
        return cls(**known)

    def match_overrides(self, overrides: dict[str, Any]) -> dict[str, Any]:
        """The rules' overrides with the length of match this table sets: 003's "Exprés"
        ("Se juega sin límite de puntos") is a single deal (target score 0), a "Límite
        de puntos" is the target score; otherwise the overrides as given."""
        if self.express:
            return {**overrides, "target_score": 0}
        if self.point_limit:
            return {**overrides, "target_score": self.point_limit}
        return overrides

    @property
    def timed(self) -> bool:
        """Whether the sweeper has anything to do for this table while it is played."""
        return self.turn_seconds > 0 or self.robot_grace_seconds > 0


NO_OPTIONS = TableOptions()


@dataclass(frozen=True)
class Setup:
    """What a game was created with; with the log it rebuilds the whole game. Never
    changed afterwards (stores share one instance between loads)."""

    rules: Rules
    players: int
    seed: int
    deck: list[int] | None = None  # fixed order of the first deal's deck
    spectators_allowed: bool = False
    table: TableOptions = NO_OPTIONS
    # A verifiable table's secret (hex), from which each deal's server seed is derived
    # (``tranca.table.fairness``); never shown before the deal it seeds is over.
    server_secret: str | None = None
    # A table that outlives its match (services/rematch.py): the table's id (its
    # first match's game id) and this match's number there, from 2; "" and 0 for a
    # table's first match (its own game id, match 1). The seats held for the last
    # match's players until ``hold_until`` (epoch ms; the sweeper frees them then).
    # Seat numbers only: who may take a held seat is the rematch's to check.
    table_id: str = ""
    match_number: int = 0
    held: tuple[int, ...] = ()
    hold_until: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "deck": self.deck,
            "spectators_allowed": self.spectators_allowed,
        }
        # Written only when set, so that setups without them read the same everywhere.
        if self.table != NO_OPTIONS:
            out["table"] = self.table.to_dict()
        if self.server_secret is not None:
            out["server_secret"] = self.server_secret
        if self.table_id:
            out["rematch"] = {
                "table_id": self.table_id,
                "match_number": self.match_number,
                "held": list(self.held),
                "hold_until": self.hold_until,
            }
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Setup:
        table = d.get("table")
        rematch = d.get("rematch") or {}
        return cls(
            rules_from_dict(d["rules"]),
            int(d["players"]),
            int(d["seed"]),
            None if d.get("deck") is None else [int(c) for c in d["deck"]],
            bool(d.get("spectators_allowed", False)),
            NO_OPTIONS if table is None else TableOptions.from_dict(table),
            d.get("server_secret"),
            str(rematch.get("table_id", "")),
            int(rematch.get("match_number", 0)),
            tuple(int(s) for s in rematch.get("held", ())),
            int(rematch.get("hold_until", 0)),
        )

    @property
    def number(self) -> int:
        """The match's number at its table, from 1."""
        return self.match_number or 1


__all__ = ["NO_OPTIONS", "Setup", "TableOptions"]
