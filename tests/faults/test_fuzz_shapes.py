"""Every parsed string field of every request, given values of the shape the server
reads it as (``shapes.py``): a sweep that tries, for each field of each RPC, every
family of its shape in turn, in an otherwise plausible request, on SQLite and
PostgreSQL.

The oracle is the contract fuzzer's (``contract_world.problems``): never UNKNOWN,
INTERNAL or a hang; a refusal changes no game; a call without app B's key changes
none of app B's objects and answers no id of them. Every problem of the sweep is
collected, then reported together with the example that met it.

``TRANCA_CONTRACT_FUZZ_EXAMPLES`` sets the size as for the contract fuzzer: one
sweep (every field, every family) per 300 examples, at least one; the values
within a family are drawn from a seed printed with the figures
(``TRANCA_SHAPE_SEED`` replays one).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message

from tranca.v1 import (
    admin_pb2,
    chat_pb2,
    game_pb2,
    invitations_pb2,
    notifications_pb2,
    platform_pb2,
    quick_play_pb2,
    session_pb2,
    social_pb2,
)

from .contract_world import (
    World,
    credentials,
    pools,
    problems,
    send,
    shape_families,
    snapshot,
)
from .shapes import PARSED_NAME, SHAPES, Known, families, shape_of

EXAMPLES = int(os.environ.get("TRANCA_CONTRACT_FUZZ_EXAMPLES", "300"))
SWEEPS = max(1, EXAMPLES // 300)
SEED = int(os.environ.get("TRANCA_SHAPE_SEED", str(random.randrange(2**32))))
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
# Who calls: a seat's token where the call is a seat's, no credentials where the
# call signs in, the app's key otherwise.
SEAT_CALLS = {
    "ListLegalMoves",
    "SubmitMove",
    "SubmitTurn",
    "LeaveGame",
    "Heartbeat",
    "VoteAnnul",
    "AddEntropy",
    "UpdateTableOptions",
    "ConsentToOptions",
    "ReclaimSeat",
    "SetAutomatic",
}
SESSION_CALLS = {"JoinParty", "SignOut"}
NO_CREDENTIALS = {"SignInDevice", "SignInGuest", "RefreshSession"}


def _string_fields(d: Descriptor, depth: int = 0) -> Iterator[tuple[FieldDescriptor, ...]]:
    """The paths to every string field a request may hold (through its messages, map
    entries included)."""
    if depth > 4:
        return
    for f in d.fields:
        if f.type == FieldDescriptor.TYPE_STRING:
            yield (f,)
        elif f.message_type is not None:
            for rest in _string_fields(f.message_type, depth + 1):
                yield (f, *rest)


def test_every_parsed_string_field_has_a_shape() -> None:
    """A new string field in a request must be classified in shapes.SHAPE_OF; one
    whose name says the server parses it (an id, a token, a URL, a code, an
    address...) may not be classified as free text; every shape has its values."""
    unclassified, parsed_as_text = set(), set()
    for method in METHODS:
        for path in _string_fields(method.input_type):
            leaf = path[-1]
            where = f"{method.name}: {'.'.join(f.name for f in path)}"
            shape = shape_of(leaf)
            if shape is None:
                unclassified.add(where)
            elif shape == "text" and PARSED_NAME.search(leaf.name):
                parsed_as_text.add(where)
    assert not unclassified, f"string fields with no shape in shapes.SHAPE_OF: {unclassified}"
    assert not parsed_as_text, f"parsed fields classified as free text: {parsed_as_text}"
    assert PARSED_NAME.search("page_token") and PARSED_NAME.search("delivery_id")
    assert not PARSED_NAME.search("display_name")
    for shape in SHAPES:
        made = families(shape, Known(), 0, "AH 2H", ["tranca-000"])
        assert bool(made) == (shape != "text"), f"shape {shape} has families {sorted(made)}"
        for name, family in made.items():
            value = family(random.Random(0))
            assert isinstance(value, str), f"{shape}:{name} made {value!r}"


# ----- the sweep -------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    method: MethodDescriptor
    path: tuple[FieldDescriptor, ...]
    family: str

    @property
    def shape(self) -> str:
        shape = shape_of(self.path[-1])
        assert shape is not None
        return shape

    def __str__(self) -> str:
        where = ".".join(f.name for f in self.path)
        return f"{self.method.name}.{where} <- {self.shape}:{self.family}"


def _targets(w: World) -> list[Target]:
    """Every family of every parsed string field of every request (map entries'
    keys and values aside: the knobs have their own strategies in the fuzzer)."""
    out = []
    for method in METHODS:
        for path in _string_fields(method.input_type):
            if any(
                f.message_type is not None and f.message_type.GetOptions().map_entry
                for f in path[:-1]
            ):
                continue
            for family in sorted(shape_families(w, path[-1])):
                out.append(Target(method, path, family))
    return out


def _plausible(
    w: World, d: Descriptor, rng: random.Random, depth: int = 0, index: int = 0
) -> Message:
    """A request that makes sense in this world, so that the one crafted field is
    what the server meets: each field the first of the fuzzer's pool for it (game A,
    its tournament, a player of A, a fresh request id...), repeated messages three
    times (the next value of the pool each), a random member of each oneof, other
    strings left empty and other numbers 0."""
    out = message_factory.GetMessageClass(d)()
    if depth > 3:
        return out
    chosen = {o.name: rng.choice(o.fields) for o in d.oneofs}
    for f in d.fields:
        oneof = f.containing_oneof
        if oneof is not None and chosen.get(oneof.name) is not f:
            continue
        if f.message_type is not None:
            if f.message_type.GetOptions().map_entry:
                continue
            if f.is_repeated:
                for n in range(3):
                    item = getattr(out, f.name).add()
                    item.CopyFrom(_plausible(w, f.message_type, rng, depth + 1, n))
            else:
                getattr(out, f.name).CopyFrom(_plausible(w, f.message_type, rng, depth + 1))
            continue
        value = _scalar(w, f, index)
        if value is None:
            continue
        if f.is_repeated:
            getattr(out, f.name).append(value)
        else:
            setattr(out, f.name, value)
    return out


def _scalar(w: World, f: FieldDescriptor, index: int) -> Any:
    pool = pools(w, f)
    if pool:
        return pool[index % len(pool)]
    if f.type == FieldDescriptor.TYPE_ENUM:
        assert f.enum_type is not None
        known = [v.number for v in f.enum_type.values]
        return known[min(1, len(known) - 1)]  # the first after UNSPECIFIED
    return None


def _set(request: Message, path: tuple[FieldDescriptor, ...], value: str) -> None:
    holder = request
    for f in path[:-1]:
        if f.is_repeated:
            items = getattr(holder, f.name)
            holder = items[0] if len(items) else items.add()
        else:
            holder = getattr(holder, f.name)
    leaf = path[-1]
    if leaf.is_repeated:
        items = getattr(holder, leaf.name)
        del items[:]
        items.append(value)
    else:
        setattr(holder, leaf.name, value)


def _who(method: MethodDescriptor) -> str:
    if method.name in SEAT_CALLS:
        return "turn"
    if method.name in SESSION_CALLS:
        return "session"
    return "none" if method.name in NO_CREDENTIALS else "app_a"


def test_every_family_of_every_parsed_field_is_answered_or_refused_properly(
    world: World,
) -> None:
    w = world
    rng = random.Random(SEED)
    targets = _targets(w)
    found: list[str] = []
    example = 0
    # Only the sweep's calls change the world between two cases: each case's "after"
    # is the next one's "before".
    before = snapshot(w)
    for _ in range(SWEEPS):
        for target in targets:
            example += 1
            families = shape_families(w, target.path[-1])
            value = families[target.family](rng)
            request = _plausible(w, target.method.input_type, rng)
            _set(request, target.path, value)
            who = _who(target.method)
            md = credentials(w, who)
            answer = send(w, target.method, request.SerializeToString(), md, wait=0.5)
            w.stats["sweep:cases"] += 1
            w.stats[f"sweep:{target.shape}"] += 1
            w.stats[f"sweep:{target.shape}:{'OK' if answer.code.name == 'OK' else 'refused'}"] += 1
            wrong, before = problems(w, target.method, who, answer, before)
            for problem in wrong:
                w.stats[f"sweep:{target.shape}:improper"] += 1
                found.append(f"#{example} {target} = {value!r}: {problem}")
            if before.games[w.game_a][1] == "finished":
                w.new_game_a()  # a leave, an annulment or an end
                before = snapshot(w)
    print(f"\nshape sweep: {len(targets)} fields x families, {SWEEPS} sweep(s), seed {SEED}")
    assert not found, f"{len(found)} problems (seed {SEED}):\n" + "\n".join(found[:40])
