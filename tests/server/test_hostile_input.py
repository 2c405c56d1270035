"""Hostile input and credentials, through a real channel on SQLite and PostgreSQL:
every refusal is a typed INVALID_ARGUMENT (or the right credential error) that changes
nothing, the same on both databases; no input makes a game unreadable; watch streams
are capped per credential; credentials expire and die with their app."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
import uuid
from collections.abc import AsyncIterator, Awaitable
from typing import TypedDict, Unpack

import grpc
import pytest

from tests.harness.servers import running_server, server_config
from tranca.server import Running
from tranca.services.ports import TokenRecord
from tranca.v1 import game_pb2 as pb
from tranca.v1 import platform_pb2 as ppb
from tranca.v1 import platform_pb2_grpc as ppb_grpc

from .conftest import Client
from .test_limits_security import reason_of

NUL = "\x00"


async def _refused(call: Awaitable[object], code: grpc.StatusCode, reason: str) -> str:
    """Await ``call`` (a coroutine or a unary call), expecting this refusal."""
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == code, err.value.details()
    assert reason_of(err.value)[0] == reason, err.value.details()
    return str(err.value.details())


async def _games(client: Client) -> list[tuple[str, int]]:
    listed = await client.stub.ListGames(pb.ListGamesRequest(page_size=500), metadata=client.app())
    return sorted((g.game_id, g.version) for g in listed.games)


# ----- strings: one rule at the edge, the same on both databases ----------------------


async def test_nul_and_control_characters_are_refused_in_every_free_text_field(
    client: Client,
) -> None:
    gid, tokens = await client.new_game()
    waiting = (
        await client.stub.CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2),
            metadata=client.app(),
        )
    ).game.game_id
    before = await _games(client)
    player = client.player(tokens[0])
    calls: list[Awaitable[object]] = [
        client.stub.CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2, label=f"a{NUL}"),
            metadata=client.app(),
        ),
        client.stub.JoinGame(
            pb.JoinGameRequest(game_id=waiting, seat=0, player_name=f"Ana{NUL}"),
            metadata=client.app(),
        ),
        client.stub.JoinGame(
            pb.JoinGameRequest(game_id=waiting, seat=0, player_id=f"id{NUL}"),
            metadata=client.app(),
        ),
        client.stub.GetView(pb.GetViewRequest(game_id=f"{gid}{NUL}"), metadata=client.app()),
        client.stub.SubmitMove(
            pb.SubmitMoveRequest(
                game_id=gid,
                expected_version=1,
                request_id=f"r{NUL}",
                move=pb.Move(draw=pb.DrawMove()),
            ),
            metadata=player,
        ),
        client.stub.LeaveGame(
            pb.LeaveGameRequest(game_id=gid, request_id="bye\x1b[2J"), metadata=player
        ),
    ]
    for call in calls:
        message = await _refused(call, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
        assert "control character" in message
    players = ppb_grpc.PlayerServiceStub(client.channel)
    await _refused(
        players.GrantChips(
            ppb.GrantChipsRequest(player_id="p", amount=5, grant_id=f"g{NUL}"),
            metadata=client.app(),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    assert await _games(client) == before


async def test_leave_game_bounds_its_request_id(client: Client) -> None:
    gid, tokens = await client.new_game()
    before = await _games(client)
    message = await _refused(
        client.stub.LeaveGame(
            pb.LeaveGameRequest(game_id=gid, request_id="r" * 200_000),
            metadata=client.player(tokens[0]),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    assert message == "request_id is at most 128 characters"
    assert await _games(client) == before


async def test_an_undecodable_body_is_invalid_argument_on_every_service(client: Client) -> None:
    for method in (
        "/tranca.v1.GameService/GetView",
        "/tranca.v1.GameService/WatchGame",
        "/tranca.v1.PlayerService/GetPlayer",
        "/tranca.v1.TournamentService/GetTournament",
    ):
        for body in (b"\x0a\x03\xed\xa0\x80", b"\x0a\x09abc", b"\xff" * 11):
            # No serializers: the request and the answer are the bytes on the wire.
            if method.endswith("WatchGame"):
                watch: grpc.aio.UnaryStreamMultiCallable[bytes, bytes]
                watch = client.channel.unary_stream(method)
                call = watch(body, metadata=client.app())
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await call.read()
            else:
                unary: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes]
                unary = client.channel.unary_unary(method)
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await unary(body, metadata=client.app())
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, method
            assert reason_of(err.value)[0] == "MALFORMED_REQUEST"


# ----- rule overrides ------------------------------------------------------------------


async def test_an_override_that_sets_none_of_its_kinds_is_invalid_rules(client: Client) -> None:
    rules = pb.Rules(preset="tranca-000")
    rules.overrides["batida_bonus"].SetInParent()
    message = await _refused(
        client.stub.CreateGame(pb.CreateGameRequest(rules=rules, players=2), metadata=client.app()),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_RULES",
    )
    assert "batida_bonus" in message


@pytest.mark.parametrize(
    ("knob", "value"),
    [
        ("batida_bonus", 2**63 - 1),
        ("morto_penalty", -(2**63)),
        ("canastra_bonus.clean", 10**15),
        ("red_three_value", -1),
        ("target_score", 2**62),
    ],
)
async def test_a_knob_past_its_range_is_refused_naming_it(
    client: Client, knob: str, value: int
) -> None:
    before = await _games(client)
    rules = pb.Rules(preset="tranca-003")
    rules.overrides[knob].int_value = value
    message = await _refused(
        client.stub.CreateGame(pb.CreateGameRequest(rules=rules, players=2), metadata=client.app()),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_RULES",
    )
    assert knob in message
    assert await _games(client) == before


async def test_list_presets_answers_every_knobs_range(client: Client) -> None:
    presets = await client.stub.ListPresets(pb.ListPresetsRequest(), metadata=client.app())
    ranges = {r.knob: (r.min, r.max) for r in presets.knob_ranges}
    assert ranges["batida_bonus"] == (0, 10_000)
    assert ranges["card_values"] == (0, 1_000)
    assert ranges["target_score"] == (0, 100_000)
    for preset in presets.presets:
        for name, value in preset.knobs.items():
            if name in ranges and value.WhichOneof("value") == "int_value":
                low, high = ranges[name]
                assert low <= value.int_value <= high, (preset.name, name)


async def test_errors_quote_only_a_short_prefix_of_what_the_caller_sent(client: Client) -> None:
    for length in (5_000, 30_000):
        rules = pb.Rules(preset="tranca-000")
        rules.overrides["k" * length].int_value = 1
        message = await _refused(
            client.stub.CreateGame(
                pb.CreateGameRequest(rules=rules, players=2), metadata=client.app()
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
        )
        assert len(message) < 200
    # Within the key's limit, the rules engine's own message quotes a prefix too.
    rules = pb.Rules(preset="tranca-000")
    rules.overrides["z" * 64].int_value = 1
    message = await _refused(
        client.stub.CreateGame(pb.CreateGameRequest(rules=rules, players=2), metadata=client.app()),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_RULES",
    )
    assert "(64 characters)" in message and len(message) < 120


# ----- contract gaps ---------------------------------------------------------------------


async def test_list_games_refuses_an_unknown_status(client: Client) -> None:
    await _refused(
        client.stub.ListGames(
            pb.ListGamesRequest(status=pb.GameStatus.ValueType(42)),  # no such status
            metadata=client.app(),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )


async def test_a_retry_with_a_fresher_expected_version_gets_the_first_answer(
    client: Client,
) -> None:
    """GUARANTEES.md: a request id names one move; its expected version is checked when
    it is first applied, and a retry of the same move gets the first answer whatever
    version it names. The same id with another move is REQUEST_ID_REUSED."""
    gid, tokens = await client.new_game()
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    md = client.player(tokens[view.turn])
    rid = uuid.uuid4().hex
    first = await client.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=gid,
            expected_version=view.version,
            request_id=rid,
            move=pb.Move(draw=pb.DrawMove()),
        ),
        metadata=md,
    )
    for expected in (first.version, view.version + 7, 0):
        again = await client.stub.SubmitMove(
            pb.SubmitMoveRequest(
                game_id=gid,
                expected_version=expected,
                request_id=rid,
                move=pb.Move(draw=pb.DrawMove()),
            ),
            metadata=md,
        )
        assert again.replayed and again.version == first.version
    await _refused(
        client.stub.SubmitMove(
            pb.SubmitMoveRequest(
                game_id=gid,
                expected_version=first.version,
                request_id=rid,
                move=pb.Move(discard=pb.DiscardMove(card=first.view.hand[0])),
            ),
            metadata=md,
        ),
        grpc.StatusCode.ALREADY_EXISTS,
        "REQUEST_ID_REUSED",
    )
    now = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    assert now.version == first.version


async def test_a_timed_tables_start_answers_its_first_turn_deadline(client: Client) -> None:
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"),
            players=2,
            table=pb.TableOptions(turn_seconds=60),
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    for seat in range(2):
        await client.stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, seat=seat), metadata=client.app()
        )
    started = await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    shown = await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())
    assert started.view.turn_deadline_ms > time.time() * 1000
    assert started.view.turn_deadline_ms == shown.view.turn_deadline_ms


# ----- credentials ---------------------------------------------------------------------


async def test_tokens_carry_their_expiry_and_stop_working_after_it(
    server: Running, client: Client
) -> None:
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"), players=2, spectators_allowed=True
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    # Whole milliseconds, as the server's clock counts them (it truncates too).
    before = int(time.time() * 1000)
    short = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, seat=0, token_lifetime_seconds=60), metadata=client.app()
    )
    default = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, seat=1), metadata=client.app()
    )
    watcher = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, spectator=True, token_lifetime_seconds=120),
        metadata=client.app(),
    )
    assert before + 60_000 <= short.token_expires_at_ms <= time.time() * 1000 + 60_000
    week = 7 * 24 * 3600 * 1000
    assert before + week <= default.token_expires_at_ms <= time.time() * 1000 + week
    assert watcher.token_expires_at_ms >= before + 120_000
    for lifetime in (59, 366 * 24 * 3600, -5):
        await _refused(
            client.stub.JoinGame(
                pb.JoinGameRequest(game_id=gid, spectator=True, token_lifetime_seconds=lifetime),
                metadata=client.app(),
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
        )
    view = pb.GetViewRequest(game_id=gid)
    await client.stub.GetView(view, metadata=client.player(short.player_token))
    # The clock moves past the short token's expiry: it is refused, the other still works.
    await _expire_tokens(server, gid, seat=0)
    for call in (
        client.stub.GetView(view, metadata=client.player(short.player_token)),
        client.stub.ListLegalMoves(
            pb.ListLegalMovesRequest(game_id=gid), metadata=client.player(short.player_token)
        ),
    ):
        await _refused(call, grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
    await client.stub.GetView(view, metadata=client.player(default.player_token))


async def _expire_tokens(server: Running, game_id: str, seat: int) -> None:
    from sqlalchemy import update

    from tranca.store.models import PlayerToken

    async with server.store.writing() as conn:
        await conn.execute(
            update(PlayerToken)
            .where(PlayerToken.game_id == game_id, PlayerToken.seat == seat)
            .values(expires_at=int(time.time() * 1000) - 1)
        )


async def test_revoking_an_app_ends_its_seat_and_spectator_tokens(server: Running) -> None:
    app_id, key = await server.store.create_app(f"revoked-{uuid.uuid4().hex[:6]}")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        client = Client(channel, key)
        gid, tokens = await client.new_game()
        view = (
            await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())
        ).view
        md = client.player(tokens[view.turn])
        await client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=md)
        assert await server.store.revoke_app(app_id)
        await _refused(
            client.stub.SubmitMove(
                pb.SubmitMoveRequest(
                    game_id=gid,
                    expected_version=view.version,
                    request_id="after-revocation",
                    move=pb.Move(draw=pb.DrawMove()),
                ),
                metadata=md,
            ),
            grpc.StatusCode.UNAUTHENTICATED,
            "BAD_TOKEN",
        )
        await _refused(
            client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=md),
            grpc.StatusCode.UNAUTHENTICATED,
            "BAD_TOKEN",
        )
    game = await server.store.game(gid)
    assert game.version == view.version


class _Settings(TypedDict, total=False):
    """The settings of Config that these tests change."""

    auth_failures_per_peer: float
    max_watches_per_app: int
    rate_per_token: float


@contextlib.asynccontextmanager
async def _server(db_url: str, **settings: Unpack[_Settings]) -> AsyncIterator[Running]:
    """A server on ``db_url``, with no rate limits unless ``settings`` say otherwise."""
    config = server_config(db_url)
    async with running_server(dataclasses.replace(config, **settings)) as running:
        yield running


@pytest.fixture
async def guarded_server(db_url: str) -> AsyncIterator[Running]:
    async with _server(db_url, auth_failures_per_peer=1) as running:  # bursts of 4
        yield running


async def test_failed_authentications_are_throttled_per_peer_before_any_lookup(
    guarded_server: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, key = await guarded_server.store.create_app(f"throttle-{uuid.uuid4().hex[:6]}")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{guarded_server.port}") as channel:
        client = Client(channel, key)
        gid, tokens = await client.new_game()
        # A player whose token works, seen by the server before the guessing starts.
        await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.player(tokens[0]))
        lookups = {"n": 0}
        real = guarded_server.store.token

        async def counted(token: str) -> TokenRecord | None:
            lookups["n"] += 1
            return await real(token)

        monkeypatch.setattr(guarded_server.store, "token", counted)
        outcomes = []
        for i in range(12):
            try:
                await client.stub.GetView(
                    pb.GetViewRequest(game_id=gid), metadata=client.player(f"tp_guess{i}")
                )
            except grpc.aio.AioRpcError as e:
                outcomes.append(reason_of(e)[0])
        assert outcomes[:4] == ["BAD_TOKEN"] * 4
        assert set(outcomes[5:]) == {"RATE_LIMITED"}
        assert lookups["n"] <= 5  # refused unread once the burst is spent
        # Bad API keys count the same, and are refused the same way.
        await _refused(
            client.stub.ListGames(pb.ListGamesRequest(), metadata=(("x-api-key", "tk_guess"),)),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "RATE_LIMITED",
        )
        # The player whose token worked before, from the same address, still plays; a
        # token never seen here waits like a guess (it cannot be told from one unread).
        await _refused(
            client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.player(tokens[1])),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "RATE_LIMITED",
        )
        await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.player(tokens[0]))
        await client.stub.ListGames(pb.ListGamesRequest(), metadata=client.app())
        # The bucket refills: after a second a guess is looked up (and refused) again.
        await asyncio.sleep(1.2)
        await _refused(
            client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.player("tp_x")),
            grpc.StatusCode.UNAUTHENTICATED,
            "BAD_TOKEN",
        )


# ----- watch streams ---------------------------------------------------------------------


async def _open(
    client: Client, gid: str, md: tuple[tuple[str, str], ...]
) -> grpc.aio.UnaryStreamCall[pb.WatchGameRequest, pb.WatchGameResponse] | None:
    stream = client.stub.WatchGame(pb.WatchGameRequest(game_id=gid), metadata=md)
    try:
        await asyncio.wait_for(stream.read(), 5)
    except grpc.aio.AioRpcError as e:
        assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(e)[0] == "TOO_MANY_WATCHES"
        return None
    return stream


async def test_the_watch_cap_holds_however_many_refused_streams_came_before(
    client: Client,
) -> None:
    """Streams opened one after another and never closed: the cap's first refusal must
    not give back a slot it never held (it let every other stream through)."""
    gid, tokens = await client.new_game()
    md = client.player(tokens[0])
    opened = [await _open(client, gid, md) for _ in range(10)]
    kept = [s for s in opened if s is not None]
    assert len(kept) == 4
    kept[0].cancel()
    await asyncio.sleep(0.2)
    again = await _open(client, gid, md)
    assert again is not None
    assert await _open(client, gid, md) is None
    for s in [*kept[1:], again]:
        s.cancel()


async def test_two_spectators_with_one_name_have_a_cap_each(client: Client) -> None:
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"), players=2, spectators_allowed=True
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    tokens = [
        (
            await client.stub.JoinGame(
                pb.JoinGameRequest(game_id=gid, spectator=True, player_name="Same"),
                metadata=client.app(),
            )
        ).player_token
        for _ in range(2)
    ]
    streams = [await _open(client, gid, client.player(t)) for t in tokens for _ in range(4)]
    assert all(s is not None for s in streams)
    for s in streams:
        assert s is not None
        s.cancel()


@pytest.fixture
async def watch_capped_server(db_url: str) -> AsyncIterator[Running]:
    async with _server(db_url, max_watches_per_app=3) as running:
        yield running


async def test_streams_opened_with_an_api_key_are_capped_too(watch_capped_server: Running) -> None:
    _, key = await watch_capped_server.store.create_app(f"cap-{uuid.uuid4().hex[:6]}")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{watch_capped_server.port}") as channel:
        client = Client(channel, key)
        gid, _ = await client.new_game()
        opened = [await _open(client, gid, client.app()) for _ in range(6)]
        assert [s is not None for s in opened] == [True] * 3 + [False] * 3
        for s in opened:
            if s is not None:
                s.cancel()


@pytest.fixture
async def rate_limited_server(db_url: str) -> AsyncIterator[Running]:
    async with _server(db_url, rate_per_token=5) as running:
        yield running


async def test_two_tokens_with_one_name_have_a_rate_limit_each(
    rate_limited_server: Running,
) -> None:
    """The per-token bucket is the token's own (keyed by its hash), not its name's."""
    _, key = await rate_limited_server.store.create_app(f"names-{uuid.uuid4().hex[:6]}")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{rate_limited_server.port}") as channel:
        client = Client(channel, key)
        created = await client.stub.CreateGame(
            pb.CreateGameRequest(
                rules=pb.Rules(preset="tranca-000"), players=2, spectators_allowed=True
            ),
            metadata=client.app(),
        )
        gid = created.game.game_id
        tokens = [
            (
                await client.stub.JoinGame(
                    pb.JoinGameRequest(game_id=gid, spectator=True, player_name="Same"),
                    metadata=client.app(),
                )
            ).player_token
            for _ in range(2)
        ]
        answered = []
        for token in tokens:
            ok = 0
            for _ in range(10):  # a burst of twice the rate: all of them, for each token
                await client.stub.GetView(
                    pb.GetViewRequest(game_id=gid), metadata=client.player(token)
                )
                ok += 1
            answered.append(ok)
        assert answered == [10, 10]
        await _refused(
            client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.player(tokens[0])),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "RATE_LIMITED",
        )
