"""What an answer shows of a game, worked out here so that a transport only writes it
down: the public view every viewer of a version sees (``PublicView``), what one seat
sees beyond it (``SeatExtras``), a deal's whole table, a verifiable table's
commitment, a game's summary in a list, the rules as a preset and its changed knobs,
and a replay's deals with their cards as texts.

The views of the deal itself are the engine's (``rules.views``): values of card texts
and numbers, handed on as they are. A public view is worked out lazily, from a
``Shown``: a transport builds it once per version for all of the game's viewers
(api/shared_views.py), so a use case does not build it for each of them. The values
made for every move's answer (``PublicView``, ``SeatLine``, ``SeatExtras``) are
slotted and not frozen, as services/game_values.py's answers are."""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tranca_rules.cards import card_text
from tranca_rules.melds import KIND_NAMES as MELD_KIND_NAMES
from tranca_rules.presets import KNOB_RANGES, PRESETS, Rules, rules_to_dict
from tranca_rules.state import DealState, side_of_seat
from tranca_rules.views import SPECTATOR, BoardView, MeldView, SeatView, board_of, hand_of, view_of

from ..table import fairness
from ..table.game import NO_OPTIONS, PLAYING, GameState, GameStatus, TableOptions
from .game_values import DealReplay, Shown
from .ports import GameRecord

__all__ = [
    "KNOB_RANGES",
    "MELD_KIND_NAMES",
    "BoardView",
    "Commitment",
    "DealBoard",
    "DealReplayView",
    "GameState",
    "GameStatus",
    "GameSummary",
    "MeldView",
    "PresetValue",
    "PublicView",
    "Rules",
    "RulesValue",
    "SeatExtras",
    "SeatLine",
    "SeatView",
    "TableOptions",
    "commitment_of",
    "deal_board",
    "deal_replay_view",
    "fold_overrides",
    "preset_values",
    "public_view",
    "rules_value",
    "seat_extras",
    "shown_public_view",
    "summary_of",
]


@dataclass(frozen=True, slots=True)
class RulesValue:
    """A game's rules as its preset's name and the knobs that differ from it, each
    knob by its dotted name ("canastra_bonus.clean")."""

    preset: str
    overrides: dict[str, Any]


@dataclass(frozen=True, slots=True)
class PresetValue:
    name: str
    description: str
    player_counts: tuple[int, ...]
    knobs: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Commitment:
    """A verifiable table's commitment to the deal under way (deal 1 before the
    start), with the entropy mixed into it: never the seed, which stays secret until
    the deal is over (the replay)."""

    deal_number: int
    commitment: str
    entropy: Sequence[str]


@dataclass(slots=True)
class SeatLine:
    """One seat as every viewer sees it."""

    seat: int
    player_name: str
    taken: bool
    hand_size: int
    resigned: bool
    robot: bool
    annul_vote: bool
    player_id: str
    side: int
    # The table head's seat (003's "jefe de mesa"), and a seat still to agree to the
    # stake or rated play the head changed.
    head: bool = False
    consent_pending: bool = False
    # Automatic mode (table/automatic.py): by the player's choice now, and at any
    # time of the match.
    automatic: bool = False
    was_automatic: bool = False


@dataclass(frozen=True, slots=True)
class DealBoard:
    """Deal ``deal_number``'s whole table (``rules.views.board_of``) and its result."""

    deal_number: int
    board: BoardView
    result: dict[str, Any] | None


@dataclass(slots=True)
class PublicView:
    """What every viewer of a game at a version sees, each seat and every spectator
    alike: all but the viewer's seat, its hand and the turn's deadline
    (``SeatExtras``). ``deal``: the deal under way as a spectator sees it, while the
    match is played."""

    game_id: str
    version: int
    status: GameStatus
    rules: RulesValue
    players: int
    deal_number: int
    seats: list[SeatLine]
    table: TableOptions | None  # None: a game without table options
    commitment: Commitment | None
    match_totals: list[int]
    last_deal: dict[str, Any] | None
    # The match's result once it is over: the winning side (-1: drawn) and why.
    winner_side: int | None
    result_reason: str
    final_board: DealBoard | None
    deal: SeatView | None
    # The table the match is played at (services/rematch.py): its id, the match's
    # number there, the next match once a rematch was confirmed, the seats that
    # confirmed it (a finished match) or are still held (a waiting one), and when
    # the held seats are freed.
    table_id: str = ""
    match_number: int = 1
    next_game_id: str = ""
    rematch_seats: list[int] | None = None
    rematch_hold_until: int = 0
    # The table head's seat (-1: none), the version of its last change of the options
    # (0: none), and whether spectators may watch, as the options are now.
    head_seat: int = -1
    options_version: int = 0
    spectators_allowed: bool = False


@dataclass(slots=True)
class SeatExtras:
    """What one seat sees beyond the public view: its seat, its hand while a deal is
    played, and the turn's deadline (with the server's clock as it is worked out)
    where the table has one."""

    seat: int
    hand: list[str] | None
    deadline_ms: int | None
    server_time_ms: int


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A game as a list of games shows it."""

    game_id: str
    status: GameStatus
    preset: str
    players: int
    seats_taken: int
    version: int
    label: str
    created_at: int
    table: TableOptions
    player_names: list[str]
    player_ids: list[str]
    table_id: str = ""
    match_number: int = 1
    head_seat: int = -1
    options_version: int = 0


@dataclass(frozen=True, slots=True)
class DealReplayView:
    """A finished deal in a replay: its result, its whole table as it ended, and its
    cards as dealt (texts) or a verifiable deal's proof, once nothing of them is
    hidden."""

    deal_number: int
    dealer: int
    result: dict[str, Any] | None
    final_board: DealBoard | None
    deck: list[str] | None
    reveal: fairness.Reveal | None


assert set(MELD_KIND_NAMES) == {"set", "run", "black_threes"}


# ----- rules -------------------------------------------------------------------------


def _knobs(rules: Rules) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in rules_to_dict(rules).items():
        if name in ("name", "description"):
            continue
        if isinstance(value, dict):
            for k, v in value.items():
                out[f"{name}.{k}"] = v
        else:
            out[name] = value
    return out


# Each rules' value by the identity of the rules: a game's setup is read once and kept
# (store/codec.py), so every view of the game finds its value without hashing its
# rules' every knob; the entry holds the rules, so their id is never another's while
# the entry lasts.
_RULES_VALUES: dict[int, tuple[Rules, RulesValue]] = {}
_RULES_VALUES_KEPT = 4096  # as many as the setups store/codec.py keeps


def rules_value(rules: Rules) -> RulesValue:
    """The preset's name and the knobs that differ from it (the same value for the
    same rules: a transport may keep what it writes of it)."""
    kept = _RULES_VALUES.get(id(rules))
    if kept is None or kept[0] is not rules:
        if len(_RULES_VALUES) >= _RULES_VALUES_KEPT:
            _RULES_VALUES.clear()
        kept = _RULES_VALUES[id(rules)] = (rules, _rules_value(rules))
    return kept[1]


@functools.lru_cache(maxsize=256)
def _rules_value(rules: Rules) -> RulesValue:
    base = PRESETS.get(rules.name)
    if base is None:
        return RulesValue(rules.name, {})
    mine, theirs = _knobs(rules), _knobs(base)
    return RulesValue(
        rules.name, {n: v for n, v in mine.items() if n not in theirs or theirs[n] != v}
    )


def preset_values() -> list[PresetValue]:
    """Every preset, by name, with all of its knobs."""
    return [
        PresetValue(r.name, r.description, tuple(r.player_counts), _knobs(r))
        for r in (PRESETS[n] for n in sorted(PRESETS))
    ]


def fold_overrides(overrides: dict[str, Any]) -> dict[str, Any]:
    """Knob overrides as a request names them, with "canastra_bonus.clean"-style keys
    folded into a dict."""
    out: dict[str, Any] = {}
    for name, value in overrides.items():
        if name.startswith("canastra_bonus."):
            out.setdefault("canastra_bonus", {})[name.split(".", 1)[1]] = value
        else:
            out[name] = value
    return out


# ----- views -------------------------------------------------------------------------


def commitment_of(g: GameState) -> Commitment:
    """A verifiable table's commitment to the deal under way (see ``Commitment``)."""
    assert g.setup.server_secret is not None
    number = max(g.deal_number, 1)
    return Commitment(
        number, fairness.deal_commitment(g.setup.server_secret, number), list(g.entropy)
    )


def deal_board(number: int, deal: DealState, result: dict[str, Any] | None) -> DealBoard:
    return DealBoard(number, board_of(deal), result)


def public_view(game_id: str, version: int, g: GameState, board_hidden: bool = False) -> PublicView:
    """The game at ``version`` as every viewer sees it (``rules.views.view_of`` for
    ``SPECTATOR``), the final table of the deal that ended (``GameState.deal_board``)
    unless ``board_hidden``."""
    setup = g.setup
    deal = g.deal
    seen = None if deal is None else view_of(deal, SPECTATOR)
    head = g.head
    seats = [
        SeatLine(
            i,
            s.name,
            s.taken,
            seen.hand_sizes[i] if seen is not None else 0,
            s.resigned,
            i in g.robots,
            i in g.annul_votes,
            s.player_id,
            side_of_seat(i, setup.players),
            i == head,
            i in g.unconsented,
            automatic=i in g.automatic,
            was_automatic=i in g.were_automatic,
        )
        for i, s in enumerate(g.seats)
    ]
    finished = g.status == GameStatus.FINISHED
    commitment = commitment_of(g) if setup.server_secret is not None and not finished else None
    final = None
    board = None if board_hidden else g.deal_board()
    if board is not None:
        number, ended = board
        last = g.last_deal
        result = last if last is not None and last["deal_number"] == number else None
        final = deal_board(number, ended, result)
    return PublicView(
        game_id=game_id,
        version=version,
        status=g.status,
        rules=rules_value(setup.rules),
        players=setup.players,
        deal_number=g.deal_number,
        seats=seats,
        table=None if setup.table == NO_OPTIONS else setup.table,
        commitment=commitment,
        match_totals=list(g.match.totals) if g.match is not None else [],
        last_deal=g.last_deal,
        winner_side=(g.winner if g.winner >= 0 else -1) if finished else None,
        result_reason=g.result_reason if finished else "",
        final_board=final,
        deal=seen if g.status == GameStatus.PLAYING else None,
        table_id=setup.table_id or game_id,
        match_number=setup.number,
        next_game_id=g.next_game_id,
        rematch_seats=sorted(g.rematch_seats if g.next_game_id else g.held),
        rematch_hold_until=g.rematch_until
        if g.next_game_id
        else (setup.hold_until if g.held else 0),
        head_seat=head,
        options_version=g.options_version,
        spectators_allowed=setup.spectators_allowed,
    )


def shown_public_view(shown: Shown) -> PublicView:
    return public_view(shown.game_id, shown.version, shown.state, shown.board_hidden)


def seat_extras(g: GameState, seat: int, deadline_ms: int | None = None) -> SeatExtras:
    """What ``seat`` sees beyond the public view: its hand while a deal is played
    (``rules.views.hand_of``), and the turn's deadline where the table has one."""
    playing = g.status == PLAYING
    deadline = deadline_ms if deadline_ms and playing and g.setup.table.turn_seconds else None
    # The server's clock now: a watch stream's message is worked out when it is sent,
    # so a client's countdown starts from the server's clock then.
    now = int(time.time() * 1000) if deadline is not None else 0
    deal = g.deal
    hand = hand_of(deal, seat) if deal is not None and playing else None
    return SeatExtras(seat, hand, deadline, now)


def summary_of(game: GameRecord) -> GameSummary:
    g = game.state
    return GameSummary(
        game_id=game.id,
        status=g.status,
        preset=g.setup.rules.name,
        players=g.setup.players,
        seats_taken=sum(1 for s in g.seats if s.taken),
        version=game.version,
        label=game.label,
        created_at=int(game.created_at),
        table=g.setup.table,
        player_names=[s.name if s.taken else "" for s in g.seats],
        player_ids=[s.player_id if s.taken else "" for s in g.seats],
        table_id=g.setup.table_id or game.id,
        match_number=g.setup.number,
        head_seat=g.head,
        options_version=g.options_version,
    )


def deal_replay_view(deal: DealReplay) -> DealReplayView:
    final = None if deal.final is None else deal_board(deal.deal_number, deal.final, deal.result)
    deck = None if deal.deck is None else [card_text(c) for c in deal.deck]
    return DealReplayView(deal.deal_number, deal.dealer, deal.result, final, deck, deal.reveal)
