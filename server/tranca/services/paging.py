"""Page tokens, and the ids a caller sends as text that the server reads as numbers:
minted and parsed here, by every paged call, so that nothing a caller sent reaches
the database before it is known to be a value the database takes.

A page token is opaque to clients: they pass back a ``next_page_token`` as they got
it. So a token is accepted only in the exact form this module mints; any other
(a sign, a space, a leading zero, an underscore, a digit of another script, a
base64 of another alphabet or padding, a position of another shape) is
MALFORMED_REQUEST, and so is a value out of its range: a count or id from 0 (or 1)
to 2^63 - 1, the largest the databases' 64-bit integers hold; a time within the
calendar (year 1970 to 9999); an id of the shape the server makes. An id the server
parses as a number (a webhook delivery's) is checked the same way, and one outside
those bounds was never issued: the call's own "not found".

The kinds of token:

- an offset (``offset_token``, ``parse_offset``): how many rows the pages before
  held (ListGames, ListTournaments);
- an id to read below (``before_token``, ``parse_before``): the last row's id of the
  page before, for lists read newest first by an id that only grows (ListChipEntries,
  ListWebhookDeliveries);
- a text key (``text_token``, ``parse_text_token``): the last row's key of the
  page before, for lists ordered by a key the caller gave (ListFriends, by the
  other player's id), as URL-safe base64 of its UTF-8;
- a position (``Position``): a row's creation time and id, for lists ordered by
  when their rows were made, where several are made at the same instant
  (ListOpenTables, oldest first, in microseconds; ListPlayerSessions, newest first,
  in milliseconds). Neither part of a position ever changes, so a row changed between
  two pages keeps its place: none is repeated or skipped.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from .errors import Refused, malformed

MAX_INT64 = 2**63 - 1  # the largest value of the databases' 64-bit integers
# 9999-12-31T23:59:59.999999Z in microseconds since the epoch: the last instant the
# store's times (Python's datetime) hold.
LAST_MICROSECOND = 253_402_300_800 * 10**6 - 1
# The decimal form minted: ASCII digits, no sign, no leading zero, at most 19 digits.
_DECIMAL = re.compile(r"0|[1-9][0-9]{0,18}", re.ASCII)
_URLSAFE = re.compile(r"[A-Za-z0-9_-]+", re.ASCII)
# A row's id as the server makes it (a game's uuid4().hex, a session's
# secrets.token_hex(16)).
_ROW_ID = re.compile(rb"[0-9a-f]{32}")
_POSITION = re.compile(rb"(0|[1-9][0-9]{0,17}):([0-9a-f]{32})")


def bad_page_token() -> Refused:
    return malformed("bad page_token: pass back a next_page_token as this call returned it")


def decimal(text: str, low: int = 0) -> int | None:
    """The value of ``text`` if it is a number in the form this module mints, from
    ``low`` to 2^63 - 1; else None."""
    if _DECIMAL.fullmatch(text) is None:
        return None
    value = int(text)
    return value if low <= value <= MAX_INT64 else None


def offset_token(offset: int) -> str:
    """The token of the page that starts ``offset`` rows in."""
    assert 0 <= offset <= MAX_INT64, offset
    return str(offset)


def parse_offset(token: str) -> int:
    """The offset a token holds (empty: 0, the first page)."""
    if not token:
        return 0
    offset = decimal(token)
    if offset is None:
        raise bad_page_token()
    return offset


def before_token(row_id: int | None) -> str:
    """The token of the page below ``row_id`` ("": no page follows)."""
    if row_id is None:
        return ""
    assert 1 <= row_id <= MAX_INT64, row_id
    return str(row_id)


def parse_before(token: str) -> int | None:
    """The id a page starts below (None: the first page). Ids start at 1."""
    if not token:
        return None
    before = decimal(token, low=1)
    if before is None:
        raise bad_page_token()
    return before


def text_token(key: str) -> str:
    """The token of the page after the row keyed ``key``."""
    return base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")


def parse_text_token(*, token: str, max_chars: int) -> str:
    """The key a page starts after ("": the first page): only a token ``text_token``
    minted, of a key of 1 to ``max_chars`` characters."""
    if not token:
        return ""
    if _URLSAFE.fullmatch(token) is None or len(token) % 4 == 1:
        raise bad_page_token()
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        key = raw.decode()
    except (binascii.Error, ValueError):
        raise bad_page_token() from None
    if not 1 <= len(key) <= max_chars or text_token(key) != token:
        raise bad_page_token()
    return key


def parse_row_id(text: str) -> int | None:
    """A row's id sent as text (a delivery's): the number, or None for text that no
    row's id was ever written as (the caller answers its own "not found")."""
    return decimal(text, low=1)


@dataclass(frozen=True)
class Position:
    """A row in an order by creation time, then id: its creation time since the epoch
    (in the order's unit: microseconds for a game, milliseconds for a session, within
    the calendar either way) and its id."""

    created: int
    row_id: str

    def __post_init__(self) -> None:
        if not 0 <= self.created <= LAST_MICROSECOND:
            raise ValueError(f"a position's time is 0 to {LAST_MICROSECOND}")
        if _ROW_ID.fullmatch(self.row_id.encode()) is None:
            raise ValueError("a position's id is a game's id")

    def token(self) -> str:
        raw = f"{self.created}:{self.row_id}".encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def parse(cls, token: str) -> Position | None:
        """The position a token holds (empty: None, the first page)."""
        if not token:
            return None
        # The URL-safe alphabet with no padding, and the one encoding of its bytes
        # (no stray bits in the last character): exactly what ``token`` mints.
        if _URLSAFE.fullmatch(token) is None or len(token) % 4 == 1:
            raise bad_page_token()
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            raise bad_page_token() from None
        found = _POSITION.fullmatch(raw)
        if found is None or base64.urlsafe_b64encode(raw).decode().rstrip("=") != token:
            raise bad_page_token()
        try:
            return cls(int(found[1]), found[2].decode())
        except ValueError:
            raise bad_page_token() from None


__all__ = [
    "LAST_MICROSECOND",
    "MAX_INT64",
    "Position",
    "bad_page_token",
    "before_token",
    "decimal",
    "offset_token",
    "parse_before",
    "parse_offset",
    "parse_row_id",
]
