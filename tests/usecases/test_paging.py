"""The page-token codec (services/paging.py): a token is accepted only in the exact
form a call mints, and every value it yields is within the databases' ranges."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tranca.services.errors import Refused
from tranca.services.paging import (
    LAST_MICROSECOND,
    MAX_INT64,
    Position,
    before_token,
    offset_token,
    parse_before,
    parse_offset,
    parse_row_id,
)

# Text near the forms minted: digits of any script, signs, spaces, separators, the
# base64 alphabets and their padding, NUL; and any text at all.
NEAR = st.text(st.sampled_from("0123456789+- _:=/+AZaz\x00\u0661\uff11\u00b2"), max_size=24)
TOKENS = NEAR | st.text(max_size=24) | st.integers(-(2**70), 2**70).map(str)
ROW_IDS = st.text("0123456789abcdef", min_size=32, max_size=32)
POSITIONS = st.builds(Position, st.integers(0, LAST_MICROSECOND), ROW_IDS)


def accepted(parse: Callable[[str], object], token: str) -> object:
    try:
        return parse(token)
    except Refused as refusal:
        assert refusal.reason == "MALFORMED_REQUEST"
        return Refused


@given(TOKENS)
def test_an_offset_is_accepted_only_as_minted(token: str) -> None:
    offset = accepted(parse_offset, token)
    if offset is not Refused:
        assert isinstance(offset, int) and 0 <= offset <= MAX_INT64
        assert offset_token(offset) == token or (token == "" and offset == 0)


@given(TOKENS)
def test_an_id_to_read_below_is_accepted_only_as_minted(token: str) -> None:
    before = accepted(parse_before, token)
    if before is None:
        assert token == ""
    elif before is not Refused:
        assert isinstance(before, int) and 1 <= before <= MAX_INT64
        assert before_token(before) == token


@given(TOKENS)
def test_a_row_id_sent_as_text_is_read_only_as_written(text: str) -> None:
    row_id = parse_row_id(text)
    assert row_id is None or (1 <= row_id <= MAX_INT64 and str(row_id) == text)


@given(POSITIONS)
def test_a_position_minted_is_read_back(position: Position) -> None:
    assert Position.parse(position.token()) == position


@given(POSITIONS, st.data())
def test_a_position_edited_or_re_encoded_is_malformed(
    position: Position, data: st.DataObject
) -> None:
    token = position.token()
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    edited = data.draw(
        st.sampled_from(
            [
                token + "=" * (-len(token) % 4 or 4),  # padded
                base64.b64encode(raw).decode(),  # the standard alphabet, padded
                token[:-1],  # truncated
                token + "A",
                base64.urlsafe_b64encode(raw + b"\x00").decode().rstrip("="),
                base64.urlsafe_b64encode(raw.replace(b":", b";")).decode().rstrip("="),
                base64.urlsafe_b64encode(b"0" + raw).decode().rstrip("="),  # a leading zero
            ]
        )
    )
    if edited == token:
        return  # the standard alphabet's encoding may equal the minted one
    with pytest.raises(Refused):
        Position.parse(edited)


@given(TOKENS)
def test_any_position_accepted_is_one_minted(token: str) -> None:
    position = accepted(Position.parse, token)
    if position is not Refused and position is not None:
        assert isinstance(position, Position) and position.token() == token


@pytest.mark.parametrize("created_us", [-1, LAST_MICROSECOND + 1, 2**62, 2**63])
def test_a_time_past_the_calendar_is_no_position(created_us: int) -> None:
    with pytest.raises(ValueError):
        Position(created_us, "0" * 32)
    token = base64.urlsafe_b64encode(f"{created_us}:{'0' * 32}".encode()).decode().rstrip("=")
    with pytest.raises(Refused):
        Position.parse(token)
