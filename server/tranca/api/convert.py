"""Protobuf to and from the use cases' values: moves, rules, views. No rules and no
I/O here: what an answer shows is worked out by the services (services/game_views.py,
services/move_values.py); this only writes it down."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..services.domain_refusals import invalid_rules, quoted
from ..services.game_views import (
    MELD_KIND_NAMES,
    Commitment,
    DealBoard,
    GameState,
    GameStatus,
    MeldView,
    PresetValue,
    RulesValue,
    SeatExtras,
    TableOptions,
    commitment_of,
    deal_board,
    fold_overrides,
    public_view,
    rules_value,
    seat_extras,
)
from ..services.move_values import Move, MoveValue, move_value
from ..v1 import game_pb2 as pb

if TYPE_CHECKING:  # the services' record of a logged change, translated here
    from ..services.game_views import PublicView, Rules
    from ..services.games import LoggedChange

STATUS: dict[GameStatus, pb.GameStatus.ValueType] = {
    GameStatus.WAITING: pb.GAME_STATUS_WAITING,
    GameStatus.PLAYING: pb.GAME_STATUS_PLAYING,
    GameStatus.FINISHED: pb.GAME_STATUS_FINISHED,
}
STATUS_NAMES = {v: k for k, v in STATUS.items()}
PHASE: dict[str, pb.Phase.ValueType] = {
    "draw": pb.PHASE_DRAW,
    "play": pb.PHASE_PLAY,
    "over": pb.PHASE_OVER,
}
MELD_KIND = {
    "set": pb.MELD_KIND_SET,
    "run": pb.MELD_KIND_RUN,
    "black_threes": pb.MELD_KIND_BLACK_THREES,
}
CANASTRA = {
    None: pb.CANASTRA_KIND_UNSPECIFIED,
    "clean": pb.CANASTRA_KIND_CLEAN,
    "dirty": pb.CANASTRA_KIND_DIRTY,
    "real": pb.CANASTRA_KIND_REAL,
    "all_wilds": pb.CANASTRA_KIND_ALL_WILDS,
    "ace_to_ace": pb.CANASTRA_KIND_ACE_TO_ACE,
}
assert set(MELD_KIND) == set(MELD_KIND_NAMES)


# ----- moves -------------------------------------------------------------------------

# A move's kind (services/move_values.py, ``KIND_NAMES``) and its field of ``Move``.
MOVE_FIELDS = {
    "draw": "draw",
    "take": "take_pile",
    "meld": "create_meld",
    "add": "add_to_meld",
    "replace": "replace_wild",
    "discard": "discard",
}
MOVE_KINDS = {f: k for k, f in MOVE_FIELDS.items()}


def move_value_from_pb(m: pb.Move) -> MoveValue:
    """The move as the request sets it; the services read it (``read_move``)."""
    which = m.WhichOneof("kind")
    if which is None:
        return MoveValue("")
    kind = MOVE_KINDS[which]
    if which == "take_pile":
        t = m.take_pile
        return MoveValue(kind, t.meld_id if t.HasField("meld_id") else None, tuple(t.cards))
    if which == "create_meld":
        return MoveValue(kind, None, tuple(m.create_meld.cards))
    if which == "add_to_meld":
        return MoveValue(kind, m.add_to_meld.meld_id, (m.add_to_meld.card,))
    if which == "replace_wild":
        return MoveValue(kind, m.replace_wild.meld_id, (m.replace_wild.card,))
    if which == "discard":
        return MoveValue(kind, None, (m.discard.card,))
    return MoveValue(kind)


def move_value_to_pb(move: MoveValue) -> pb.Move:
    out = pb.Move(text=move.text)
    kind, meld_id, texts = move.kind, move.meld_id, move.cards
    if kind == "draw":
        out.draw.SetInParent()
    elif kind == "take":
        if meld_id is not None:
            out.take_pile.meld_id = meld_id
        else:
            out.take_pile.cards.extend(texts)
    elif kind == "meld":
        out.create_meld.cards.extend(texts)
    elif kind == "add":
        out.add_to_meld.meld_id = meld_id or 0
        out.add_to_meld.card = texts[0]
    elif kind == "replace":
        out.replace_wild.meld_id = meld_id or 0
        out.replace_wild.card = texts[0]
    else:
        out.discard.card = texts[0]
    return out


def move_to_pb(move: Move) -> pb.Move:
    """The engine's move as an answer shows it."""
    return move_value_to_pb(move_value(move))


# Each distinct move's message, found by the identity of the services' value for it:
# ``move_value`` hands out one value per distinct move while it keeps it, and an
# identity is cheaper than hashing the value's fields (a Python call for each legal
# move of every answer). The entry holds the value, so its id is never another's
# while the entry lasts; a value made elsewhere gets a message of its own.
_MOVE_MESSAGES: dict[int, tuple[MoveValue, pb.Move]] = {}
_MOVE_MESSAGES_KEPT = 65_536


def extend_moves(field: Any, moves: Sequence[MoveValue]) -> None:
    """Append ``moves`` (the services' values: ``move_values`` for the engine's
    moves) to a repeated ``Move`` field. Building a message costs several times more
    than copying one, and the same few moves recur in every game, so each distinct
    move's message is built once; ``extend`` copies it in, and the kept instance is
    never handed out, so no caller can change it."""
    kept_messages = _MOVE_MESSAGES
    messages = []
    for value in moves:
        kept = kept_messages.get(id(value))
        if kept is None or kept[0] is not value:
            if len(kept_messages) >= _MOVE_MESSAGES_KEPT:
                kept_messages.clear()
            kept = kept_messages[id(value)] = (value, move_value_to_pb(value))
        messages.append(kept[1])
    field.extend(messages)


# ----- rules -------------------------------------------------------------------------


def knob_to_pb(value: Any) -> pb.KnobValue:
    if isinstance(value, bool):
        return pb.KnobValue(bool_value=value)
    if isinstance(value, int):
        return pb.KnobValue(int_value=value)
    if isinstance(value, list | tuple):
        return pb.KnobValue(int_list=pb.IntList(values=[int(v) for v in value]))
    return pb.KnobValue(string_value=str(value))


def knob_from_pb(value: pb.KnobValue) -> Any:
    """The override's value; None when it sets none of its kinds."""
    which = value.WhichOneof("value")
    if which == "bool_value":
        return value.bool_value
    if which == "int_value":
        return value.int_value
    if which == "int_list":
        return list(value.int_list.values)
    if which == "string_value":
        return value.string_value
    return None


def overrides_from_pb(rules: pb.Rules) -> dict[str, Any]:
    """Knob overrides, with "canastra_bonus.clean"-style keys folded into a dict; a
    value that sets none of its kinds is refused (INVALID_RULES)."""
    out: dict[str, Any] = {}
    for name, value in rules.overrides.items():
        v = knob_from_pb(value)
        if v is None:
            raise invalid_rules(f"knob {quoted(name)}: the value sets none of its kinds")
        out[name] = v
    return fold_overrides(out)


def knobs_to_pb(knobs: dict[str, Any]) -> dict[str, pb.KnobValue]:
    return {name: knob_to_pb(value) for name, value in knobs.items()}


# Each rules' message, by the services' value for them (one per distinct rules, kept
# by ``rules_value``): found by identity, the entry holding the value.
_RULES_MESSAGES: dict[int, tuple[RulesValue, pb.Rules]] = {}
_RULES_MESSAGES_KEPT = 256


def _rules_message(rules: RulesValue) -> pb.Rules:
    """The kept message of ``rules``: copied into what is handed out, never itself
    handed out."""
    kept = _RULES_MESSAGES.get(id(rules))
    if kept is None or kept[0] is not rules:
        if len(_RULES_MESSAGES) >= _RULES_MESSAGES_KEPT:
            _RULES_MESSAGES.clear()
        message = pb.Rules(preset=rules.preset)
        for name, value in knobs_to_pb(rules.overrides).items():
            message.overrides[name].CopyFrom(value)
        kept = _RULES_MESSAGES[id(rules)] = (rules, message)
    return kept[1]


def rules_value_to_pb(rules: RulesValue) -> pb.Rules:
    out = pb.Rules()
    out.CopyFrom(_rules_message(rules))
    return out


def rules_to_pb(rules: Rules) -> pb.Rules:
    """The preset's name and the knobs that differ from it."""
    return rules_value_to_pb(rules_value(rules))


def preset_to_pb(preset: PresetValue) -> pb.Preset:
    p = pb.Preset(
        name=preset.name, description=preset.description, player_counts=preset.player_counts
    )
    for name, value in knobs_to_pb(preset.knobs).items():
        p.knobs[name].CopyFrom(value)
    return p


# ----- views -------------------------------------------------------------------------


def score_to_pb(d: dict[str, Any]) -> pb.ScoreBreakdown:
    return pb.ScoreBreakdown(
        side=d["side"],
        table_cards=d["table_cards"],
        canastras=[
            pb.CanastraScore(kind=CANASTRA[k], count=d["canastra_counts"].get(k, 0), points=pts)
            for k, pts in sorted(d["canastras"].items())
        ],
        batida=d["batida"],
        red_threes=d["red_threes"],
        morto_penalty=d["morto_penalty"],
        hand_cards=d["hand_cards"],
        untaken_morto_cards=d["untaken_morto_cards"],
        total=d["total"],
    )


def deal_result_to_pb(d: dict[str, Any]) -> pb.DealResult:
    return pb.DealResult(
        deal_number=d["deal_number"],
        end_reason=d["end_reason"],
        went_out_seat=d["went_out"],
        scores=[score_to_pb(s) for s in d["scores"]],
    )


# A table's robot level: the app's name ("" for the operator's) and the enum's value.
ROBOT_LEVEL_FROM_PB: dict[pb.RobotLevel.ValueType, str] = {
    pb.ROBOT_LEVEL_UNSPECIFIED: "",
    pb.ROBOT_LEVEL_RANDOM: "random",
    pb.ROBOT_LEVEL_GREEDY: "greedy",
    pb.ROBOT_LEVEL_EXPERT: "expert",
}
ROBOT_LEVEL_TO_PB: dict[str, pb.RobotLevel.ValueType] = {
    name: value for value, name in ROBOT_LEVEL_FROM_PB.items()
}


CHAT_MODE_FROM_PB: dict[pb.ChatMode.ValueType, str] = {
    pb.CHAT_MODE_UNSPECIFIED: "",
    pb.CHAT_MODE_OFF: "off",
    pb.CHAT_MODE_PHRASES: "phrases",
    pb.CHAT_MODE_FREE: "free",
}
CHAT_MODE_TO_PB: dict[str, pb.ChatMode.ValueType] = {
    name: value for value, name in CHAT_MODE_FROM_PB.items()
}


def table_to_pb(t: TableOptions) -> pb.TableOptions:
    return pb.TableOptions(
        turn_seconds=t.turn_seconds,
        robot_grace_seconds=t.robot_grace_seconds,
        private=t.private,
        competitive=t.competitive,
        stake=t.stake,
        express=t.express,
        point_limit=t.point_limit,
        verifiable=t.verifiable,
        annulment_allowed=t.annulment_allowed,
        robot_level=ROBOT_LEVEL_TO_PB[t.robot_level],
        chat=CHAT_MODE_TO_PB[t.chat],
    )


def table_from_pb(t: pb.TableOptions) -> TableOptions:
    return TableOptions(
        turn_seconds=t.turn_seconds,
        robot_grace_seconds=t.robot_grace_seconds,
        private=t.private,
        competitive=t.competitive,
        stake=t.stake,
        express=t.express,
        point_limit=t.point_limit,
        verifiable=t.verifiable,
        annulment_allowed=t.annulment_allowed,
        # An enum value this release does not know stays a name no level has, which
        # check_table_options refuses.
        robot_level=ROBOT_LEVEL_FROM_PB.get(t.robot_level, f"level {t.robot_level}"),
        # As for robot levels: an unknown value stays a mode no table has, refused.
        chat=CHAT_MODE_FROM_PB.get(t.chat, f"mode {t.chat}"),
    )


def commitment_value_to_pb(c: Commitment) -> pb.DealCommitment:
    return pb.DealCommitment(deal_number=c.deal_number, commitment=c.commitment, entropy=c.entropy)


def commitment_to_pb(g: GameState) -> pb.DealCommitment:
    """A verifiable table's commitment to the deal under way (``Commitment``)."""
    return commitment_value_to_pb(commitment_of(g))


# Each meld's message: a meld changes on few moves and every answer shows them all, so
# each distinct meld's message is built once and copied into the views that show it
# (the kept instance is never handed out). ``rules.views`` hands out one ``MeldView``
# per distinct meld, so the message is found by that instance's identity, which is
# cheaper than hashing its cards again; the entry holds the instance, so its id is
# never another's while the entry lasts. Bounded, like the move messages.
_MELD_MESSAGES: dict[int, tuple[MeldView, pb.Meld]] = {}
_MELD_MESSAGES_KEPT = 16_384


def meld_to_pb(mv: MeldView) -> pb.Meld:
    return pb.Meld(
        id=mv.id,
        side=mv.side,
        kind=MELD_KIND[mv.kind],
        cards=mv.cards,
        wilds=mv.wilds,
        canastra=CANASTRA[mv.canastra],
        wild_indexes=mv.wild_indexes,
    )


def _meld_messages(melds: list[MeldView]) -> list[pb.Meld]:
    if len(_MELD_MESSAGES) >= _MELD_MESSAGES_KEPT:
        _MELD_MESSAGES.clear()
    out = []
    for mv in melds:
        kept = _MELD_MESSAGES.get(id(mv))
        if kept is None or kept[0] is not mv:
            kept = _MELD_MESSAGES[id(mv)] = (mv, meld_to_pb(mv))
        out.append(kept[1])
    return out


def view_to_pb(
    game_id: str,
    version: int,
    g: GameState,
    seat: int,
    deadline_ms: int | None = None,
    board_hidden: bool = False,
) -> pb.GameView:
    """The game as ``seat`` may see it (-1: a spectator or an app: no hand).
    ``deadline_ms``: when the turn's time runs out, where the table has a limit.
    The same as ``public_view_to_pb`` with ``add_seat_view``."""
    view = public_view_to_pb(game_id, version, g, board_hidden)
    add_seat_view(view, g, seat, deadline_ms)
    return view


def deal_board_to_pb(d: DealBoard) -> pb.DealBoard:
    """A deal's whole table and its result."""
    board = d.board
    out = pb.DealBoard(
        deal_number=d.deal_number, dealer=board.dealer, pile=board.pile, stock_size=board.stock_size
    )
    for seat, hand in enumerate(board.hands):
        out.hands.add(seat=seat, cards=hand)
    out.melds.extend(_meld_messages(board.melds))
    for side, reds in enumerate(board.red_threes):
        out.red_threes.add(side=side, cards=reds)
    for side, cards in enumerate(board.mortos):
        out.mortos.add(side=side, size=len(cards), taken=board.morto_taken[side], cards=cards)
    if d.result is not None:
        out.result.CopyFrom(deal_result_to_pb(d.result))
    return out


def board_to_pb(number: int, deal: Any, result: dict[str, Any] | None) -> pb.DealBoard:
    """Deal ``number``'s whole table (a ``DealState``) and its result."""
    return deal_board_to_pb(deal_board(number, deal, result))


def public_view_to_pb(
    game_id: str, version: int, g: GameState, board_hidden: bool = False
) -> pb.GameView:
    """What every viewer of the game at ``version`` sees (``game_views.public_view``)."""
    return public_to_pb(public_view(game_id, version, g, board_hidden))


def public_to_pb(p: PublicView) -> pb.GameView:
    """The public view, written down: the whole view but the viewer's seat, its hand
    and the turn's deadline (``add_seat_view``)."""
    view = pb.GameView(
        game_id=p.game_id,
        version=p.version,
        status=STATUS[p.status],
        players=p.players,
        deal_number=p.deal_number,
    )
    view.rules.CopyFrom(_rules_message(p.rules))
    # ``add`` builds each element in place: ``append`` would build it, then copy it.
    for s in p.seats:
        view.seats.add(
            seat=s.seat,
            player_name=s.player_name,
            taken=s.taken,
            hand_size=s.hand_size,
            resigned=s.resigned,
            robot=s.robot,
            annul_vote=s.annul_vote,
            player_id=s.player_id,
            side=s.side,
            automatic=s.automatic,
            was_automatic=s.was_automatic,
            head=s.head,
            consent_pending=s.consent_pending,
        )
    view.head_seat = p.head_seat
    view.options_version = p.options_version
    view.spectators_allowed = p.spectators_allowed
    if p.table is not None:
        view.table.CopyFrom(table_to_pb(p.table))
    view.table_id = p.table_id
    view.match_number = p.match_number
    view.next_game_id = p.next_game_id
    if p.rematch_seats:
        view.rematch_seats.extend(p.rematch_seats)
    view.rematch_hold_until_ms = p.rematch_hold_until
    if p.commitment is not None:
        view.commitment.CopyFrom(commitment_value_to_pb(p.commitment))
    view.match_totals.extend(p.match_totals)
    if p.last_deal is not None:
        view.last_deal.CopyFrom(deal_result_to_pb(p.last_deal))
    if p.winner_side is not None:
        view.match_result.CopyFrom(
            pb.MatchResult(winner_side=p.winner_side, reason=p.result_reason)
        )
    if p.final_board is not None:
        view.final_board.CopyFrom(deal_board_to_pb(p.final_board))
    seen = p.deal
    if seen is None:
        return view
    view.dealer = seen.dealer
    view.turn = seen.turn
    view.phase = PHASE[seen.phase]
    view.melds.extend(_meld_messages(seen.melds))
    for side, reds in enumerate(seen.red_threes):
        view.red_threes.add(side=side, cards=reds)
    if seen.pile_top is not None:
        view.pile_top = seen.pile_top
    view.pile_size = seen.pile_size
    if seen.pile is not None:
        view.pile.extend(seen.pile)
    view.pile_frozen = seen.pile_frozen
    view.pile_locked = seen.pile_locked
    view.stock_size = seen.stock_size
    face_up = seen.mortos
    for side, size in enumerate(seen.morto_sizes):
        m = view.mortos.add(side=side, size=size, taken=seen.morto_taken[side])
        cards = None if face_up is None else face_up[side]
        if cards is not None:
            m.cards.extend(cards)
    return view


def add_seat_view(
    view: pb.GameView, g: GameState, seat: int, deadline_ms: int | None = None
) -> None:
    """What ``seat`` sees beyond the public view (``game_views.seat_extras``)."""
    add_extras(view, seat_extras(g, seat, deadline_ms))


def add_extras(view: pb.GameView, extras: SeatExtras) -> None:
    view.seat = extras.seat
    if extras.deadline_ms is not None:
        view.turn_deadline_ms = extras.deadline_ms
        view.server_time_ms = extras.server_time_ms
    if extras.hand is not None:
        view.hand.extend(extras.hand)


def logged_to_pb(logged: LoggedChange) -> pb.LoggedMove:
    """A logged change as a replay and a watch stream show it."""
    row = logged.row
    action = row.action
    out = pb.LoggedMove(
        version=row.version,
        deal_number=logged.deal_number,
        seat=action.seat,
        actor=row.actor,
        played_at=int(row.created_at),
        ended_deal=logged.ended_deal,
    )
    if action.move is not None:  # kind "move"
        out.move.CopyFrom(move_to_pb(action.move))
    else:
        out.move.text = action.kind
    return out
