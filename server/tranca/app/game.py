"""A game as the service keeps it: seats, the match, and the actions that change it.

Everything that changes a game is an ``Action`` (a player joins, the game starts, a
move, a resignation), logged in order; the game's state is the fold of its log
from its setup, which is how the tests rebuild every stored snapshot. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..rules.engine import apply
from ..rules.errors import InvalidMove
from ..rules.match import DRAWN, Match
from ..rules.moves import Move, move_text, parse_move
from ..rules.presets import Rules, rules_from_dict
from ..rules.scoring import score_deal
from ..rules.state import DealState

WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
# 2: the rules are stored once, in the setup (1 also repeated them in the match and
# in the deal; such snapshots still load, the copies being ignored). A store may
# keep the setup apart from the snapshot (``to_dict(with_setup=False)``) and pass it
# back to ``from_dict``: it never changes after the game is created.
GAME_SCHEMA_VERSION = 2
READABLE_SCHEMAS = (1, 2)


class GameError(Exception):
    """A request the game's state refuses (maps to FAILED_PRECONDITION or ALREADY_EXISTS)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class Setup:
    """What a game was created with; with the log it rebuilds the whole game. Never
    changed afterwards (stores share one instance between loads)."""

    rules: Rules
    players: int
    seed: int
    deck: list[int] | None = None  # fixed order of the first deal's deck
    spectators_allowed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "deck": self.deck,
            "spectators_allowed": self.spectators_allowed,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Setup:
        return cls(
            rules_from_dict(d["rules"]),
            int(d["players"]),
            int(d["seed"]),
            None if d.get("deck") is None else [int(c) for c in d["deck"]],
            bool(d.get("spectators_allowed", False)),
        )


@dataclass
class Seat:
    name: str = ""
    taken: bool = False
    resigned: bool = False


@dataclass
class GameState:
    setup: Setup
    seats: list[Seat]
    status: str = WAITING
    match: Match | None = None
    last_deal: dict[str, Any] | None = None  # result of the last finished deal
    winner: int = -1  # winning side, -2 drawn, -1 none yet
    result_reason: str = ""
    deal_starts: list[int] = field(default_factory=list)  # version of each deal's start

    @property
    def deal(self) -> DealState | None:
        return self.match.deal if self.match is not None else None

    @property
    def deal_number(self) -> int:
        return len(self.deal_starts)

    def to_dict(self, with_setup: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"setup": self.setup.to_dict()} if with_setup else {}
        out.update(
            {
                "schema": GAME_SCHEMA_VERSION,
                "seats": [[s.name, s.taken, s.resigned] for s in self.seats],
                "status": self.status,
                "match": None if self.match is None else self.match.to_dict(with_rules=False),
                "last_deal": self.last_deal,
                "winner": self.winner,
                "result_reason": self.result_reason,
                "deal_starts": list(self.deal_starts),
            }
        )
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any], setup: Setup | None = None) -> GameState:
        """``setup``: the game's, when the caller keeps it apart from the snapshot."""
        schema = d.get("schema")
        if schema not in READABLE_SCHEMAS:
            raise ValueError(f"unknown game snapshot schema {schema!r}")
        if setup is None:
            setup = Setup.from_dict(d["setup"])
        return cls(
            setup=setup,
            seats=[Seat(str(n), bool(t), bool(r)) for n, t, r in d["seats"]],
            status=str(d["status"]),
            # The setup's rules are the match's and the deal's: decoded once per load.
            match=None if d["match"] is None else Match.from_dict(d["match"], setup.rules),
            last_deal=d["last_deal"],
            winner=int(d["winner"]),
            result_reason=str(d["result_reason"]),
            deal_starts=[int(v) for v in d["deal_starts"]],
        )


def new_game(setup: Setup) -> GameState:
    if setup.players not in setup.rules.player_counts:
        allowed = ", ".join(str(n) for n in setup.rules.player_counts)
        raise ValueError(f"{setup.rules.name} is played by {allowed} players")
    return GameState(setup=setup, seats=[Seat() for _ in range(setup.players)])


# ----- actions ----------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """One logged change. ``kind`` is join, leave, start, move or resign."""

    kind: str
    seat: int = -1
    move: str = ""  # the move in text notation, for kind "move"
    name: str = ""  # the player's name, for kind "join"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "seat": self.seat}
        if self.move:
            d["move"] = self.move
        if self.name:
            d["name"] = self.name
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Action:
        return cls(
            str(d["kind"]), int(d.get("seat", -1)), str(d.get("move", "")), str(d.get("name", ""))
        )


def play_action(seat: int, move: Move) -> Action:
    return Action("move", seat, move=move_text(move))


def apply_action(g: GameState, action: Action, version: int) -> None:
    """Apply ``action`` as the change that makes ``version``; raise ``GameError``,
    ``InvalidMove`` or ``RuleViolation`` (and change nothing) if it is refused."""
    kind = action.kind
    if kind == "join":
        _check_status(g, WAITING)
        seat = _seat(g, action.seat)
        if g.seats[seat].taken:
            raise GameError("SEAT_TAKEN", f"seat {seat} is taken")
        g.seats[seat] = Seat(action.name, True, False)
    elif kind == "leave":
        _check_status(g, WAITING)
        seat = _seat(g, action.seat)
        g.seats[seat] = Seat()
    elif kind == "start":
        _check_status(g, WAITING)
        free = [i for i, s in enumerate(g.seats) if not s.taken]
        if free:
            raise GameError("SEATS_FREE", f"seats {free} are not taken yet")
        setup = g.setup
        match = Match(setup.rules, setup.players, setup.seed, first_deck=setup.deck)
        g.match = match
        g.status = PLAYING
        g.deal_starts.append(version)
    elif kind == "move":
        _check_status(g, PLAYING)
        assert g.match is not None
        move = parse_move(action.move)
        apply(g.match.deal, action.seat, move)
        if g.match.deal.is_over:
            _finish_deal(g, version)
    elif kind == "resign":
        _check_status(g, PLAYING)
        seat = _seat(g, action.seat)
        g.seats[seat].resigned = True
        n_sides = 2 if g.setup.players == 4 else g.setup.players
        loser = seat % n_sides
        standing = [side for side in range(n_sides) if side != loser]
        g.status = FINISHED
        g.winner = standing[0] if len(standing) == 1 else DRAWN
        g.result_reason = "resignation"
    else:
        raise InvalidMove(f"unknown action {kind!r}")


def _finish_deal(g: GameState, version: int) -> None:
    assert g.match is not None
    deal = g.match.deal
    g.last_deal = {
        "deal_number": g.deal_number,
        "end_reason": deal.end_reason,
        "went_out": deal.went_out,
        "scores": [sc.to_dict() for sc in score_deal(deal)],
    }
    g.match.finish_deal()
    if g.match.is_over:
        g.status = FINISHED
        g.winner = g.match.winner
        rules = g.setup.rules
        totals = g.match.totals
        if not rules.target_score:
            g.result_reason = "single_deal"
        elif totals.count(max(totals)) > 1:
            g.result_reason = "tie_break"
        else:
            g.result_reason = "target_reached"
    else:
        g.deal_starts.append(version)


def _check_status(g: GameState, wanted: str) -> None:
    if g.status == wanted:
        return
    if g.status == FINISHED:
        raise GameError("GAME_OVER", "the game is over")
    if wanted == WAITING:
        raise GameError("GAME_STARTED", f"the game is {g.status}")
    raise GameError("GAME_NOT_STARTED", f"the game is {g.status}")


def _seat(g: GameState, seat: int) -> int:
    if not 0 <= seat < len(g.seats):
        raise GameError("NO_SUCH_SEAT", f"there is no seat {seat}")
    return seat


def rebuild(setup: Setup, actions: list[Action]) -> GameState:
    """Fold a game's log from its setup (versions 1, 2, ... in order)."""
    g = new_game(setup)
    for version, action in enumerate(actions, start=1):
        apply_action(g, action, version)
    return g
