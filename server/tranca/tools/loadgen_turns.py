"""A load generator's bot turn: the moves it plans from its hand and the legal moves
(``plan_turn``), and a move's encoding as the verification compares it
(``move_bytes``)."""

from __future__ import annotations

import random
from collections import Counter

from ..v1 import game_pb2 as pb


def move_bytes(move: pb.Move) -> bytes:
    """A move's encoding without its display text (the server fills that in)."""
    bare = pb.Move()
    bare.CopyFrom(move)
    bare.ClearField("text")
    return bare.SerializeToString(deterministic=True)


def _cards_of(move: pb.Move) -> list[str]:
    which = move.WhichOneof("kind")
    if which == "create_meld":
        return list(move.create_meld.cards)
    if which == "add_to_meld":
        return [move.add_to_meld.card]
    if which == "replace_wild":
        return [move.replace_wild.card]
    if which == "discard":
        return [move.discard.card]
    return []


def plan_turn(rng: random.Random, hand: list[str], legal: list[pb.Move]) -> list[pb.Move]:
    """The rest of a turn chosen from its legal moves after the draw (``--turns``
    sends it in one SubmitTurn; ``--planned`` plays it move by move): a meld or an
    add three times in four while one is left, then a discard, each move with cards
    still in the hand and at most one move on each meld, so that most plans stay
    legal once the moves before them are played."""
    counts = Counter(hand)
    plan: list[pb.Move] = []
    touched: set[int] = set()
    choices = list(legal)
    for _ in range(8):
        usable = []
        for m in choices:
            cards = Counter(_cards_of(m))
            if any(counts[c] < n for c, n in cards.items()):
                continue
            which = m.WhichOneof("kind")
            meld = (
                m.add_to_meld.meld_id
                if which == "add_to_meld"
                else m.replace_wild.meld_id
                if which == "replace_wild"
                else None
            )
            if meld is not None and meld in touched:
                continue
            usable.append(m)
        if not usable:
            break
        discards = [m for m in usable if m.WhichOneof("kind") == "discard"]
        laying = [m for m in usable if m.WhichOneof("kind") != "discard"]
        # Lay down what can be laid most of the time, as a player does, then discard.
        move = rng.choice(laying if laying and (rng.random() < 0.75 or not discards) else discards)
        plan.append(move)
        counts.subtract(_cards_of(move))
        which = move.WhichOneof("kind")
        if which in ("discard", "draw", "take_pile"):
            break
        if which == "add_to_meld":
            touched.add(move.add_to_meld.meld_id)
        elif which == "replace_wild":
            touched.add(move.replace_wild.meld_id)
    return plan or [legal[0]]
