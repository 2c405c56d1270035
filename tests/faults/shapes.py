"""The shapes the server reads strings as, for the contract fuzzer: every string field
of every request is classified (``SHAPE_OF``), and each shape of a parsed field has
families of values that break naive parsing (``families``).

A page token is read as a number or as base64 of a position; a delivery id as a
64-bit number; a game's, tournament's or ticket's id as the hex the server makes;
a URL by its parts; a refresh token or invite code by its prefix; a move's text by
its notation. For each, the values a parser that merely "accepts what Python
accepts" gets wrong: numbers past 64 bits, negative, zero, with leading zeros, plus
signs, spaces, underscores or digits of other scripts; base64 in both alphabets,
padded and not, of crafted contents (NUL bytes, times past the calendar, other
separators, ids of another form) and truncated; tokens minted by another call, for
another app or another filter, and edited; ids that exist but are another app's or
of another kind; URLs of every scheme and address form. Free text (a label, a name)
has no shape: the fuzzer's Unicode, control characters and lengths cover it.

A family is a function of a random source, so that the same families serve the
hypothesis-driven fuzzer (``st.randoms()``) and the sweep that tries every family of
every parsed field of every request in turn.

``test_every_parsed_string_field_has_a_shape`` (in the fuzzer) fails when a request
gains a string field that is not classified here, or whose name says it is parsed
(an id, a token, a URL...) and is classified as free text.
"""

from __future__ import annotations

import base64
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Every string field of every request, by name, to the shape the server reads it as.
SHAPE_OF: dict[str, str] = {
    "page_token": "page_token",
    "delivery_id": "numeric_id",
    "game_id": "object_id",
    "tournament_id": "object_id",
    "ticket_id": "object_id",
    "invitation_id": "object_id",
    "app_id": "object_id",
    "request_id": "request_id",
    "grant_id": "request_id",
    "url": "url",
    "allowed_origins": "origin",
    "refresh_token": "secret_token",
    "invite_code": "secret_token",
    "device_id": "device_id",
    "id_token": "jwt",
    "public_key": "public_key",
    "issuer": "url",
    "jwks_uri": "url",
    "provider": "name",
    "algorithms": "name",
    "algorithm": "name",
    "key_id": "name",
    "client_ids": "name",  # compared with a token's aud
    "avatar_url": "url",
    "avatar_hosts": "name",  # host names
    "locale": "name",  # a language tag
    "country": "name",  # an ISO 3166 code
    "player_id": "player_id",
    "player_ids": "player_id",
    "partner_player_id": "player_id",
    "merged_player_id": "player_id",
    "kept_player_id": "player_id",
    "acting_player_id": "player_id",
    "owner_player_id": "player_id",
    "entrant": "entrant",
    "entrant_a": "entrant",
    "entrant_b": "entrant",
    "byes": "entrant",
    "id": "entrant",  # Entrant.id
    "entropy": "seed_text",
    "player_address": "address",
    "card": "card",
    "cards": "card",
    "deck": "card",
    "round_decks": "deck_text",
    "text": "move_text",  # Move.text, the move notation
    "preset": "name",
    "presets": "name",
    "string_value": "name",  # a knob's named value
    "key": "name",  # a rule override's knob
    # Free text, stored and shown, never parsed.
    "label": "text",
    "name": "text",
    "display_name": "text",
    "display_names": "text",
    "player_name": "text",
    "reason": "text",
    "note": "text",  # a moderator's, shown to the player
    "phrase": "name",  # a quick phrase's id, looked up
    "lobby_rooms": "name",  # the app's chat rooms' names, checked
    "client_message_id": "request_id",  # a chat message's, compared
    "nonce": "text",  # compared with the token's, never parsed
    "subject": "text",  # an identity's, compared, never parsed
    "automatic_robot_level": "name",  # a robot level, checked (AppPolicy)
    "title": "text",  # an achievement's, shown
    "counter": "name",  # an achievement's counter, looked up
}
# A field whose name says the server parses it may not be free text.
PARSED_NAME = re.compile(
    r"(^|_)(id|ids|token|url|urls|origin|origins|code|address|key|seed|entropy|secret)$"
)

INT64_MAX = 2**63 - 1
LAST_MICROSECOND = 253_402_300_800 * 10**6 - 1  # 9999-12-31T23:59:59.999999Z
# Just past 64 bits, in as many digits as the largest 64-bit number (a check of the
# length alone lets them through), and further.
JUST_PAST_64_BITS = [2**63, 2**63 + 1, 10**19 - 1]
FAR_PAST_64_BITS = [2**64 - 1, 2**64, 10**30]
PAST_64_BITS = JUST_PAST_64_BITS + FAR_PAST_64_BITS
IN_RANGE = [0, 1, 2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**62 - 1, 2**62, INT64_MAX]
# Times a position may not hold: just past the calendar's last microsecond (below
# 2^62, a bound of 64-bit arithmetic), and far off or below 0.
JUST_PAST_CALENDAR = [LAST_MICROSECOND + 1, LAST_MICROSECOND + 10**6, 10**18, 2**61, 2**62 - 1]
FAR_FROM_CALENDAR = [2**62, INT64_MAX, 2**63, 10**30, -1]
OTHER_DIGITS = [0x0660, 0x0966, 0xFF10, 0x1D7CE]  # Arabic-Indic, Devanagari, fullwidth, math

Family = Callable[[random.Random], str]


@dataclass
class Known:
    """Values the fuzzer's world made, for the shapes to use: the ids and tokens of
    the calling app (A) and of another app (B) with objects of its own."""

    own_ids: list[str] = field(default_factory=list)  # A's games and tournament
    other_ids: list[str] = field(default_factory=list)  # B's games, tournament, ticket, app
    own_deliveries: list[str] = field(default_factory=list)
    other_deliveries: list[str] = field(default_factory=list)
    minted: list[str] = field(default_factory=list)  # next_page_tokens, both apps
    used_request_ids: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)  # refresh tokens, invite codes
    other_players: list[str] = field(default_factory=list)
    game_ids: list[str] = field(default_factory=list)  # any app's, for positions


# How many choices a pick draws from, whatever the list's length: the world's lists
# grow during a run (a new game when a fuzzed call ends the last), and a draw whose
# range followed them would make Hypothesis replay a prefix of choices under other
# bounds (FlakyStrategyDefinition).
PICK_RANGE = 64


def _pick(values: Sequence[str], fallback: str) -> Callable[[random.Random], str]:
    return lambda rng: values[rng.randrange(PICK_RANGE) % len(values)] if values else fallback


def _in_script(text: str, zero: int) -> str:
    return "".join(chr(zero + int(c)) if c.isdigit() else c for c in text)


# ----- numbers -------------------------------------------------------------------------


def _negative(rng: random.Random) -> str:
    return rng.choice(["-0", f"-{rng.choice([*IN_RANGE, *PAST_64_BITS])}"])


def _decorated(rng: random.Random) -> str:
    n = rng.choice([1, 10, 2**31, 2**62])
    return rng.choice(
        [f"+{n}", f"00{n}", f" {n}", f"{n} ", f"\u00a0{n}", f"{n:_}", f"{n:,}", "0" * 25]
    )


def _other_script(rng: random.Random) -> str:
    """Digits of other scripts, which int() reads as numbers."""
    return _in_script(str(rng.choice([1, 12, 2**62, 2**63])), rng.choice(OTHER_DIGITS))


DECIMAL_FAMILIES: dict[str, Family] = {
    "decimal_just_past_64_bits": lambda rng: str(rng.choice(JUST_PAST_64_BITS)),
    "decimal_far_past_64_bits": lambda rng: str(
        rng.choice([*FAR_PAST_64_BITS, rng.randrange(2**64, 2**80)])
    ),
    "decimal_in_range": lambda rng: str(rng.choice(IN_RANGE)),
    "decimal_negative": _negative,
    "decimal_decorated": _decorated,  # signs, zeros, spaces, separators
    "decimal_other_script": _other_script,
    # Characters str.isdigit() takes for digits and int() does not.
    "decimal_digit_like": lambda rng: rng.choice(["\u00b2", "1\u00b2", "\u2460", "\u00b3\u00b9"]),
    "decimal_other_notation": lambda rng: rng.choice(
        ["1e3", "0x10", "0o7", "1.0", "NaN", "inf", "1/2", "\u00bd"]
    ),
}


def _any_decimal(rng: random.Random) -> str:
    return rng.choice(list(DECIMAL_FAMILIES.values()))(rng)


# ----- base64 --------------------------------------------------------------------------


def _encode(raw: bytes, rng: random.Random) -> str:
    """``raw`` in base64: either alphabet, padded or not, sometimes truncated or with
    a stray character or a space."""
    coded = (base64.urlsafe_b64encode if rng.random() < 0.5 else base64.b64encode)(raw).decode()
    if rng.random() < 0.5:
        coded = coded.rstrip("=")
    how = rng.randrange(5)
    if how == 0 and len(coded) > 1:
        return coded[: rng.randrange(1, len(coded))]
    if how == 1:
        return coded + "="
    if how == 2:
        return coded[:4] + " " + coded[4:]
    return coded


def _minted(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _base64_bytes(rng: random.Random) -> str:
    raw = rng.choice(
        [
            rng.randbytes(rng.randrange(25)),
            b"\x00" * rng.randrange(1, 25),
            str(rng.choice(PAST_64_BITS)).encode(),
            b"\xff\xfe\xfd",
        ]
    )
    return _encode(raw, rng)


def _position_families(known: Known) -> dict[str, Family]:
    """Positions (a time, ":", a game's id, in the minted encoding) with one part
    crafted each: the time, the id, the separator; and a valid one encoded otherwise."""
    game = _pick(known.game_ids, "0" * 32)

    def time_just_past_calendar(rng: random.Random) -> str:
        return _minted(f"{rng.choice(JUST_PAST_CALENDAR)}:{game(rng)}".encode())

    def time_far_from_calendar(rng: random.Random) -> str:
        return _minted(f"{rng.choice(FAR_FROM_CALENDAR)}:{game(rng)}".encode())

    def time_form(rng: random.Random) -> str:
        form = rng.choice([_decorated, _other_script, _negative])
        return _minted(f"{form(rng)}:{game(rng)}".encode())

    def nul_in_id(rng: random.Random) -> str:
        gid = game(rng)
        nul_id = rng.choice([gid[:31] + "\x00", "\x00" * 32, "\x00", gid[:10] + "\x00" + gid[11:]])
        return _minted(f"1:{nul_id}".encode())

    def id_form(rng: random.Random) -> str:
        gid = game(rng)
        other = rng.choice([gid.upper(), gid * 2, gid[:-1], "", "é" * 16, f"{gid[:8]}-{gid[8:]}"])
        return _minted(f"1:{other}".encode())

    def separator(rng: random.Random) -> str:
        sep = rng.choice([b";", b"::", b"", b":\x00:", b"\xff", b" : "])
        return _minted(b"1" + sep + game(rng).encode())

    def encoding(rng: random.Random) -> str:
        return _encode(f"1:{game(rng)}".encode(), rng)

    return {
        "position_time_just_past_calendar": time_just_past_calendar,
        "position_time_far_from_calendar": time_far_from_calendar,
        "position_time_form": time_form,
        "position_nul_in_id": nul_in_id,
        "position_id_form": id_form,
        "position_separator": separator,
        "position_encoding": encoding,
    }


# ----- the shapes' families ------------------------------------------------------------


def _page_token_families(known: Known, limit: int) -> dict[str, Family]:
    minted = [t for t in known.minted if not limit or len(t) <= limit]
    pick = _pick(minted, "1")

    def edited(rng: random.Random) -> str:
        token = pick(rng)
        return rng.choice(
            [token[:-1], token[:-1] + ("B" if token[-1] == "A" else "A"), token + "0", token * 2]
        )

    out: dict[str, Family] = {
        **DECIMAL_FAMILIES,
        "base64_bytes": _base64_bytes,
        "minted_by_another_call_app_or_filter": pick,
        "minted_then_edited": edited,
    }
    if not limit or limit >= 72:  # a position's token is 68 characters
        out.update(_position_families(known))
    return out


def _object_id_families(known: Known) -> dict[str, Family]:
    own = _pick(known.own_ids, "0" * 32)

    def edited(rng: random.Random) -> str:
        i = own(rng)
        return rng.choice(
            [
                i.upper(),
                f" {i}",
                f"{i} ",
                i[:-1],
                i + "0",
                i * 2,
                f"{i[:8]}-{i[8:12]}-{i[12:16]}-{i[16:20]}-{i[20:]}",
                _in_script(i, 0xFF10),
            ]
        )

    return {
        "other_apps": _pick(known.other_ids, "0" * 32),
        "own_of_another_kind": own,
        "own_edited": edited,  # case, spaces, length, dashes, fullwidth digits
        "decimal": _any_decimal,
        "base64_bytes": _base64_bytes,
    }


def _request_id_families(known: Known) -> dict[str, Family]:
    used = _pick(known.used_request_ids, "r")
    return {
        "used_elsewhere": used,
        "used_then_edited": lambda rng: rng.choice([used(rng) + " ", used(rng).upper()]),
        "blank": lambda rng: rng.choice([" ", "  ", "\u00a0", "-", "0"]),
        "decimal": _any_decimal,
        "base64_bytes": _base64_bytes,
    }


SCHEMES = ["http", "https", "HTTP", "hTTps"]
OTHER_SCHEMES = ["ftp", "file", "gopher", "ws", "wss", "javascript", "data", "mailto", "unix", ""]
# Loopback, private, link-local, reserved and unresolvable addresses only: the
# fuzz server delivers no webhook, and a URL here must reach nothing if one did.
HOSTS = [
    "127.0.0.1",
    "localhost",
    "localhost.",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "[::]",
    "0.0.0.0",
    "0",
    "2130706433",  # 127.0.0.1 as one number
    "0x7f000001",
    "017700000001",
    "127.1",
    "169.254.169.254",
    "10.0.0.1",
    "192.168.0.1",
    "100.64.0.1",
    "[fe80::1%25eth0]",
    "[fe80::1",
    "256.256.256.256",
    "example.invalid",
    "xn--nxasmq6b.invalid",
    "ex ample.invalid",
    "\u043f\u0440\u0438\u043c\u0435\u0440.invalid",
    "a" * 64 + ".invalid",
    "user:pw@example.invalid",
    "example.invalid@127.0.0.1",
    "",
]
ADDRESSES = [
    "::1",
    "[::1]:80",
    "::ffff:127.0.0.1",
    "fe80::1%eth0",
    "2130706433",
    "0x7f.1",
    "1.2.3.4, 5.6.7.8",
    "unix:/tmp/s",
    "256.1.1.1",
    " 10.0.0.1",
    "127.0.0.1:80",
]
PORTS = ["", ":", ":0", ":1", ":65535", ":65536", ":-1", ":99999999999999999999", ":http"]
PATHS = ["", "/", "/hook", "/%00", "/../../etc/passwd", "/?q=1#f", "/" + "x" * 300, "\\hook"]


def _url(rng: random.Random, schemes: Sequence[str], ports: Sequence[str]) -> str:
    return f"{rng.choice(schemes)}://{rng.choice(HOSTS)}{rng.choice(ports)}{rng.choice(PATHS)}"


URL_FAMILIES: dict[str, Family] = {
    "http_any_address": lambda rng: _url(rng, SCHEMES, [""]),
    "http_any_port": lambda rng: _url(rng, SCHEMES, PORTS),
    "other_scheme": lambda rng: _url(rng, OTHER_SCHEMES, PORTS),
    "malformed": lambda rng: (
        rng.choice(["//", "http:", "https:/", "http:/"]) + rng.choice(HOSTS) + rng.choice(PATHS)
    ),
}


def _secret_families(known: Known) -> dict[str, Family]:
    secret = _pick(known.secrets, "tr_x")
    prefixes = ["tp_", "ts_", "tr_", "ti_", "tk_", "whsec_", ""]
    return {
        "another_apps_or_kinds": secret,
        "whitespace": lambda rng: f" {secret(rng)} ",
        "truncated": lambda rng: secret(rng)[: len(secret(rng)) // 2],
        "prefix_swapped": lambda rng: rng.choice(prefixes) + secret(rng)[3:],
        "prefix_only": lambda rng: rng.choice(prefixes),
        "base64_bytes": _base64_bytes,
    }


def _player_id_families(known: Known) -> dict[str, Family]:
    return {
        "other_apps": _pick(known.other_players, "b0"),
        "reserved_prefix": lambda rng: rng.choice(
            ["device:", "guest:", "device:abc", "guest:" + "0" * 32, "DEVICE:x"]
        ),
        "near_duplicate": lambda rng: rng.choice(["p0 ", " p0", "P0", "Ze\u0301", "Z\u00e9"]),
        "decimal": _any_decimal,
    }


def families(
    shape: str, known: Known, limit: int, deck: str, names: Sequence[str]
) -> dict[str, Family]:
    """The families of values of ``shape`` for a field of at most ``limit``
    characters (0: no limit); none for free text."""
    cards = deck.split()
    name = _pick(list(names), "tranca-000")
    builders: dict[str, Callable[[], dict[str, Family]]] = {
        "page_token": lambda: _page_token_families(known, limit),
        "numeric_id": lambda: {
            **DECIMAL_FAMILIES,
            "own": _pick(known.own_deliveries, "1"),
            "other_apps": _pick(known.other_deliveries, "1"),
            "base64_bytes": _base64_bytes,
        },
        "object_id": lambda: _object_id_families(known),
        "request_id": lambda: _request_id_families(known),
        "url": lambda: URL_FAMILIES,
        "origin": lambda: {
            "url_shaped": lambda rng: rng.choice(list(URL_FAMILIES.values()))(rng),
            "special": lambda rng: rng.choice(["*", "null", "https://*.a.invalid", "HTTPS://A"]),
        },
        "secret_token": lambda: _secret_families(known),
        "device_id": lambda: {
            "length_edge": lambda rng: "d" * rng.randrange(14, 19),
            "padded": lambda rng: "    " + "d" * rng.randrange(14, 19) + "    ",
            "unusual_chars": lambda rng: rng.choice(["\u00a0" * 20, "é" * 16, "\U0001f0a1" * 16]),
            "decimal": _any_decimal,
        },
        "player_id": lambda: _player_id_families(known),
        "jwt": lambda: JWT_FAMILIES,
        "public_key": lambda: PUBLIC_KEY_FAMILIES,
        "entrant": lambda: {
            "near": lambda rng: rng.choice(["e0", "e9", "E0", " e0", "e0 ", "e\u0660"]),
            "decimal": _any_decimal,
        },
        "seed_text": lambda: {
            "hex": lambda rng: "ab" * rng.randrange(1, 65),
            "utf8_bytes_edge": lambda rng: "é" * rng.choice([85, 86, 128, 129]),
            "base64_bytes": _base64_bytes,
            "decimal": _any_decimal,
        },
        "address": lambda: {"form": lambda rng: rng.choice(ADDRESSES)},
        "card": lambda: {
            "notation": lambda rng: rng.choice(
                ["10H", "TH", "th", "1S", "jk", "JKR", "XX", "AH ", "A\u2665", "\uff15H", "AHAH"]
            )
        },
        "deck_text": lambda: {
            "edited": lambda rng: rng.choice(
                [
                    " ".join(cards[1:]),
                    " ".join([cards[0], *cards]),
                    ",".join(cards),
                    deck.lower(),
                    "\u00a0".join(cards),
                ]
            )
        },
        "move_text": lambda: {
            "meld_reference": lambda rng: f"add @{_any_decimal(rng)} 3C",
            "notation": lambda rng: rng.choice(
                ["DRAW", "discard", "discard 3C 3C", "take @", "take @-1", "meld 3C 3D", "@1"]
            ),
        },
        "name": lambda: {
            "case_or_space": lambda rng: rng.choice([name(rng).upper(), f" {name(rng)} "]),
            "look_alike": lambda rng: rng.choice(
                [name(rng).replace("a", "\u0430", 1), name(rng) + ".x", "__class__", "-1"]
            ),
        },
    }
    return {} if shape == "text" else builders[shape]()


# A field whose name means different things in different messages, by its message:
# looked up before the name alone (``shape_of``).
SHAPE_OF_FIELD: dict[str, str] = {
    "ChatRoom.id": "object_id",  # a game's id for a table's rooms (else a name or a player)
    "AchievementDefinition.id": "name",  # an app's achievement's id, checked
}
SHAPES = frozenset(SHAPE_OF.values()) | frozenset(SHAPE_OF_FIELD.values())


def shape_of(field: Any) -> str | None:
    """The shape the server reads a string field as: by its message and name first,
    then by its name (None: not classified)."""
    qualified = f"{field.containing_type.name}.{field.name}"
    return SHAPE_OF_FIELD.get(qualified) or SHAPE_OF.get(field.name)


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


# Identity tokens (SignInWithIdentity): compact JWS the server reads header first.
JWT_HEADERS = [
    b'{"alg":"none"}', b'{"alg":123}', b'{"alg":"RS256","kid":[1]}', b"[]", b"null",
    b'{"alg":"RS256","kid":"' + b"k" * 300 + b'"}', b"\xff\xfe", b'{"alg":"HS256"}',
    b'{"alg":"RS256","crit":["exp"]}', b'{"alg":"RS256","b64":false}',
]  # fmt: skip
JWT_FAMILIES: dict[str, Family] = {
    "dots": lambda rng: rng.choice(["", ".", "..", "a.b", "a.b.c", "a.b.c.d", "...."]),
    "base64_parts": lambda rng: ".".join(
        _b64url(rng.randbytes(rng.randrange(40))) for _ in range(3)
    ),
    "odd_header": lambda rng: f"{_b64url(rng.choice(JWT_HEADERS))}.e30.{_b64url(b'sig')}",
    "odd_claims": lambda rng: ".".join(
        [
            _b64url(b'{"alg":"RS256","kid":"k"}'),
            _b64url(rng.choice([b'{"exp":"soon"}', b'{"iat":1e400}', b"[1]", b'{"sub":{}}'])),
            "AAAA",
        ]
    ),
    "decimal": _any_decimal,
}
# A custom token key's public key: JWK JSON or PEM, of every wrong kind.
PUBLIC_KEY_FAMILIES: dict[str, Family] = {
    "jwk_json": lambda rng: rng.choice(
        [
            "{}",
            "[]",
            "{",
            '{"kty":"OKP"}',
            '{"kty":"OKP","crv":"Ed25519","x":123}',
            '{"kty":"OKP","crv":"Ed25519","x":"AAAA"}',
            '{"kty":"RSA","n":"AQAB","e":"AQAB"}',
            '{"kty":"EC","crv":"P-256","x":"","y":""}',
            '{"kty":"oct","k":"c2VjcmV0"}',
            '{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",'
            '"d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}',
        ]
    ),
    "pem": lambda rng: rng.choice(
        [
            "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----",
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
            "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----",
        ]
    ),
    "decimal": _any_decimal,
}
