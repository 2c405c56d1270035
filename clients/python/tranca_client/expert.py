"""The expert level for the SDK's bots: the rules engine's search, from the API's view.

The expert (the engine's ``tranca_rules.expert``: determinized Monte Carlo search
over what its seat knows) searches from an ``Information``, the seat's knowledge of
the deal. Here that is read from the seat's ``GameView`` alone, as the server's own
robots read it from the seat's view when they take a seat mid-deal: its hand, the
table, the pile as far as the view shows it, the counts of every hidden pile. No
memory of the deal's history is kept between decisions, and nothing but the view and
the legal moves the service lists goes in.

The search is the rules engine's, a distribution of its own (``tranca-rules``, no
dependencies) that the SDK's ``expert`` extra installs; it is imported only when an
expert bot is made. Without it, ``ExpertBot`` raises ``ExpertUnavailable``, saying
what to install.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .moves import move_text
from .v1 import game_pb2 as pb

if TYPE_CHECKING:
    from tranca_rules.information import Information
    from tranca_rules.presets import Rules

__all__ = ["ENGINE_MISSING", "ExpertBot", "ExpertUnavailable", "information_from_game_view"]

ENGINE_MISSING = (
    "the expert bot searches with the Tranca rules engine (tranca-rules): install "
    "the SDK with its expert extra (pip install 'tranca-client[expert]', or "
    "pip install ./server/engine in a checkout of the project)"
)


class ExpertUnavailable(RuntimeError):
    """The rules engine the expert searches with is not installed."""


def _engine() -> Any:
    """The engine's search module (``tranca_rules.expert``); ``ExpertUnavailable``
    where the engine's distribution is not installed."""
    try:
        return importlib.import_module("tranca_rules.expert")
    except ImportError as exc:
        raise ExpertUnavailable(ENGINE_MISSING) from exc


def _overrides(rules: pb.Rules) -> dict[str, Any]:
    """The knob overrides of ``rules`` as the engine takes them (the server's reading:
    "canastra_bonus.clean"-style names folded into one dict)."""
    out: dict[str, Any] = {}
    for name, value in rules.overrides.items():
        which = value.WhichOneof("value")
        v: Any
        if which == "int_list":
            v = list(value.int_list.values)
        elif which is None:
            continue
        else:
            v = getattr(value, which)
        if name.startswith("canastra_bonus."):
            out.setdefault("canastra_bonus", {})[name.split(".", 1)[1]] = v
        else:
            out[name] = v
    return out


_RULES: dict[bytes, Rules] = {}


def _rules_of(view: pb.GameView) -> Rules:
    from tranca_rules.presets import make_rules

    key = view.rules.SerializeToString(deterministic=True)
    rules = _RULES.get(key)
    if rules is None:
        if len(_RULES) > 64:
            _RULES.clear()
        rules = _RULES[key] = make_rules(view.rules.preset, _overrides(view.rules))
    return rules


def _enum_name(name: str, prefix: str) -> str:
    return name.removeprefix(prefix).lower()


def information_from_game_view(view: pb.GameView) -> Information:
    """The seat's ``Information`` from its ``GameView`` (a player's view, with a hand),
    through the engine's ``information_from_view``. Needs the rules engine."""
    _engine()
    from tranca_rules.information import information_from_view
    from tranca_rules.presets import PileView
    from tranca_rules.state import EndReason, Phase
    from tranca_rules.views import MeldView, SeatView

    if view.seat < 0:
        raise ValueError("a spectator's or an app's view holds no hand to play")
    rules = _rules_of(view)
    n = view.players
    n_sides = 2 if n == 4 else n
    melds = [
        MeldView(
            m.id,
            m.side,
            _enum_name(pb.MeldKind.Name(m.kind), "MELD_KIND_"),
            tuple(m.cards),
            m.wilds,
            None
            if m.canastra == pb.CANASTRA_KIND_UNSPECIFIED
            else _enum_name(pb.CanastraKind.Name(m.canastra), "CANASTRA_KIND_"),
        )
        for m in view.melds
    ]
    red_threes: list[list[str]] = [[] for _ in range(n_sides)]
    for r in view.red_threes:
        red_threes[r.side] = list(r.cards)
    mortos = sorted(view.mortos, key=lambda m: m.side)
    seat_view = SeatView(
        preset=view.rules.preset,
        seat=view.seat,
        n_players=n,
        dealer=view.dealer,
        turn=view.turn,
        phase=Phase(_enum_name(pb.Phase.Name(view.phase), "PHASE_")),
        hand=list(view.hand),
        hand_sizes=[s.hand_size for s in sorted(view.seats, key=lambda s: s.seat)],
        melds=melds,
        red_threes=red_threes,
        pile_top=view.pile_top or None,
        pile_size=view.pile_size,
        pile=list(view.pile) if rules.pile_view == PileView.ALL else None,
        pile_frozen=view.pile_frozen,
        pile_locked=view.pile_locked,
        stock_size=view.stock_size,
        morto_sizes=[m.size for m in mortos],
        mortos=(
            [list(m.cards) if m.size else None for m in mortos] if rules.mortos_face_up else None
        ),
        morto_taken=[m.taken for m in mortos],
        went_out=-1,  # the deal is under way
        end_reason=EndReason.NONE,
    )
    # The version only seeds the search's choices (one seed per position).
    return information_from_view(seat_view, rules, move_count=view.version)


class ExpertBot:
    """The expert: the rules engine's search (``tranca_rules.expert.search``) from the
    seat's view, with a budget per decision of ``iterations`` playouts and ``seconds``
    of this process's clock (the engine's defaults: 400 and 0.2). With ``seconds``
    None the iterations alone bound it, and the same view and seed give the same move.

    It plays move by move (``whole_turns`` False: ``run_bot`` asks it each move from
    the view the service answered with, never a turn planned ahead), and thinks on
    the caller's thread: a decision holds the event loop for its budget."""

    name = "expert"
    whole_turns = False

    def __init__(
        self,
        seed: int | None = None,
        *,
        iterations: int | None = None,
        seconds: float | None = -1.0,
    ) -> None:
        expert = _engine()
        self.seed = 0 if seed is None else seed
        self.iterations = expert.DEFAULT_ITERATIONS if iterations is None else iterations
        self.seconds = expert.DEFAULT_SECONDS if seconds is not None and seconds < 0 else seconds
        self._expert = expert

    def choose(self, view: pb.GameView, moves: Sequence[pb.Move]) -> pb.Move:
        if len(moves) == 1:
            return moves[0]
        from tranca_rules.moves import parse_move

        info = information_from_game_view(view)
        legal = [parse_move(move_text(m)) for m in moves]
        expert = self._expert
        budget = expert.Budget(self.iterations, self.seconds)
        clock = time.perf_counter if self.seconds is not None else None
        move, _ = expert.search(info, legal, self.seed, budget, clock=clock)
        return moves[legal.index(move)]
