"""A fuzzer over the gRPC API (hypothesis): random and mutated requests, moves out of
turn, cards the caller does not hold or that do not exist, duplicate cards, oversized
messages, stale and future versions, other seats' tokens, other apps' game ids.

Every answer must be a proper gRPC status (never UNKNOWN or INTERNAL), a refused
request must change nothing, and no answer (view, legal moves or error message) may
name a card its reader may not see.

``TRANCA_FUZZ_EXAMPLES`` sets the size (default 150 per database in ``make test``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections import Counter
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.harness.servers import server_config, threaded_server
from tranca.server import Running
from tranca.table.game import rebuild
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc
from tranca_rules.cards import card_text, full_deck, parse_card
from tranca_rules.views import visible_cards

EXAMPLES = int(os.environ.get("TRANCA_FUZZ_EXAMPLES", "150"))
CARD_RE = re.compile(r"\b(?:[A2-9TJQK][CDHS]|JK)\b")
REAL_CARDS = sorted({card_text(c) for c in full_deck(True)})
T = TypeVar("T")
ALLOWED = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.OUT_OF_RANGE,
}


@dataclass
class World:
    loop: asyncio.AbstractEventLoop
    server: Running
    stub: pb_grpc.GameServiceStub
    key_a: str
    key_b: str
    game_a: str
    game_b: str
    tokens_a: list[str]
    tokens_b: list[str]
    stats: Counter[str]

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    def turn(self) -> int:
        g = self.run(self.server.store.game(self.game_a))
        return g.state.deal.turn if g.state.deal is not None else 0

    def snapshot(self, game_id: str) -> tuple[int, dict[str, object]]:
        g = self.run(self.server.store.game(game_id))
        return g.version, g.state.to_dict()


def _new_game(stub: pb_grpc.GameServiceStub, key: str) -> tuple[str, list[str]]:
    app = (("x-api-key", key),)
    gid = stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2, seed=11),
        metadata=app,
    ).game.game_id
    tokens = [
        stub.JoinGame(pb.JoinGameRequest(game_id=gid, seat=s), metadata=app).player_token
        for s in range(2)
    ]
    stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=app)
    return gid, tokens


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def world(request: pytest.FixtureRequest) -> Iterator[World]:
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    with threaded_server(server_config(url)) as threaded:
        loop, server = threaded.loop, threaded.running
        key_a = threaded.run(server.store.create_app("fuzz-a"))[1]
        key_b = threaded.run(server.store.create_app("fuzz-b"))[1]
        with threaded.channel() as channel:
            stub = pb_grpc.GameServiceStub(channel)
            game_a, tokens_a = _new_game(stub, key_a)
            game_b, tokens_b = _new_game(stub, key_b)
            w = World(
                loop, server, stub, key_a, key_b, game_a, game_b, tokens_a, tokens_b, Counter()
            )
            yield w
            print(f"\nfuzz ({request.param}): {dict(w.stats)}")


cards = st.one_of(
    st.sampled_from(REAL_CARDS),
    st.sampled_from(["ZZ", "", "1H", "4X", "10H", "JKK", "ðŸ‚¡", "4h"]),
    st.text(max_size=6),
)
moves = st.one_of(
    st.just(pb.Move()),
    # Oversized: far past the server's 256 KiB limit on a request.
    st.just(pb.Move(create_meld=pb.CreateMeldMove(cards=["4H"] * 120_000))),
    st.builds(lambda: pb.Move(draw=pb.DrawMove())),
    st.builds(
        lambda m, cs: (
            pb.Move(take_pile=pb.TakePileMove(meld_id=m))
            if m is not None
            else pb.Move(take_pile=pb.TakePileMove(cards=cs))
        ),
        st.one_of(st.none(), st.integers(-5, 40)),
        st.lists(cards, max_size=4),
    ),
    st.builds(
        lambda cs: pb.Move(create_meld=pb.CreateMeldMove(cards=cs)),
        st.lists(cards, max_size=6),
    ),
    st.builds(
        lambda m, c: pb.Move(add_to_meld=pb.AddToMeldMove(meld_id=m, card=c)),
        st.integers(-3, 40),
        cards,
    ),
    st.builds(
        lambda m, c: pb.Move(replace_wild=pb.ReplaceWildMove(meld_id=m, card=c)),
        st.integers(-3, 40),
        cards,
    ),
    st.builds(lambda c: pb.Move(discard=pb.DiscardMove(card=c)), cards),
)


@st.composite
def requests(draw: st.DrawFn, w: World) -> tuple[str, object, tuple[tuple[str, str], ...], int]:
    """(rpc, request, metadata, reader seat) with the reader's seat in game A or -1."""
    who = draw(st.sampled_from(["seat0", "seat1"] * 4 + ["b0", "app_a", "app_b", "junk", "none"]))
    md: tuple[tuple[str, str], ...]
    seat = -1
    if who == "seat0":
        md, seat = (("authorization", f"Bearer {w.tokens_a[0]}"),), 0
    elif who == "seat1":
        md, seat = (("authorization", f"Bearer {w.tokens_a[1]}"),), 1
    elif who == "b0":
        md = (("authorization", f"Bearer {w.tokens_b[0]}"),)
    elif who == "app_a":
        md = (("x-api-key", w.key_a),)
    elif who == "app_b":
        md = (("x-api-key", w.key_b),)
    elif who == "junk":
        # Header values are ASCII: anything else is refused by the client library itself.
        junk = draw(st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1))
        md = (("authorization", f"Bearer {junk}"),)
    else:
        md = ()
    game = draw(st.sampled_from([w.game_a] * 6 + [w.game_b, "", "nope", "0" * 32]))
    version = w.snapshot(w.game_a)[0]
    # Every draw is made whatever the game's state, so that generation never depends on
    # it (hypothesis insists); the state only decides which draws are used.
    use_legal = draw(st.integers(0, 2)) == 0
    pick = draw(st.integers(0, 999))
    mutate = draw(st.booleans())
    mutation = draw(cards)
    legal_rid = draw(st.uuids()).hex
    rpc = draw(
        st.sampled_from(
            ["SubmitMove"] * 6 + ["ListLegalMoves", "GetView", "WatchGame", "LeaveGame", "JoinGame"]
        )
    )
    if rpc == "SubmitMove":
        req: object = pb.SubmitMoveRequest(
            game_id=game,
            expected_version=draw(
                st.sampled_from([version, version, version - 1, version + 1, -7, 0])
            ),
            request_id=draw(
                st.one_of(st.uuids().map(str), st.text(max_size=3), st.just("r" * 300))
            ),
            move=draw(moves),
        )
    elif rpc == "ListLegalMoves":
        req = pb.ListLegalMovesRequest(game_id=game)
    elif rpc == "GetView":
        req = pb.GetViewRequest(game_id=game)
    elif rpc == "WatchGame":
        req = pb.WatchGameRequest(game_id=game, from_version=version + draw(st.integers(-6, 3)))
    elif rpc == "LeaveGame":
        # Resigning would end the fuzzed game: only other apps' games and bad ids.
        req = pb.LeaveGameRequest(game_id=draw(st.sampled_from([w.game_b, "", "nope"])))
        if who in ("b0",):
            md = ()
    else:
        req = pb.JoinGameRequest(game_id=game, seat=draw(st.integers(-3, 5)))
    if seat >= 0 and use_legal:
        # A legal move of the seat to act, sent as is or mutated: the game goes on.
        turn_md = (("authorization", f"Bearer {w.tokens_a[w.turn()]}"),)
        legal = list(
            w.stub.ListLegalMoves(
                pb.ListLegalMovesRequest(game_id=w.game_a), metadata=turn_md
            ).moves
        )
        if legal:
            move = pb.Move()
            # Draws must not depend on the game's state: pick by index, modulo the list.
            move.CopyFrom(legal[pick % len(legal)])
            if mutate:
                text = str(move)
                for real in CARD_RE.findall(text)[:1]:
                    move = pb.Move()
                    mutated = text.replace(real, mutation, 1)
                    from google.protobuf import text_format

                    try:
                        text_format.Parse(mutated, move)
                    except text_format.ParseError:
                        move = pb.Move()
            req_ok = pb.SubmitMoveRequest(
                game_id=w.game_a,
                expected_version=version,
                request_id=legal_rid,
                move=move,
            )
            return "SubmitMove", req_ok, turn_md, w.turn()
    return rpc, req, md, seat


def _cards_in(text: str) -> set[str]:
    return set(CARD_RE.findall(text))


def _request_cards(req: object) -> set[str]:
    """The cards a request names itself (as the server reads them: "4h" is the 4H)."""
    out = _cards_in(str(req))
    move = getattr(req, "move", None)
    if move is not None:
        texts = [
            *move.take_pile.cards,
            *move.create_meld.cards,
            move.add_to_meld.card,
            move.replace_wild.card,
            move.discard.card,
        ]
        for text in texts:
            with contextlib.suppress(ValueError):
                out.add(card_text(parse_card(text)))
    return out


def _check_no_leak(
    w: World, reader: int, text: str, req: object, version: int | None = None
) -> None:
    """Every card named in an answer is one the reader may see at the answer's version
    (or named in the request itself)."""
    g = w.run(w.server.store.game(w.game_a))
    state = g.state
    if version is not None and version != g.version:
        setup = w.run(w.server.store.setup_of(w.game_a))
        rows = w.run(w.server.store.log(w.game_a, 0, version))
        state = rebuild(setup, [r.action for r in rows])
    deal = state.deal
    if deal is None:
        return
    allowed = {card_text(c) for c in visible_cards(deal, reader)} | _request_cards(req)
    board = state.deal_board()
    if board is not None:  # a deal that is over: every card of it but the stock's
        ended = board[1]
        allowed |= {card_text(c) for c in ended.pile}
        allowed |= {card_text(c) for hand in ended.hands for c in hand}
        allowed |= {card_text(c) for m in ended.melds for c in m.cards}
        allowed |= {card_text(c) for r in ended.red_threes for c in r}
        allowed |= {card_text(c) for m in ended.mortos if m is not None for c in m}
    leaked = _cards_in(text) - allowed
    assert not leaked, f"reader {reader} was told of {leaked}"


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    # The game moves on between examples (the fuzzer plays legal moves too), so cases are
    # not replayable: generate only, no shrinking, no example database.
    phases=[Phase.generate],
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_the_api_survives_hostile_input(world: World, data: st.DataObject) -> None:
    w = world
    rpc, req, md, seat = data.draw(requests(w))
    before = w.snapshot(w.game_a)
    before_b = w.snapshot(w.game_b)
    w.stats["requests"] += 1
    answer_version: int | None
    try:
        if rpc == "WatchGame":
            assert isinstance(req, pb.WatchGameRequest)
            stream = w.stub.WatchGame(req, metadata=md, timeout=2)
            try:
                first = next(stream)
                answer = str(first)
                answer_version = first.view.version
            finally:
                stream.cancel()
        else:
            reply = getattr(w.stub, rpc)(req, metadata=md, timeout=5)
            answer = str(reply)
            answer_version = reply.version if rpc == "SubmitMove" else None
        w.stats["ok"] += 1
        if rpc == "JoinGame":
            return  # a started game refuses joins; nothing more to check
        # Only game A's own seats may see its hands; a success tells nothing hidden.
        if seat >= 0 or (md and md[0][0] == "x-api-key"):
            _check_no_leak(w, seat, answer, req, answer_version)
    except grpc.RpcError as e:
        code = e.code()
        w.stats[code.name] += 1
        if rpc == "WatchGame" and code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return  # a watch with nothing new waits; the short deadline ends it
        assert code in ALLOWED, f"{rpc} answered {code}: {e.details()}"
        assert w.snapshot(w.game_a) == before, "a refused request changed game A"
        assert w.snapshot(w.game_b) == before_b, "a refused request changed game B"
        _check_no_leak(w, seat, str(e.details()) + str(e.trailing_metadata()), req)
