"""The edge (api/edge.py): what a request may carry is read from the contracts'
``max_chars`` options and checked once, when the request is decoded, for every
service; a body that does not decode is refused the same way."""

from __future__ import annotations

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from tranca.api.edge import Rejected, checker, decoder
from tranca.v1 import (
    admin_pb2,
    game_pb2,
    notifications_pb2,
    options_pb2,
    platform_pb2,
    quick_play_pb2,
    session_pb2,
)
from tranca.v1 import game_pb2 as pb
from tranca.v1 import platform_pb2 as ppb

SERVICES = [
    *game_pb2.DESCRIPTOR.services_by_name.values(),
    *platform_pb2.DESCRIPTOR.services_by_name.values(),
    *session_pb2.DESCRIPTOR.services_by_name.values(),
    *quick_play_pb2.DESCRIPTOR.services_by_name.values(),
    *admin_pb2.DESCRIPTOR.services_by_name.values(),
    *notifications_pb2.DESCRIPTOR.services_by_name.values(),
]


def _request_strings() -> list[FieldDescriptor]:
    """Every string field of every message a request can hold, at any depth."""
    seen: set[str] = set()
    found: list[FieldDescriptor] = []

    def walk(message: Descriptor) -> None:
        name = message.full_name
        if name in seen:
            return
        seen.add(name)
        for field in message.fields:
            if field.type == FieldDescriptor.TYPE_STRING:
                found.append(field)
            elif field.type == FieldDescriptor.TYPE_MESSAGE:
                entry = field.message_type
                assert entry is not None
                if entry.GetOptions().map_entry:
                    found.append(field)  # its keys
                    value = entry.fields_by_name["value"]
                    if value.message_type is not None:
                        walk(value.message_type)
                else:
                    walk(entry)

    for service in SERVICES:
        for method in service.methods:
            walk(method.input_type)
    return found


def test_every_string_a_request_carries_has_its_limit_in_the_contract() -> None:
    fields = _request_strings()
    assert len(fields) > 40  # game ids, request ids, names, cards, knob names, ...
    missing = [f.full_name for f in fields if f.GetOptions().Extensions[options_pb2.max_chars] <= 0]
    assert not missing, f"string fields without (tranca.v1.max_chars): {missing}"


def test_every_request_type_has_a_check_read_from_its_descriptor() -> None:
    for service in SERVICES:
        for method in service.methods:
            checker(method.input_type)  # raises for a string field without its limit


def _refusal(cls: type, raw: bytes) -> str:
    decoded = decoder(cls)(raw)
    assert isinstance(decoded, Rejected), decoded
    assert decoded.error.reason == "MALFORMED_REQUEST"
    return decoded.error.message


def test_a_string_at_its_limit_passes_and_one_character_more_is_refused() -> None:
    ok = pb.SubmitMoveRequest(game_id="g", request_id="r" * 128)
    decoded = decoder(pb.SubmitMoveRequest)(ok.SerializeToString())
    assert decoded == ok
    over = pb.SubmitMoveRequest(game_id="g", request_id="r" * 129)
    assert _refusal(pb.SubmitMoveRequest, over.SerializeToString()) == (
        "request_id is at most 128 characters"
    )


def test_the_limit_counts_characters_not_bytes() -> None:
    # 100 characters of three bytes each: within player_name's 100.
    ok = pb.JoinGameRequest(game_id="g", player_name="é" * 50 + "ção" * 16 + "界" * 2)
    assert len(ok.player_name) == 100
    assert decoder(pb.JoinGameRequest)(ok.SerializeToString()) == ok


@pytest.mark.parametrize("char", ["\x00", "\x07", "\n", "\t", "\x1f", "\x7f", "\x85", "\x9f"])
def test_a_control_character_anywhere_is_refused(char: str) -> None:
    request = pb.CreateGameRequest(label=f"table{char}one")
    message = _refusal(pb.CreateGameRequest, request.SerializeToString())
    assert message == f"label holds a control character (U+{ord(char):04X})"


def test_strings_are_checked_at_every_depth_in_repeated_fields_and_map_keys() -> None:
    move = pb.SubmitMoveRequest(
        game_id="g",
        request_id="r",
        move=pb.Move(create_meld=pb.CreateMeldMove(cards=["4H", "5H", "6H\x00"])),
    )
    assert _refusal(pb.SubmitMoveRequest, move.SerializeToString()) == (
        "move.create_meld.cards[2] holds a control character (U+0000)"
    )
    rules = pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"))
    rules.rules.overrides["k" * 65].int_value = 1
    assert "rules.overrides key" in _refusal(pb.CreateGameRequest, rules.SerializeToString())
    knob = pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"))
    knob.rules.overrides["stock_out"].string_value = "end\x00deal"
    assert _refusal(pb.CreateGameRequest, knob.SerializeToString()) == (
        "rules.overrides['stock_out'].string_value holds a control character (U+0000)"
    )
    tournament = ppb.CreateTournamentRequest(
        entrants=[ppb.Entrant(id="a", player_ids=["p"]), ppb.Entrant(id="b\x01")]
    )
    assert _refusal(ppb.CreateTournamentRequest, tournament.SerializeToString()) == (
        "entrants[1].id holds a control character (U+0001)"
    )


def test_printable_unicode_passes() -> None:
    request = pb.JoinGameRequest(game_id="g", player_name="Zé 🂡 ‮ناصر‬ 𝒯", player_id="ü" * 128)
    assert decoder(pb.JoinGameRequest)(request.SerializeToString()) == request


@pytest.mark.parametrize(
    "raw",
    [
        b"\x0a\x05abc",  # a string field cut short
        b"\x0a\x03\xed\xa0\x80",  # a lone surrogate, which is not UTF-8
        b"\x0a\x02\xc3\x28",  # an invalid UTF-8 sequence
        b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",  # a tag past every varint
        b"\x0b",  # a group start (wire type 3) that never ends
    ],
)
def test_a_body_that_does_not_decode_is_refused_not_crashed_on(raw: bytes) -> None:
    message = _refusal(pb.GetViewRequest, raw)
    assert message == "the body is not a valid GetViewRequest"


def test_a_refusal_quotes_at_most_a_short_prefix_of_a_key() -> None:
    request = pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"))
    request.rules.overrides["x" * 5000].int_value = 1
    message = _refusal(pb.CreateGameRequest, request.SerializeToString())
    assert len(message) < 200
    assert "(5000 characters)" in message
