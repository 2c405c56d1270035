"""A fuzzer over every RPC's contract, generated from the descriptors (hypothesis).

For every method of every service and both databases, a request is built field by
field from its message descriptor: every string field gets, besides values that make
sense in this world (the games' ids, real cards, preset and knob names), the full
Unicode range with NUL and the other control characters, a lone surrogate (spliced
into the bytes: no client library will encode one), lengths at and just past the
field's ``max_chars``, and a string the server parses values of the shape it reads
it as (``shapes.py``: numbers past 64 bits or decorated, base64 of crafted
positions, page tokens of other calls, apps and filters, another app's ids, URLs of
every address...); every number the extremes of its type (int32, int64, uint64)
besides small values; every enum unknown values; oneofs unset or set; map keys and
knob values of every kind. Some requests are raw bytes instead (random, truncated, or
two encodings concatenated, which sets two members of a oneof on the wire), and they
go out with any credential: either app's key, a seat's or a spectator's token, junk,
none.

Every answer must be OK or a proper refusal (never UNKNOWN, INTERNAL or a transport
error); a refusal changes nothing; a call without app B's key changes none of B's
objects and answers none of their ids (``contract_world.py``: B has games, a
tournament, a ticket, deliveries of its own); every game stays readable (its view and replay),
and a game the fuzzer managed to create is played through its first deals by greedy
bots, stored and shown at each deal's end. Two stateful checks run beside it:
reused request ids with changed fields (the first answer, or REQUEST_ID_REUSED,
never a second application), and many watch streams per credential (never more open
than the cap, and every slot given back). ``test_fuzz_shapes.py`` sweeps every shape's
families over every parsed field of every request.

``TRANCA_CONTRACT_FUZZ_EXAMPLES`` sets the size (default 300 per database in ``make
test``; ``make fuzz`` runs more).
"""

from __future__ import annotations

import os
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.harness.pictures import png
from tranca.api.convert import view_to_pb
from tranca.store.codec import state_text
from tranca.table.game import Action, apply_action, new_game, play_action
from tranca.v1 import (
    admin_pb2,
    chat_pb2,
    game_pb2,
    invitations_pb2,
    notifications_pb2,
    options_pb2,
    platform_pb2,
    quick_play_pb2,
    session_pb2,
    social_pb2,
)
from tranca.v1 import game_pb2 as pb
from tranca_rules.bots import GreedyBot
from tranca_rules.engine import legal_moves
from tranca_rules.presets import KNOB_RANGES, PRESETS, Rules

from .contract_world import (
    APP_WATCHES,
    DECK,
    KNOBS,
    World,
    credentials,
    pools,
    problems,
    send,
    shape_families,
    snapshot,
)
from .shapes import shape_of

EXAMPLES = int(os.environ.get("TRANCA_CONTRACT_FUZZ_EXAMPLES", "300"))
METHODS: list[MethodDescriptor] = [
    m
    for f in (
        game_pb2,
        platform_pb2,
        session_pb2,
        quick_play_pb2,
        admin_pb2,
        notifications_pb2,
        social_pb2,
        chat_pb2,
        invitations_pb2,
    )
    for s in f.DESCRIPTOR.services_by_name.values()
    for m in s.methods
]
# The calls that create and change the most are drawn more often.
WEIGHTS = {"CreateGame": 5, "JoinGame": 3, "SubmitMove": 3, "CreateTournament": 2, "GrantChips": 2}
WEIGHTED_METHODS = [m for m in METHODS for _ in range(WEIGHTS.get(m.name, 1))]
SURROGATE_MARK = "\ue000"  # three bytes in UTF-8, replaced by a lone surrogate's three
LONE_SURROGATE = b"\xed\xa0\x80"  # U+D800 "encoded": not UTF-8
INT_EXTREMES = {
    FieldDescriptor.TYPE_INT32: [-(2**31), 2**31 - 1, -1],
    FieldDescriptor.TYPE_INT64: [-(2**63), 2**63 - 1, 2**53 + 1, -1],
    FieldDescriptor.TYPE_UINT64: [2**64 - 1, 2**63, 2**63 - 1],
    FieldDescriptor.TYPE_UINT32: [2**32 - 1],
}
# ----- requests from descriptors ---------------------------------------------------------


@dataclass
class Draft:
    """What one request is made of: the classes of hostile values it holds, and how
    many more fields may get one (one or two a request: a request hostile in every
    field would be refused by its first check and test nothing deeper)."""

    hostile: int
    classes: set[str] = field(default_factory=set)
    variants: set[str] = field(default_factory=set)  # the shapes' values, finer

    def hostile_now(self, draw: st.DrawFn) -> bool:
        if self.hostile > 0 and draw(st.integers(0, 2)) == 0:
            self.hostile -= 1
            return True
        return False


def _hostile_text(draft: Draft) -> st.SearchStrategy[str]:
    any_char = st.characters(codec=None, exclude_categories=["Cs"], exclude_characters="\ue000")
    controls = st.characters(min_codepoint=0, max_codepoint=0x1F) | st.characters(
        min_codepoint=0x7F, max_codepoint=0x9F
    )

    def tagged(tag: str, text: str) -> str:
        draft.classes.add(tag)
        return text

    printable = st.text(st.characters(codec="ascii", min_codepoint=32), max_size=4)
    return st.one_of(
        st.text(any_char, min_size=1, max_size=12).map(lambda t: tagged("unicode", t)),
        st.builds(lambda a, b: tagged("nul", a + "\x00" + b), printable, printable),
        st.builds(
            lambda a, c, b: tagged("nul" if c == "\x00" else "control", a + c + b),
            printable,
            controls,
            st.text(max_size=4),
        ),
        st.builds(
            lambda a, b: tagged("surrogate", a + SURROGATE_MARK + b),
            st.text(st.characters(codec="ascii", min_codepoint=32), max_size=4),
            st.text(st.characters(codec="ascii", min_codepoint=32), max_size=4),
        ),
    )


@st.composite
def _string(draw: st.DrawFn, w: World, f: FieldDescriptor, draft: Draft) -> str:
    limit = int(f.GetOptions().Extensions[options_pb2.max_chars])
    if draft.hostile_now(draw):
        shape = shape_of(f)
        kinds = shape_families(w, f)
        # A parsed field gets a value of its shape two times in three, the hostile
        # text of any field otherwise.
        if kinds and draw(st.integers(0, 2)) > 0:
            family = draw(st.sampled_from(sorted(kinds)))
            draft.classes.add(f"shape:{shape}")
            draft.variants.add(f"{shape}:{family}")
            return kinds[family](draw(st.randoms(use_true_random=False)))
        if limit > 0 and draw(st.booleans()):
            n = draw(st.sampled_from([limit, limit + 1]))
            draft.classes.add("at_limit" if n == limit else "past_limit")
            return str(draw(st.sampled_from(["x", "é", "界", "🂡"]))) * n
        return draw(_hostile_text(draft))
    pool = pools(w, f)
    if pool:
        return str(draw(st.sampled_from(pool)))
    return draw(st.text(st.characters(codec="ascii", min_codepoint=32), max_size=8))


@st.composite
def _number(draw: st.DrawFn, w: World, f: FieldDescriptor, draft: Draft) -> int:
    if draft.hostile_now(draw):
        draft.classes.add("int_extreme")
        return int(draw(st.sampled_from([*INT_EXTREMES.get(f.type, [2**31 - 1]), 0])))
    pool = pools(w, f)
    if pool and draw(st.integers(0, 3)) != 0:
        return int(draw(st.sampled_from(pool)))
    low = 0 if f.type in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_UINT32) else -3
    return draw(st.integers(low, 40))


# A real 2 x 2 picture (two rows, each a filter byte and two RGB pixels), and hostile
# ones: a header claiming 3.6 billion pixels, rows that do not fill the picture.
PICTURES = [png(2, 2, (b"\x00" + b"\xff\x00\x00" * 2) * 2)]
HOSTILE_PICTURES = [png(60_000, 60_000, b"\x00" * 64), png(64, 64, b"\x00" * 3)]


@st.composite
def _bytes(draw: st.DrawFn, f: FieldDescriptor, draft: Draft) -> bytes:
    if draft.hostile_now(draw):
        limit = int(f.GetOptions().Extensions[options_pb2.max_bytes])
        draft.classes.add("hostile_bytes")
        return draw(
            st.one_of(
                st.sampled_from(HOSTILE_PICTURES),
                st.binary(max_size=64),
                st.sampled_from([b"\xff" * limit, b"\xff" * (limit + 1)]),
            )
        )
    return draw(st.sampled_from([*PICTURES, b""]))


@st.composite
def _value(draw: st.DrawFn, w: World, f: FieldDescriptor, draft: Draft, depth: int) -> Any:
    t = f.type
    if t == FieldDescriptor.TYPE_STRING:
        return draw(_string(w, f, draft))
    if t == FieldDescriptor.TYPE_BYTES:
        return draw(_bytes(f, draft))
    if t == FieldDescriptor.TYPE_BOOL:
        return draw(st.integers(0, 3)) == 0  # mostly off: options that combine rarely
    if t == FieldDescriptor.TYPE_ENUM:
        assert f.enum_type is not None
        values = [v.number for v in f.enum_type.values]
        if draft.hostile_now(draw):
            draft.classes.add("unknown_enum")
            return draw(st.sampled_from([99, -1, 2**31 - 1]))
        return draw(st.sampled_from(values))
    if t == FieldDescriptor.TYPE_DOUBLE:
        return draw(st.floats())
    if t == FieldDescriptor.TYPE_MESSAGE:
        assert f.message_type is not None
        return draw(_message(w, f.message_type, draft, depth + 1))
    return draw(_number(w, f, draft))


@st.composite
def _message(draw: st.DrawFn, w: World, d: Descriptor, draft: Draft, depth: int = 0) -> Message:
    out = message_factory.GetMessageClass(d)()
    if depth > 4:
        return out
    # Most messages set every field (a request missing what it needs is refused by
    # its first check); the others leave each field unset half the time.
    complete = draw(st.integers(0, 3)) > 0
    oneof_pick = {o.name: draw(st.sampled_from([None, *o.fields])) for o in d.oneofs}
    if None in oneof_pick.values():
        draft.classes.add("unset_oneof")
    for f in d.fields:
        if f.containing_oneof is not None and f.containing_oneof.name in oneof_pick:
            if oneof_pick[f.containing_oneof.name] is not f:
                continue
        elif not complete and draw(st.booleans()):
            continue  # left unset
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            key_field = f.message_type.fields_by_name["key"]
            value_field = f.message_type.fields_by_name["value"]
            entries = getattr(out, f.name)
            for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
                key = draw(st.one_of(st.sampled_from(KNOBS), _string(w, key_field, draft)))
                if value_field.message_type is not None:
                    entries[key].CopyFrom(
                        draw(_message(w, value_field.message_type, draft, depth + 1))
                    )
                else:
                    entries[key] = draw(_value(w, value_field, draft, depth))
            continue
        if f.is_repeated:
            if f.name == "deck" and draw(st.booleans()):
                getattr(out, f.name).extend(DECK.split())  # the 104 cards, in order
                continue
            values = [draw(_value(w, f, draft, depth)) for _ in range(draw(st.integers(0, 4)))]
            if f.message_type is not None:
                for v in values:
                    getattr(out, f.name).add().CopyFrom(v)
            else:
                getattr(out, f.name).extend(values)
        elif f.message_type is not None:
            getattr(out, f.name).CopyFrom(draw(_value(w, f, draft, depth)))
        else:
            setattr(out, f.name, draw(_value(w, f, draft, depth)))
    return out


@st.composite
def _new_table(draw: st.DrawFn, w: World, draft: Draft) -> pb.CreateGameRequest:
    """A plausible new table whose rules override a knob or two with any value of any
    kind: a range's ends and one past them, the 64-bit extremes, the wrong type."""
    preset = draw(st.sampled_from(sorted(PRESETS)))
    players = draw(st.sampled_from(PRESETS[preset].player_counts))
    request = pb.CreateGameRequest(rules=pb.Rules(preset=preset), players=players)
    # First an integer knob with a value of its own type, at or past a range end or at
    # a 64-bit extreme; then, sometimes, any knob with any kind of value, or none.
    knobs = [(draw(st.sampled_from(sorted(KNOB_RANGES))), True)]
    if draw(st.booleans()):
        knobs.append((draw(st.sampled_from(KNOBS)), False))
    for knob, own_type in knobs:
        low, high = KNOB_RANGES.get(knob, (0, 1))
        number = draw(st.sampled_from([low, high, low - 1, high + 1, -(2**63), 2**63 - 1]))
        value = request.rules.overrides[knob]
        kind = 3 if own_type else draw(st.sampled_from([3, 0, 1, 2, 4]))
        if knob in ("card_values", "player_counts") and kind == 3:
            kind = 0
        if kind == 0:
            size = 14 if knob == "card_values" else 1
            value.int_list.values.extend([number] * draw(st.sampled_from([size, size, 13])))
        elif kind == 1:
            value.bool_value = draw(st.booleans())
        elif kind == 2:
            value.string_value = draw(st.sampled_from(["end_deal", "top", "draw", "x"]))
        elif kind == 3:
            value.int_value = number
        # kind 4: the value sets none of its kinds
        draft.classes.add("knob_extreme" if number in (-(2**63), 2**63 - 1) else "knob_edge")
    if draw(st.booleans()):
        label = pb.CreateGameRequest.DESCRIPTOR.fields_by_name["label"]
        draft.hostile = 1
        request.label = draw(_string(w, label, draft))
    return request


def _encoded(request: Message) -> bytes:
    return request.SerializeToString().replace(SURROGATE_MARK.encode(), LONE_SURROGATE)


@st.composite
def _call(draw: st.DrawFn, w: World) -> tuple[MethodDescriptor, bytes, str, Draft]:
    method = draw(st.sampled_from(WEIGHTED_METHODS))
    draft = Draft(hostile=draw(st.sampled_from([0, 1, 1, 2])))
    form = draw(st.integers(0, 19))
    if method.name == "CreateGame" and draw(st.integers(0, 3)):
        body = _encoded(draw(_new_table(w, draft)))
    elif form == 0:
        body = draw(st.binary(max_size=48))
        draft.classes.add("raw_bytes")
    else:
        body = _encoded(draw(_message(w, method.input_type, draft)))
        if form == 1:
            # Two encodings back to back: protobuf merges them, and a oneof set in
            # each arrives with both members on the wire (the last one wins).
            body += _encoded(draw(_message(w, method.input_type, draft)))
            draft.classes.add("merged_encodings")
        elif form == 2 and body:
            body = body[: draw(st.integers(0, len(body) - 1))]
            draft.classes.add("truncated")
    if not draft.classes:
        draft.classes.add("plausible")
    who = draw(
        st.sampled_from(
            ["app_a"] * 5
            + ["app_b", "turn", "turn", "seat", "spectator", "junk", "none"]
            + ["session", "session", "junk_session"]
        )
    )
    return method, body, who, draft


def _worst_deal(rules: Rules) -> int:
    """More points than any side can score or lose in one deal under ``rules``: every
    card of the deck at the largest card value, as many canastras as the deck makes
    at the largest bonus, four red threes at the largest red-three value, the largest
    batida, both mortos' penalty and eight threes in hand."""
    bonus = rules.canastra_bonus
    canastras = 108 // rules.canastra_size + 1
    return (
        108 * max(abs(v) for v in rules.card_values)
        + canastras
        * max(
            abs(b)
            for b in (bonus.clean, bonus.dirty, bonus.real, bonus.all_wilds, bonus.ace_to_ace)
        )
        + 4 * max(abs(rules.red_three_value), abs(rules.unreplaced_red_three_value))
        + abs(rules.all_red_threes_value)
        + max(abs(rules.batida_bonus), abs(rules.concealed_batida_bonus))
        + 2 * abs(rules.morto_penalty)
        + 8 * abs(rules.three_in_hand_penalty)
    )


def _play_deals(w: World, game_id: str, deals: int = 3) -> None:
    """A created game can be played: its first deals (or the match, if shorter) to
    their end by greedy bots, which meld, build canastras and go out (so that every
    kind of points its rules give is scored), stored and shown at each deal's end."""
    game = w.run(w.server.store.game(game_id))
    setup = game.state.setup
    # Whatever the play, no score of an accepted game may come near the 64-bit limits
    # the contracts carry, even over a match of a thousand deals.
    worst = _worst_deal(setup.rules)
    assert worst * 1000 < 2**53, f"{setup.rules.to_dict()} can score {worst} in a deal"
    g = new_game(setup)
    version = 0
    for seat in range(setup.players):
        version += 1
        apply_action(g, Action("join", seat), version)
    version += 1
    apply_action(g, Action("start", 0), version)
    bots = [GreedyBot(seat) for seat in range(setup.players)]
    shown = 0
    while g.status == "playing" and shown < deals and version < 20_000:
        deal = g.deal
        assert deal is not None
        version += 1
        move = bots[deal.turn].choose(deal, legal_moves(deal))
        apply_action(g, play_action(deal.turn, move), version)
        if g.last_deal is not None and int(g.last_deal["deal_number"]) > shown:
            shown = int(g.last_deal["deal_number"])
            state_text(g)
            for seat in range(-1, setup.players):
                view_to_pb(game_id, version, g, seat).SerializeToString()
    assert shown >= 1, "no deal of a created game came to its end"


def _check_readable(w: World, game_id: str, key: str) -> None:
    md = w.app(key)
    w.stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=md, timeout=10)
    w.stub.GetReplay(pb.GetReplayRequest(game_id=game_id), metadata=md, timeout=10)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    # The world moves on between examples: generate only, no shrinking, no database.
    phases=[Phase.generate],
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_every_rpc_survives_every_input_its_contract_allows_a_client_to_send(
    world: World, data: st.DataObject
) -> None:
    w = world
    method, body, who, draft = data.draw(_call(w))
    md = credentials(w, who)
    # Between two examples only the fuzzer's calls change the world: an example's
    # "after" is the next one's "before" (unless game A was replaced).
    before = w.last or snapshot(w)
    w.stats["cases"] += 1
    w.stats[f"rpc:{method.name}"] += 1
    for c in draft.classes:
        w.stats[f"class:{c}"] += 1
    for v in draft.variants:
        w.stats[f"variant:{v}"] += 1
    answer = send(w, method, body, md)
    w.stats[f"code:{answer.code.name}"] += 1
    found, w.last = problems(w, method, who, answer, before)
    assert not found, found
    if answer.body is not None and method.name == "CreateGame":
        created = pb.CreateGameResponse.FromString(answer.body).game.game_id
        _check_readable(w, created, w.key_b if who == "app_b" else w.key_a)
        _play_deals(w, created)
        w.stats["created_games_played"] += 1
    # Whatever happened, every game still reads.
    _check_readable(w, w.game_a, w.key_a)
    _check_readable(w, w.game_b, w.key_b)
    if w.last.games[w.game_a][1] == "finished":
        w.new_game_a()  # a fuzzed resignation or annulment ended it
        w.last = None


# ----- stateful: request ids and watch streams -------------------------------------------


@settings(
    max_examples=max(10, EXAMPLES // 10),
    deadline=None,
    phases=[Phase.generate],
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_a_reused_request_id_with_changed_fields_is_never_applied_twice(
    world: World, data: st.DataObject
) -> None:
    w = world
    if w.version(w.game_a)[1] != "playing":
        w.new_game_a()
    md = (("authorization", f"Bearer {w.turn_token()}"),)
    legal = w.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=w.game_a), metadata=md)
    move = legal.moves[data.draw(st.integers(0, 999)) % len(legal.moves)]
    rid = uuid.uuid4().hex
    first = w.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=w.game_a, expected_version=legal.version, request_id=rid, move=move
        ),
        metadata=md,
    )
    change = data.draw(st.sampled_from(["version", "extreme_version", "move", "legal_flag"]))
    w.stats[f"reuse:{change}"] += 1
    again = pb.SubmitMoveRequest(
        game_id=w.game_a, expected_version=legal.version, request_id=rid, move=move
    )
    if change == "version":
        again.expected_version = first.version
    elif change == "extreme_version":
        again.expected_version = data.draw(st.sampled_from([-(2**63), 2**63 - 1]))
    elif change == "legal_flag":
        again.include_legal_moves = True
    else:
        again.move.CopyFrom(pb.Move(discard=pb.DiscardMove(card="JK")))
    try:
        replay = w.stub.SubmitMove(again, metadata=md)
        assert change != "move"
        assert replay.replayed and replay.version == first.version
    except grpc.RpcError as e:
        assert change == "move", e.details()
        assert e.code() == grpc.StatusCode.ALREADY_EXISTS
    assert w.version(w.game_a)[0] == first.version


@pytest.mark.parametrize("who", ["seat", "spectator", "app_a"])
def test_many_watch_streams_per_credential_never_pass_the_cap(world: World, who: str) -> None:
    w = world
    if w.version(w.game_a)[1] != "playing":
        w.new_game_a()
    cap = APP_WATCHES if who == "app_a" else 4
    md = credentials(w, who)
    req = pb.WatchGameRequest(game_id=w.game_a).SerializeToString()
    path = "/tranca.v1.GameService/WatchGame"
    watch: grpc.UnaryStreamMultiCallable[bytes, bytes] = w.channel.unary_stream(path)
    # Past the cap, one after another and never closed: as many as the cap stay open.
    tries = 3 * cap
    open_: list[Any] = []
    refused = 0
    for _ in range(tries):
        stream = watch(req, metadata=md)
        try:
            next(stream)
            open_.append(stream)
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            refused += 1
    assert len(open_) == min(cap, tries)
    assert refused == tries - min(cap, tries)
    for s in open_:
        s.cancel()
    w.stats[f"watch_streams:{who}"] += tries

    # Every slot is given back: a full cap's worth opens again.
    def reopened() -> int:
        again = []
        for _ in range(min(cap, tries)):
            stream = watch(req, metadata=md)
            try:
                next(stream)
                again.append(stream)
            except grpc.RpcError:
                break
        for s in again:
            s.cancel()
        return len(again)

    deadline = 50
    while reopened() != min(cap, tries) and deadline:
        deadline -= 1
        threading.Event().wait(0.1)
    assert deadline, "closed streams did not give their slots back"
