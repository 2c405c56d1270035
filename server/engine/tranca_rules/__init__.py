"""The pure Tranca rules engine: no I/O, no transport, no storage.

Typical use::

    from tranca_rules import make_rules, new_deal, legal_moves, apply, parse_move
    s = new_deal(make_rules("tranca-000"), 4, seed=7)
    apply(s, s.turn, parse_move("draw"))
"""

from .cards import card_text, cards_text, parse_card, parse_cards
from .engine import apply, is_legal, legal_moves, new_deal, play, validate
from .errors import InvalidMove, Reason, RulesError, RuleViolation
from .match import Match
from .moves import Move, move_text, parse_move
from .presets import PRESETS, Rules, make_rules, preset_names
from .scoring import SideScore, score_deal
from .state import DealState
from .views import seat_view

__all__ = [
    "PRESETS",
    "DealState",
    "InvalidMove",
    "Match",
    "Move",
    "Reason",
    "RuleViolation",
    "Rules",
    "RulesError",
    "SideScore",
    "apply",
    "card_text",
    "cards_text",
    "is_legal",
    "legal_moves",
    "make_rules",
    "move_text",
    "new_deal",
    "parse_card",
    "parse_cards",
    "parse_move",
    "play",
    "preset_names",
    "score_deal",
    "seat_view",
    "validate",
]
