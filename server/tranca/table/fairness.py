"""Verifiable deals by commit and reveal. Pure: no I/O (``new_server_seed`` asks the
operating system for random bytes, nothing else).

1. Before the deal the server draws a secret 32-byte ``server_seed`` and publishes
   its commitment ``SHA-256(server_seed)`` (hex).
2. Players or the organiser may add entropy strings (any text, UTF-8) while the deal
   is open; none can be added once it is dealt.
3. The deal's seed is::

       digest = SHA-256(server_seed
                        || for each contribution, sorted by its UTF-8 bytes:
                           len(bytes) as 4 bytes big-endian || bytes)
       seed   = first 8 bytes of digest, big-endian, shifted right by one (63 bits)

   and the deck order is ``shuffled_deck(jokers, seed)`` (the first card dealt
   first); the game gets it as its fixed deck. Sorting makes the seed independent
   of the order contributions arrived in; the length prefixes keep contributions
   from running into each other ("ab" + "c" is not "a" + "bc").
4. After the deal the server reveals ``server_seed``. Anyone can then check it
   against the commitment, recompute the seed and the deck, and compare with the
   cards that were played: ``verify`` here, or the standalone
   ``clients/verify_deal.py``, which needs nothing but Python.

The server cannot choose a deck after seeing the entropy (it is bound by the
commitment), and no contributor can steer it without knowing the server's seed.

A table of several deals (``TableOptions.verifiable``) keeps one secret
(``new_server_secret``) and takes every deal's server seed from a hash chain:

    seed[N]     = HMAC-SHA256(secret, "tranca deal chain")      (N = CHAINED_DEALS)
    seed[k]     = SHA-256(seed[k + 1])                           (k = N-1 .. 1)
    commitment  = SHA-256(seed[k]), so commitment[k + 1] == seed[k]

Deal k is shuffled from ``derive_seed(seed[k], entropy)``. Deal 1's commitment is
published when the table is created, before any entropy; every later deal's
commitment is the previous deal's revealed seed, so the whole chain is bound by that
first commitment: the server cannot pick deal 2's deck after seeing the entropy
either. Revealing seed[k] reveals the seeds of the deals before k (already revealed)
and nothing of the deals after it (that would invert SHA-256). Deals beyond the
chain (a match of more than N deals, which no point limit in use reaches) take
HMAC-SHA256(secret, "deal:k"): each is still committed before it is dealt, but not
before the entropy.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tranca_rules.cards import cards_text, parse_cards, shuffled_deck

SERVER_SEED_BYTES = 32
MAX_CONTRIBUTION_BYTES = 256
MAX_CONTRIBUTIONS = 64


def new_server_seed() -> bytes:
    return secrets.token_bytes(SERVER_SEED_BYTES)


def new_server_secret() -> str:
    """A verifiable table's secret (hex), from which each deal's server seed is derived."""
    return secrets.token_hex(SERVER_SEED_BYTES)


# Deals per verifiable table bound by the first commitment (see the module's doc).
CHAINED_DEALS = 1024
_CHAIN_LABEL = b"tranca deal chain"


def deal_server_seed(secret_hex: str, deal_number: int) -> bytes:
    """The server seed of deal ``deal_number`` (from 1) at a table with this secret."""
    if deal_number < 1:
        raise ValueError("deals are numbered from 1")
    return _chained_seed(secret_hex.lower(), deal_number)


@functools.lru_cache(maxsize=4096)
def _chained_seed(secret_hex: str, deal_number: int) -> bytes:
    # Cached: a view of a verifiable table asks for its deal's commitment every time,
    # and walking the chain down from its far end costs up to CHAINED_DEALS hashes.
    secret = bytes.fromhex(secret_hex)
    if deal_number > CHAINED_DEALS:
        return hmac.new(secret, b"deal:%d" % deal_number, hashlib.sha256).digest()
    seed = hmac.new(secret, _CHAIN_LABEL, hashlib.sha256).digest()
    for _ in range(CHAINED_DEALS - deal_number):
        seed = hashlib.sha256(seed).digest()
    return seed


def deal_commitment(secret_hex: str, deal_number: int) -> str:
    """The published commitment of deal ``deal_number``."""
    return commitment(deal_server_seed(secret_hex, deal_number))


def deal_deck(secret_hex: str, deal_number: int, entropy: Iterable[str], jokers: bool) -> list[int]:
    """Deal ``deal_number``'s deck order (first card dealt first)."""
    return shuffled_deck(jokers, derive_seed(deal_server_seed(secret_hex, deal_number), entropy))


def deal_reveal(secret_hex: str, deal_number: int, entropy: Iterable[str], jokers: bool) -> Reveal:
    """What proves deal ``deal_number`` fair: publish it only once the deal is over."""
    return _reveal(deal_server_seed(secret_hex, deal_number), entropy, jokers)


def _reveal(server_seed: bytes, entropy: Iterable[str], jokers: bool) -> Reveal:
    contributions = tuple(entropy)
    seed = derive_seed(server_seed, contributions)
    return Reveal(
        commitment(server_seed),
        server_seed.hex(),
        contributions,
        deck_size(jokers),
        seed,
        cards_text(shuffled_deck(jokers, seed)),
    )


def commitment(server_seed: bytes) -> str:
    """The published commitment: SHA-256 of the server seed, in hex."""
    _check_server_seed(server_seed)
    return hashlib.sha256(server_seed).hexdigest()


def derive_seed(server_seed: bytes, entropy: Iterable[str]) -> int:
    """The deal's 63-bit seed from the server seed and the entropy contributions."""
    _check_server_seed(server_seed)
    return _seed_of(server_seed, entropy)


def _seed_of(server_seed: bytes, entropy: Iterable[str]) -> int:
    h = hashlib.sha256(server_seed)
    for item in sorted(e.encode("utf-8") for e in entropy):
        h.update(len(item).to_bytes(4, "big"))
        h.update(item)
    return int.from_bytes(h.digest()[:8], "big") >> 1


def deck_size(jokers: bool) -> int:
    return 108 if jokers else 104


def _check_server_seed(server_seed: bytes) -> None:
    if len(server_seed) != SERVER_SEED_BYTES:
        raise ValueError(f"a server seed is {SERVER_SEED_BYTES} bytes")


@dataclass(frozen=True)
class Reveal:
    """What the server publishes after the deal: enough to check it."""

    commitment: str
    server_seed: str  # hex
    entropy: tuple[str, ...]
    deck_size: int
    seed: int
    deck: str  # card notation, first card dealt first

    def to_dict(self) -> dict[str, Any]:
        return {
            "commitment": self.commitment,
            "server_seed": self.server_seed,
            "entropy": list(self.entropy),
            "deck_size": self.deck_size,
            "seed": self.seed,
            "deck": self.deck,
        }


class VerifiableDeal:
    """The server's side of one deal: commit, collect entropy, deal, reveal."""

    def __init__(self, jokers: bool, server_seed: bytes | None = None) -> None:
        self.jokers = jokers
        self._server_seed = new_server_seed() if server_seed is None else server_seed
        self.commitment = commitment(self._server_seed)
        self.entropy: list[str] = []
        self.seed: int | None = None  # set when dealt
        self.revealed = False

    def add_entropy(self, contribution: str) -> None:
        if self.seed is not None:
            raise ValueError("the deal is dealt: no more entropy")
        if len(contribution.encode("utf-8")) > MAX_CONTRIBUTION_BYTES:
            raise ValueError(f"an entropy contribution is at most {MAX_CONTRIBUTION_BYTES} bytes")
        if len(self.entropy) >= MAX_CONTRIBUTIONS:
            raise ValueError(f"a deal takes at most {MAX_CONTRIBUTIONS} contributions")
        self.entropy.append(contribution)

    def deal(self) -> list[int]:
        """Fix the seed (no more entropy) and give the deck order to deal from."""
        if self.seed is None:
            self.seed = derive_seed(self._server_seed, self.entropy)
        return shuffled_deck(self.jokers, self.seed)

    def reveal(self) -> Reveal:
        """Publish the server seed; call it only once the deal is over."""
        self.deal()  # fixes the entropy, so the reveal's seed is the one dealt from
        self.revealed = True
        return _reveal(self._server_seed, self.entropy, self.jokers)


@dataclass(frozen=True)
class Verification:
    commitment_ok: bool
    seed: int
    deck: list[int]
    deck_matches: bool | None  # None when no deck was given to compare

    @property
    def ok(self) -> bool:
        return self.commitment_ok and self.deck_matches is not False


def verify(
    commitment_hex: str,
    server_seed_hex: str,
    entropy: Iterable[str],
    size: int,
    deck: Sequence[int] | str | None = None,
) -> Verification:
    """Check a revealed deal: the seed against the commitment, and (if given) the deck
    that was dealt against the one the seed and entropy give."""
    if size not in (104, 108):
        raise ValueError("the deck has 104 or 108 cards")
    server_seed = bytes.fromhex(server_seed_hex)
    ok = len(server_seed) == SERVER_SEED_BYTES and secrets.compare_digest(
        hashlib.sha256(server_seed).hexdigest().encode(), commitment_hex.strip().lower().encode()
    )
    seed = _seed_of(server_seed, entropy)
    expected = shuffled_deck(size == 108, seed)
    matches: bool | None = None
    if deck is not None:
        given = parse_cards(deck) if isinstance(deck, str) else list(deck)
        matches = given == expected
    return Verification(ok, seed, expected, matches)
