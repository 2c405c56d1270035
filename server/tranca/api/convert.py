"""Protobuf to and from the domain: moves, rules, views. No rules and no I/O here."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ..app import fairness
from ..app.game import NO_OPTIONS, GameState, GameStatus, TableOptions
from ..rules.cards import card_text, parse_card
from ..rules.errors import InvalidMove, RulesError, quoted
from ..rules.melds import KIND_NAMES as MELD_KIND_NAMES
from ..rules.moves import (
    ADD,
    DISCARD,
    DRAW,
    MELD,
    NO_MELD,
    REPLACE,
    TAKE,
    Move,
    check_shape,
    move_text,
)
from ..rules.presets import PRESETS, Rules, rules_to_dict
from ..rules.state import Phase
from ..rules.views import SPECTATOR, MeldView, hand_of, view_of
from ..v1 import game_pb2 as pb

if TYPE_CHECKING:  # the services' record of a logged change, translated here
    from ..services.games import LoggedChange

STATUS: dict[GameStatus, pb.GameStatus.ValueType] = {
    GameStatus.WAITING: pb.GAME_STATUS_WAITING,
    GameStatus.PLAYING: pb.GAME_STATUS_PLAYING,
    GameStatus.FINISHED: pb.GAME_STATUS_FINISHED,
}
STATUS_NAMES = {v: k for k, v in STATUS.items()}
PHASE: dict[Phase, pb.Phase.ValueType] = {
    Phase.DRAW: pb.PHASE_DRAW,
    Phase.PLAY: pb.PHASE_PLAY,
    Phase.OVER: pb.PHASE_OVER,
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


# ----- cards and moves ---------------------------------------------------------------


def card(text: str) -> int:
    try:
        return parse_card(text)
    except ValueError as exc:
        raise InvalidMove(str(exc)) from None


def move_from_pb(m: pb.Move) -> Move:
    which = m.WhichOneof("kind")
    if which is None:
        raise InvalidMove("the move sets none of its kinds")
    if which == "draw":
        move = Move(DRAW)
    elif which == "take_pile":
        t = m.take_pile
        if t.HasField("meld_id"):
            if t.cards:
                raise InvalidMove("take_pile sets either meld_id or cards, not both")
            move = Move(TAKE, t.meld_id, ())
        else:
            move = Move(TAKE, NO_MELD, tuple(sorted(card(c) for c in t.cards)))
    elif which == "create_meld":
        move = Move(MELD, NO_MELD, tuple(sorted(card(c) for c in m.create_meld.cards)))
    elif which == "add_to_meld":
        move = Move(ADD, m.add_to_meld.meld_id, (card(m.add_to_meld.card),))
    elif which == "replace_wild":
        move = Move(REPLACE, m.replace_wild.meld_id, (card(m.replace_wild.card),))
    else:
        move = Move(DISCARD, NO_MELD, (card(m.discard.card),))
    if move.meld < NO_MELD:
        raise InvalidMove("meld ids are 0 or more")
    return check_shape(move)


def move_to_pb(move: Move) -> pb.Move:
    kind, meld_id, cards = move
    texts = [card_text(c) for c in cards]
    out = pb.Move(text=move_text(move))
    if kind == DRAW:
        out.draw.SetInParent()
    elif kind == TAKE:
        if meld_id != NO_MELD:
            out.take_pile.meld_id = meld_id
        else:
            out.take_pile.cards.extend(texts)
    elif kind == MELD:
        out.create_meld.cards.extend(texts)
    elif kind == ADD:
        out.add_to_meld.meld_id = meld_id
        out.add_to_meld.card = texts[0]
    elif kind == REPLACE:
        out.replace_wild.meld_id = meld_id
        out.replace_wild.card = texts[0]
    else:
        out.discard.card = texts[0]
    return out


_MOVE_MESSAGES: dict[Move, pb.Move] = {}
_MOVE_MESSAGES_KEPT = 65_536


def extend_moves(field: Any, moves: list[Move]) -> None:
    """Append ``moves`` to a repeated ``Move`` field. Building a message costs several
    times more than copying one, and the same few moves recur in every game, so
    each distinct move's message is built once; ``extend`` copies it in, and the
    kept instance is never handed out, so no caller can change it."""
    messages = []
    for move in moves:
        message = _MOVE_MESSAGES.get(move)
        if message is None:
            if len(_MOVE_MESSAGES) >= _MOVE_MESSAGES_KEPT:
                _MOVE_MESSAGES.clear()
            message = _MOVE_MESSAGES[move] = move_to_pb(move)
        messages.append(message)
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
    """Knob overrides, with "canastra_bonus.clean"-style keys folded into a dict."""
    out: dict[str, Any] = {}
    for name, value in rules.overrides.items():
        v = knob_from_pb(value)
        if v is None:
            raise RulesError(f"knob {quoted(name)}: the value sets none of its kinds")
        if name.startswith("canastra_bonus."):
            out.setdefault("canastra_bonus", {})[name.split(".", 1)[1]] = v
        else:
            out[name] = v
    return out


def knobs_of(rules: Rules) -> dict[str, pb.KnobValue]:
    out: dict[str, pb.KnobValue] = {}
    for name, value in rules_to_dict(rules).items():
        if name in ("name", "description"):
            continue
        if isinstance(value, dict):
            for k, v in value.items():
                out[f"{name}.{k}"] = knob_to_pb(v)
        else:
            out[name] = knob_to_pb(value)
    return out


def rules_to_pb(rules: Rules) -> pb.Rules:
    """The preset's name and the knobs that differ from it."""
    out = pb.Rules()
    out.CopyFrom(_rules_pb(rules))
    return out


@functools.lru_cache(maxsize=256)
def _rules_pb(rules: Rules) -> pb.Rules:
    base = PRESETS.get(rules.name)
    out = pb.Rules(preset=rules.name)
    if base is None:
        return out
    mine, theirs = knobs_of(rules), knobs_of(base)
    for name, value in mine.items():
        if theirs.get(name) != value:
            out.overrides[name].CopyFrom(value)
    return out


def preset_to_pb(rules: Rules) -> pb.Preset:
    p = pb.Preset(
        name=rules.name, description=rules.description, player_counts=list(rules.player_counts)
    )
    for name, value in knobs_of(rules).items():
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
    )


def commitment_to_pb(g: GameState) -> pb.DealCommitment:
    """A verifiable table's commitment to the deal under way (deal 1 before the start),
    with the entropy mixed into it. Only the commitment: the seed stays secret until
    the deal is over (GetReplay)."""
    assert g.setup.server_secret is not None
    number = max(g.deal_number, 1)
    return pb.DealCommitment(
        deal_number=number,
        commitment=fairness.deal_commitment(g.setup.server_secret, number),
        entropy=g.entropy,
    )


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
    game_id: str, version: int, g: GameState, seat: int, deadline_ms: int | None = None
) -> pb.GameView:
    """The game as ``seat`` may see it (-1: a spectator or an app: no hand).
    ``deadline_ms``: when the turn's time runs out, where the table has a limit.
    What a seat sees of the deal is the engine's (``rules.views.view_of``): this only
    translates it. The same as ``public_view_to_pb`` with ``add_seat_view``."""
    view = public_view_to_pb(game_id, version, g)
    add_seat_view(view, g, seat, deadline_ms)
    return view


def public_view_to_pb(game_id: str, version: int, g: GameState) -> pb.GameView:
    """What every viewer of the game at ``version`` sees, each seat and every
    spectator alike (``rules.views.view_of`` for ``SPECTATOR``): the whole view but
    the viewer's seat, its hand and the turn's deadline (``add_seat_view``)."""
    setup = g.setup
    view = pb.GameView(
        game_id=game_id,
        version=version,
        status=STATUS[g.status],
        rules=rules_to_pb(setup.rules),
        players=setup.players,
        deal_number=g.deal_number,
    )
    deal = g.deal
    playing = g.status == GameStatus.PLAYING
    seen = None if deal is None else view_of(deal, SPECTATOR)
    # ``add`` builds each element in place: ``append`` would build it, then copy it.
    for i, s in enumerate(g.seats):
        view.seats.add(
            seat=i,
            player_name=s.name,
            taken=s.taken,
            hand_size=seen.hand_sizes[i] if seen is not None else 0,
            resigned=s.resigned,
            robot=i in g.robots,
            annul_vote=i in g.annul_votes,
            player_id=s.player_id,
        )
    if setup.table != NO_OPTIONS:
        view.table.CopyFrom(table_to_pb(setup.table))
    if setup.server_secret is not None and g.status != GameStatus.FINISHED:
        view.commitment.CopyFrom(commitment_to_pb(g))
    if g.match is not None:
        view.match_totals.extend(g.match.totals)
    if g.last_deal is not None:
        view.last_deal.CopyFrom(deal_result_to_pb(g.last_deal))
    if g.status == GameStatus.FINISHED:
        winner = g.winner if g.winner >= 0 else -1  # -1: drawn (the contract's value)
        view.match_result.CopyFrom(pb.MatchResult(winner_side=winner, reason=g.result_reason))
    if seen is None or not playing:
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
    """What ``seat`` sees beyond the public view (``public_view_to_pb``): its seat
    number, its own hand while a deal is played (``rules.views.hand_of``), and the
    turn's deadline where the table has one."""
    view.seat = seat
    playing = g.status == GameStatus.PLAYING
    if deadline_ms and playing and g.setup.table.turn_seconds:
        view.turn_deadline_ms = deadline_ms
    deal = g.deal
    if deal is None or not playing:
        return
    hand = hand_of(deal, seat)
    if hand is not None:
        view.hand.extend(hand)


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
    )
    if action.move is not None:  # kind "move"
        out.move.CopyFrom(move_to_pb(action.move))
    else:
        out.move.text = action.kind
    return out
