#!/usr/bin/env python3
"""Check a Tranca deal that the server revealed. Standard library only: copy this file
anywhere with Python 3.8 or later and run it.

Before the deal the server published a commitment, SHA-256(server_seed) in hex.
After the deal it revealed server_seed (32 bytes, hex) and the entropy strings that
players or the organiser added. This script

* checks that SHA-256(server_seed) is the commitment;
* recomputes the deal's seed: SHA-256(server_seed || every entropy string, sorted
  by its UTF-8 bytes, each as a 4-byte big-endian length then its bytes), whose
  first 8 bytes, big-endian, shifted right by one bit, make a 63-bit integer;
* rebuilds the deck: two 52-card decks (clubs, diamonds, hearts, spades, each ace
  to king, then the same again) plus four jokers for the 108-card presets,
  shuffled by Python's ``random.Random(seed).shuffle``; the first card is dealt first;
* prints that deck in card notation (rank A 2-9 T J Q K then suit C D H S; JK
  a joker) and, given the deck the table was dealt, compares the two.

Examples::

    python3 verify_deal.py --commitment 3f2a... --server-seed 9c41... \\
        --entropy "alice: 1234" --entropy "bob: hello" --deck-size 104
    python3 verify_deal.py --reveal reveal.json

The reveal file holds the fields ``commitment``, ``server_seed``, ``entropy`` (a
list), ``deck_size`` and optionally ``seed`` and ``deck``; flags given on the
command line override them. Exit status: 0 verified, 1 not verified, 2 bad input.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import random
import sys

SUIT_LETTERS = "CDHS"
RANK_LETTERS = "A23456789TJQK"
JOKER = 64  # a card is suit * 16 + rank (1 = ace .. 13 = king); 64 is a joker


def card_text(card: int) -> str:
    if card == JOKER:
        return "JK"
    return RANK_LETTERS[(card & 15) - 1] + SUIT_LETTERS[card >> 4]


def parse_card(text: str) -> int:
    t = text.strip().upper()
    if t == "JK":
        return JOKER
    if t.startswith("10") and len(t) == 3:
        t = "T" + t[2]
    if len(t) != 2 or t[0] not in RANK_LETTERS or t[1] not in SUIT_LETTERS:
        raise ValueError(f"not a card: {text!r}")
    return SUIT_LETTERS.index(t[1]) * 16 + RANK_LETTERS.index(t[0]) + 1


def parse_cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.replace(",", " ").split()]


def full_deck(size: int) -> list[int]:
    deck = [suit * 16 + rank for suit in range(4) for rank in range(1, 14)] * 2
    if size == 108:
        deck += [JOKER] * 4
    return deck


def deal_seed(server_seed: bytes, entropy: list[str]) -> int:
    h = hashlib.sha256(server_seed)
    for item in sorted(e.encode("utf-8") for e in entropy):
        h.update(len(item).to_bytes(4, "big"))
        h.update(item)
    return int.from_bytes(h.digest()[:8], "big") >> 1


def deck_of(seed: int, size: int) -> list[int]:
    deck = full_deck(size)
    random.Random(seed).shuffle(deck)
    return deck


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check a revealed Tranca deal.")
    parser.add_argument("--reveal", help="a JSON file of the reveal ('-' for standard input)")
    parser.add_argument("--commitment", help="the published SHA-256 of the server seed (hex)")
    parser.add_argument("--server-seed", help="the revealed server seed (hex)")
    parser.add_argument(
        "--entropy", action="append", help="an entropy contribution (repeat for each one)"
    )
    parser.add_argument("--deck-size", type=int, choices=(104, 108))
    parser.add_argument("--deck", help="the deck the table was dealt, to compare")
    parser.add_argument("--seed", type=int, help="the seed the server announced, to compare")
    args = parser.parse_args(argv)

    record: dict[str, object] = {}
    if args.reveal:
        try:
            if args.reveal == "-":
                record = json.load(sys.stdin)
            else:
                with open(args.reveal, encoding="utf-8") as f:
                    record = json.load(f)
        except (OSError, ValueError) as exc:
            parser.error(f"cannot read the reveal: {exc}")
        if not isinstance(record, dict):
            parser.error("the reveal must be a JSON object")

    def pick(flag: object, key: str) -> object:
        return flag if flag is not None else record.get(key)

    commitment = pick(args.commitment, "commitment")
    server_seed_hex = pick(args.server_seed, "server_seed")
    entropy = pick(args.entropy, "entropy") or []
    size = pick(args.deck_size, "deck_size")
    given_deck = pick(args.deck, "deck")
    given_seed = pick(args.seed, "seed")
    if not isinstance(commitment, str) or not isinstance(server_seed_hex, str):
        parser.error("the commitment and the server seed are needed")
    if size not in (104, 108):
        parser.error("the deck size is 104 or 108")
    if not isinstance(entropy, list) or not all(isinstance(e, str) for e in entropy):
        parser.error("the entropy is a list of strings")
    try:
        server_seed = bytes.fromhex(server_seed_hex.strip())
    except ValueError:
        parser.error("the server seed must be hexadecimal")
    given: list[int] | None = None
    if given_deck is not None:
        try:
            given = parse_cards(
                " ".join(given_deck) if isinstance(given_deck, list) else str(given_deck)
            )
        except ValueError as exc:
            parser.error(str(exc))

    assert isinstance(size, int)
    seed = deal_seed(server_seed, entropy)
    deck = deck_of(seed, size)
    committed = hmac.compare_digest(
        hashlib.sha256(server_seed).hexdigest().encode(), commitment.strip().lower().encode()
    )
    verified = committed
    print(f"seed: {seed}")
    print(f"deck ({size} cards, first dealt first): {' '.join(map(card_text, deck))}")
    print("commitment:", "matches the server seed" if committed else "DOES NOT MATCH")
    if given_seed is not None:
        same = given_seed == seed
        verified = verified and same
        print("announced seed:", "matches" if same else f"DIFFERS ({given_seed})")
    if given is not None:
        if given == deck:
            print("dealt deck: matches")
        else:
            verified = False
            short = min(len(given), len(deck))
            diff = next((i for i in range(short) if given[i] != deck[i]), None)
            if diff is None:
                why = f"{len(given)} cards given, {len(deck)} expected"
            else:
                why = (
                    f"card {diff + 1} is {card_text(given[diff])}, expected {card_text(deck[diff])}"
                )
            print(f"dealt deck: DIFFERS ({why})")
    print("VERIFIED" if verified else "NOT VERIFIED")
    return 0 if verified else 1


if __name__ == "__main__":
    sys.exit(main())
