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
    python3 verify_deal.py --replay-json replay.json --commitment 3f2a...

The reveal file holds the fields ``commitment``, ``server_seed``, ``entropy`` (a
list), ``deck_size`` and optionally ``seed`` and ``deck``; flags given on the
command line override them.

``--replay-json`` reads a whole GetReplay answer turned to JSON (protobuf's JSON
mapping, either field-name style) and checks every deal in it that carries a
``reveal``: its commitment, its seed, and its deck against the deck the replay
shows. At a verifiable table the deals' server seeds form a hash chain (each deal's
commitment is the previous deal's server seed), so it also checks that every deal's
commitment is the server seed revealed for the deal before: then the first deal's
commitment, published before the start, binds every deal. Give that first
commitment, as you saw it before the start, with ``--commitment`` to check it too,
and the strings you added with ``--entropy`` to check they were mixed in.

Exit status: 0 verified, 1 not verified, 2 bad input.
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
DECK_SIZES = (104, 108)  # two 52-card decks, and the same with four jokers


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


def normalised(commitment: str) -> str:
    return commitment.strip().lower()


def commits_to(server_seed: bytes, commitment: str) -> bool:
    """Whether ``commitment`` (hex) is SHA-256 of ``server_seed``."""
    return hmac.compare_digest(
        hashlib.sha256(server_seed).hexdigest().encode(), normalised(commitment).encode()
    )


def is_text_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def load_json(path: str) -> object:
    """JSON from the file ``path``, or from standard input when it is '-'."""
    if path == "-":
        return json.load(sys.stdin)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _field(record: dict[str, object], name: str) -> object:
    """A field of protobuf JSON, under its proto name or its lowerCamelCase name."""
    if name in record:
        return record[name]
    head, *rest = name.split("_")
    return record.get(head + "".join(part.title() for part in rest))


def verify_replay(
    replay: object, first_commitment: str | None = None, own_entropy: list[str] | None = None
) -> tuple[bool, list[str]]:
    """Check every revealed deal of a GetReplay answer (as JSON); the verdict and the
    report's lines. ``own_entropy``: strings the caller added, which every deal must
    have mixed in. Raises ValueError on a malformed replay."""
    if not isinstance(replay, dict):
        raise ValueError("the replay must be a JSON object")
    deals = _field(replay, "deals") or []
    if not isinstance(deals, list):
        raise ValueError("the replay's deals must be a list")
    lines: list[str] = []
    verified = True
    seeds_by_deal: dict[int, bytes] = {}
    commitments_by_deal: dict[int, str] = {}
    for deal in deals:
        if not isinstance(deal, dict):
            raise ValueError("a deal must be a JSON object")
        reveal = _field(deal, "reveal")
        number = int(str(_field(deal, "deal_number") or 0))
        if not isinstance(reveal, dict):
            lines.append(f"deal {number}: no reveal (not a verifiable table?)")
            continue
        server_seed_hex = _field(reveal, "server_seed")
        commitment = _field(reveal, "commitment")
        entropy = _field(reveal, "entropy") or []
        deck_cards = _field(deal, "deck") or []
        if not isinstance(server_seed_hex, str) or not isinstance(commitment, str):
            raise ValueError(f"deal {number}: the reveal needs a commitment and a server seed")
        if not is_text_list(entropy):
            raise ValueError(f"deal {number}: the entropy is a list of strings")
        if not isinstance(deck_cards, list):
            raise ValueError(f"deal {number}: the deck is a list of cards")
        server_seed = bytes.fromhex(server_seed_hex)
        dealt = parse_cards(" ".join(str(c) for c in deck_cards))
        size = len(dealt)
        if size not in DECK_SIZES:
            raise ValueError(f"deal {number}: the replay's deck has {size} cards, not 104 or 108")
        assert isinstance(entropy, list)
        seed = deal_seed(server_seed, entropy)
        committed = commits_to(server_seed, commitment)
        # protobuf's JSON writes a uint64 as a string.
        announced = _field(reveal, "seed")
        same_seed = announced is not None and int(str(announced)) == seed
        same_deck = dealt == deck_of(seed, size)
        missing = [e for e in own_entropy or [] if e not in entropy]
        ok = committed and same_seed and same_deck and not missing
        verified = verified and ok
        lines.append(
            f"deal {number}: commitment {'matches' if committed else 'DOES NOT MATCH'}, "
            f"seed {seed} {'matches' if same_seed else f'DIFFERS ({announced})'}, "
            f"deck {'matches' if same_deck else 'DIFFERS'}"
            + (f", your entropy {missing!r} is MISSING" if missing else "")
        )
        seeds_by_deal[number] = server_seed
        commitments_by_deal[number] = normalised(commitment)
    if not seeds_by_deal:
        raise ValueError("the replay reveals no deal")
    for number in sorted(seeds_by_deal):
        before = seeds_by_deal.get(number - 1)
        if before is None:
            continue
        linked = before.hex() == commitments_by_deal[number]
        verified = verified and linked
        link = "is" if linked else "IS NOT"
        lines.append(f"deal {number}: commitment {link} deal {number - 1}'s server seed")
    if first_commitment is not None:
        if 1 not in commitments_by_deal:
            raise ValueError("the replay does not reveal deal 1")
        same = commitments_by_deal[1] == normalised(first_commitment)
        verified = verified and same
        lines.append(f"deal 1: commitment {'is' if same else 'IS NOT'} the one published")
    return verified, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check a revealed Tranca deal.")
    parser.add_argument("--reveal", help="a JSON file of the reveal ('-' for standard input)")
    parser.add_argument("--commitment", help="the published SHA-256 of the server seed (hex)")
    parser.add_argument("--server-seed", help="the revealed server seed (hex)")
    parser.add_argument(
        "--entropy", action="append", help="an entropy contribution (repeat for each one)"
    )
    parser.add_argument("--deck-size", type=int, choices=DECK_SIZES)
    parser.add_argument("--deck", help="the deck the table was dealt, to compare")
    parser.add_argument("--seed", type=int, help="the seed the server announced, to compare")
    parser.add_argument(
        "--replay-json",
        help="a GetReplay answer as JSON ('-' for standard input): check every revealed deal",
    )
    args = parser.parse_args(argv)

    if args.replay_json:
        try:
            verified, lines = verify_replay(
                load_json(args.replay_json), args.commitment, args.entropy
            )
        except (OSError, ValueError) as exc:
            parser.error(f"cannot check the replay: {exc}")
        for line in lines:
            print(line)
        print("VERIFIED" if verified else "NOT VERIFIED")
        return 0 if verified else 1

    record: object = {}
    if args.reveal:
        try:
            record = load_json(args.reveal)
        except (OSError, ValueError) as exc:
            parser.error(f"cannot read the reveal: {exc}")
        if not isinstance(record, dict):
            parser.error("the reveal must be a JSON object")
    assert isinstance(record, dict)

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
    if size not in DECK_SIZES:
        parser.error("the deck size is 104 or 108")
    if not is_text_list(entropy):
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

    assert isinstance(size, int) and isinstance(entropy, list)
    seed = deal_seed(server_seed, entropy)
    deck = deck_of(seed, size)
    committed = commits_to(server_seed, commitment)
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
