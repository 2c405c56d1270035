"""The Python SDK against a real server (SQLite and PostgreSQL): retries that apply a
move once, version conflicts with a fresh view, watches that resume after a broken
stream without a gap or a duplicate, typed errors with the service's reason codes,
and bots playing whole deals as API clients (async, blocking and the command line)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
import trustme

from tests.harness.servers import bare_config
from tranca.server import Config, Running, start
from tranca_client import (
    AlreadyExists,
    AsyncTrancaClient,
    GreedyBot,
    InvalidRequest,
    NotFound,
    PermissionDenied,
    RandomBot,
    RetryPolicy,
    RuleRejected,
    TrancaClient,
    Unauthenticated,
    Unavailable,
    VersionConflict,
    move_kind,
    move_text,
    parse_move,
    pb,
    run_bot,
)
from tranca_client.cli import bot_main

from .conftest import BreakStreams, CountErrors, DropResponses, ScriptedSubmits

SINGLE_DEAL = {"target_score": 0}
MakeClient = Callable[..., AsyncTrancaClient]


async def new_table(
    app: AsyncTrancaClient,
    players: int = 2,
    preset: str = "tranca-000",
    seed: int = 7,
    *,
    start: bool = True,
) -> tuple[str, list[AsyncTrancaClient]]:
    """A single-deal game with every seat taken (and started); a client per seat."""
    game = await app.create_game(preset, players, overrides=SINGLE_DEAL, seed=seed)
    seats = [await app.join(game.game_id, i, player_name=f"p{i}") for i in range(players)]
    if start:
        await app.start_game(game.game_id)
    return game.game_id, seats


async def to_act(
    game_id: str, seats: list[AsyncTrancaClient]
) -> tuple[AsyncTrancaClient, pb.GameView]:
    view = await seats[0].get_view(game_id)
    actor = seats[view.turn]
    return actor, await actor.get_view(game_id)


async def play_moves(gid: str, seats: list[AsyncTrancaClient], n: int) -> pb.GameView:
    """``n`` moves by greedy bots, seat after seat, each from its own view."""
    bots = [GreedyBot(seed=i) for i in range(len(seats))]
    actor, view = await to_act(gid, seats)
    for _ in range(n):
        legal = await actor.legal_moves(gid)
        view = await actor.play(view, bots[view.turn].choose(view, list(legal.moves)))
        assert view.status == pb.GAME_STATUS_PLAYING
        if view.turn != view.seat:
            actor = seats[view.turn]
            view = await actor.get_view(gid)
    return view


async def resign(gid: str, seat: AsyncTrancaClient) -> pb.GameView:
    await seat.leave_game(gid)
    final = await seat.get_view(gid)
    assert final.status == pb.GAME_STATUS_FINISHED
    assert final.match_result.reason == "resignation"
    return final


# ----- a move retried after a lost answer -----------------------------------------------


@pytest.mark.parametrize("code", [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED])
async def test_a_move_retried_after_a_lost_answer_is_applied_once(
    app: AsyncTrancaClient, make_client: MakeClient, code: grpc.StatusCode
) -> None:
    gid, seats = await new_table(app)
    actor, view = await to_act(gid, seats)
    dropper = DropResponses("SubmitMove", count=1, code=code)
    flaky = make_client(interceptors=[dropper], token=actor.token)

    done = await flaky.submit_move(gid, "draw", expected_version=view.version)

    # The first answer was lost; the SDK retried with the same request id and got the
    # first answer back instead of a second draw.
    assert [r.request_id for r in dropper.requests] == [dropper.requests[0].request_id] * 2
    assert done.replayed
    assert done.version == view.version + 1 == done.view.version
    assert done.view.phase == pb.PHASE_PLAY
    assert len(done.view.hand) == len(view.hand) + 1
    replay = await app.get_replay(gid)
    assert len(replay.moves) == done.version
    assert [move_text(m.move) for m in replay.moves if m.version > view.version] == ["draw"]
    # The game is where one draw put it: the next move is made against that version.
    legal = await actor.legal_moves(gid)
    assert legal.version == done.version
    assert {move_kind(m) for m in legal.moves} >= {"discard"}


async def test_retries_are_bounded_and_reuse_the_request_id(
    app: AsyncTrancaClient, make_client: MakeClient
) -> None:
    gid, seats = await new_table(app)
    actor, view = await to_act(gid, seats)
    dropper = DropResponses("SubmitMove", count=100)
    retry = RetryPolicy(max_attempts=4, initial_backoff=0.01, max_backoff=0.02)
    flaky = make_client(interceptors=[dropper], token=actor.token, retry=retry)

    with pytest.raises(Unavailable) as info:
        await flaky.submit_move(gid, "draw", expected_version=view.version, request_id="r-1")
    assert info.value.attempts == 4
    assert info.value.code == grpc.StatusCode.UNAVAILABLE
    assert [r.request_id for r in dropper.requests] == ["r-1"] * 4
    replay = await app.get_replay(gid)
    assert [move_text(m.move) for m in replay.moves if m.version > view.version] == ["draw"]

    # The caller may retry later with the same id: it gets the first answer.
    again = await actor.submit_move(gid, "draw", expected_version=view.version, request_id="r-1")
    assert again.replayed and again.version == view.version + 1


async def test_a_retry_refused_as_a_conflict_asks_the_log_before_giving_up(
    app: AsyncTrancaClient, make_client: MakeClient
) -> None:
    """The first attempt is applied but its answer lost; the retry gets ABORTED (it
    raced the first attempt); the SDK asks once more with the same id and gets the
    first answer instead of reporting a conflict for a move that was played."""
    gid, seats = await new_table(app)
    actor, view = await to_act(gid, seats)
    script = ScriptedSubmits("lose", "abort")
    flaky = make_client(interceptors=[script], token=actor.token)

    done = await flaky.submit_move(gid, "draw", expected_version=view.version)
    assert [step for step, _ in script.seen] == ["lose", "abort", "pass"]
    assert len({r.request_id for _, r in script.seen}) == 1
    assert done.replayed and done.version == view.version + 1

    # A real conflict still raises, with the fresh view.
    with pytest.raises(VersionConflict) as info:
        await flaky.submit_move(gid, "draw", expected_version=view.version)
    assert info.value.view is not None and info.value.view.version == view.version + 1


# ----- two clients on one seat ------------------------------------------------------------


async def test_the_loser_of_a_race_gets_version_conflict_with_a_fresh_view(
    app: AsyncTrancaClient, make_client: MakeClient
) -> None:
    gid, seats = await new_table(app)
    first, _ = await to_act(gid, seats)
    second = make_client(token=first.token)  # the same seat, another connection
    seen_first = await first.get_view(gid)
    seen_second = await second.get_view(gid)
    assert seen_first == seen_second

    won = await first.submit_move(gid, "draw", expected_version=seen_first.version)
    with pytest.raises(VersionConflict) as info:
        await second.submit_move(gid, "draw", expected_version=seen_second.version)

    lost = info.value
    assert lost.code == grpc.StatusCode.ABORTED
    assert lost.reason == "VERSION_CONFLICT"
    assert lost.domain == "tranca.v1"
    assert lost.current_version == won.version
    assert lost.metadata["current_version"] == str(won.version)
    assert lost.view is not None
    assert lost.view == won.view  # the fresh view: drawn, in the play phase
    assert lost.view.phase == pb.PHASE_PLAY

    # The loser decides again from the fresh view.
    legal = await second.legal_moves(gid)
    discard = next(m for m in legal.moves if move_kind(m) == "discard")
    after = await second.play(lost.view, discard)
    assert after.version == won.version + 1
    replay = await app.get_replay(gid)
    texts = [move_text(m.move) for m in replay.moves if m.version > seen_first.version]
    assert texts == ["draw", move_text(discard)]


# ----- watching ---------------------------------------------------------------------------


def assert_contiguous(updates: list[pb.WatchGameResponse], final: pb.GameView) -> None:
    versions = [u.view.version for u in updates]
    assert versions == list(range(versions[0], final.version + 1)), "a gap or a duplicate"
    for u in updates[1:]:
        assert u.HasField("move") and u.move.version == u.view.version
    assert updates[-1].view.status == pb.GAME_STATUS_FINISHED


async def _collect(
    client: AsyncTrancaClient, gid: str, out: list[pb.WatchGameResponse], from_version: int = 0
) -> None:
    async for update in client.watch_updates(gid, from_version):
        out.append(update)


async def test_a_watch_resumes_after_broken_streams_without_gap_or_duplicate(
    app: AsyncTrancaClient, make_client: MakeClient
) -> None:
    gid, seats = await new_table(app, start=False)
    breaker = BreakStreams(after=9, count=3)
    watcher = make_client(interceptors=[breaker], token=seats[0].token)
    updates: list[pb.WatchGameResponse] = []
    watching = asyncio.create_task(_collect(watcher, gid, updates))
    async with asyncio.timeout(10):
        while not updates:
            await asyncio.sleep(0.01)

    await seats[0].start_game(gid)
    await play_moves(gid, seats, 40)
    final = await resign(gid, seats[1])
    async with asyncio.timeout(10):
        await watching

    assert breaker.broken == 3
    assert len(breaker.opened) == 4
    # Each stream was reopened from the last version delivered before the break.
    delivered = [u.view.version for u in updates]
    assert breaker.opened == [0, delivered[8], delivered[17], delivered[26]]
    assert_contiguous(updates, final)
    assert all(u.view.seat == 0 for u in updates)
    assert any(u.view.hand for u in updates)


async def test_a_cancelled_watch_resumes_from_the_last_version_seen(
    app: AsyncTrancaClient,
) -> None:
    gid, seats = await new_table(app)

    async def play() -> pb.GameView:
        await play_moves(gid, seats, 30)
        return await resign(gid, seats[0])

    playing = asyncio.create_task(play())
    updates: list[pb.WatchGameResponse] = []
    async for update in app.watch_updates(gid):  # as the app: no hand
        updates.append(update)
        if len(updates) == 12:
            break  # the consumer cancels the stream mid-game
    assert updates[-1].view.status == pb.GAME_STATUS_PLAYING
    await _collect(app, gid, updates, from_version=updates[-1].view.version)
    final = await playing
    assert_contiguous(updates, final)
    assert not any(u.view.hand for u in updates)


async def test_a_watch_and_the_players_ride_out_a_server_restart(
    server: Running, address: str, api_key: str, db_url: str
) -> None:
    patient = RetryPolicy(max_attempts=30, initial_backoff=0.05, max_backoff=0.2)
    app = AsyncTrancaClient(address, api_key=api_key, retry=patient)
    restarted: Running | None = None
    try:
        gid, seats = await new_table(app)
        updates: list[pb.WatchGameResponse] = []
        # From the version before the first move: a watch from 0 opens on the current
        # view, which may already hold the first move if it lands first.
        start_version = (await app.get_view(gid)).version
        watching = asyncio.create_task(_collect(app, gid, updates, start_version))
        await play_moves(gid, seats, 10)

        await server.stop(0.2)  # every stream and connection breaks
        restarted = await start(
            Config(host="127.0.0.1", port=server.port, metrics_port=0, database_url=db_url)
        )
        await play_moves(gid, seats, 10)
        final = await resign(gid, seats[1])
        async with asyncio.timeout(10):
            await watching
        assert_contiguous(updates, final)
        assert len(updates) >= 21
    finally:
        await app.close()
        if restarted is not None:
            await restarted.stop(0.2)


async def test_rate_limited_calls_are_retried_after_the_hint(sqlite_url: str) -> None:
    """A server allowing a token 20 calls a second in bursts of 40 refuses quicker
    calls with RATE_LIMITED (and a retry_after_ms hint), which the SDK waits out."""
    running = await start(
        bare_config(sqlite_url, rate_per_token=20)
    )  # fmt: skip
    _, key = await running.store.create_app("rate-test")
    errors = CountErrors()
    patient = RetryPolicy(max_attempts=30, initial_backoff=0.02, max_backoff=0.5)
    app = AsyncTrancaClient(f"127.0.0.1:{running.port}", api_key=key)
    eager: AsyncTrancaClient | None = None
    try:
        gid, seats = await new_table(app)
        eager = AsyncTrancaClient(
            f"127.0.0.1:{running.port}", token=seats[0].token, retry=patient, interceptors=[errors]
        )
        views = await asyncio.gather(*(eager.get_view(gid) for _ in range(70)))
        assert {v.version for v in views} == {views[0].version}
        assert errors.reasons and set(errors.reasons) == {"RATE_LIMITED"}
    finally:
        await app.close()
        if eager is not None:
            await eager.close()
        await running.stop(0.2)


async def test_tls_with_root_certificates_and_client_certificates(
    sqlite_url: str, tmp_path: Path
) -> None:
    """TLS with the given roots; mutual TLS with a client certificate; a plaintext
    client gets Unavailable from a TLS server."""
    ca = trustme.CA()
    server_cert = ca.issue_cert("127.0.0.1", "localhost")
    client_cert = ca.issue_cert("tranca-sdk-test")
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    server_cert.private_key_pem.write_to_path(str(tmp_path / "server.key"))
    (tmp_path / "server.pem").write_bytes(b"".join(b.bytes() for b in server_cert.cert_chain_pems))
    roots = ca.cert_pem.bytes()
    pair = (
        b"".join(b.bytes() for b in client_cert.cert_chain_pems),
        client_cert.private_key_pem.bytes(),
    )
    one_try = RetryPolicy(max_attempts=1)
    for mutual in (False, True):
        running = await start(
            bare_config(
                sqlite_url,
                tls_cert=str(tmp_path / "server.pem"),
                tls_key=str(tmp_path / "server.key"),
                tls_client_ca=str(tmp_path / "ca.pem") if mutual else "",
            )
        )  # fmt: skip
        _, key = await running.store.create_app("tls-test")
        address = f"127.0.0.1:{running.port}"
        try:
            async with AsyncTrancaClient(
                address,
                api_key=key,
                root_certificates=roots,
                client_certificate=pair if mutual else None,
            ) as secure:
                assert {p.name for p in await secure.list_presets()} >= {"tranca-000"}
            async with AsyncTrancaClient(
                address, api_key=key, retry=one_try, timeout=2
            ) as plain:  # plaintext: the default on a loopback address
                with pytest.raises(Unavailable):
                    await plain.list_presets()
            if mutual:
                async with AsyncTrancaClient(
                    address, api_key=key, root_certificates=roots, retry=one_try, timeout=2
                ) as anonymous:
                    with pytest.raises(Unavailable):
                        await anonymous.list_presets()
        finally:
            await running.stop(0.2)


# ----- typed errors -----------------------------------------------------------------------


async def test_errors_are_typed_and_carry_the_reason_codes(
    app: AsyncTrancaClient, make_client: MakeClient, address: str
) -> None:
    gid, seats = await new_table(app, start=False)
    with pytest.raises(RuleRejected) as not_started:
        await seats[0].submit_move(gid, "draw", expected_version=2)
    assert not_started.value.reason == "GAME_NOT_STARTED"
    with pytest.raises(AlreadyExists) as taken:
        await app.join_game(gid, 0)
    assert taken.value.reason == "SEAT_TAKEN"

    await seats[1].start_game(gid)
    actor, view = await to_act(gid, seats)
    idle = seats[1 - view.turn]
    with pytest.raises(RuleRejected) as not_your_turn:
        await idle.submit_move(gid, "draw", expected_version=view.version)
    err = not_your_turn.value
    assert (err.code, err.reason, err.domain) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "NOT_YOUR_TURN",
        "tranca.v1",
    )
    assert err.message
    assert "NOT_YOUR_TURN" in str(err) and "NOT_YOUR_TURN" in repr(err)

    with pytest.raises(RuleRejected) as draw_first:
        await actor.submit_move(gid, f"discard {view.hand[0]}", expected_version=view.version)
    assert draw_first.value.reason == "MUST_DRAW_FIRST"

    with pytest.raises(InvalidRequest) as malformed:
        await actor.submit_move(gid, pb.Move(), expected_version=view.version)
    assert malformed.value.reason == "MALFORMED_MOVE"

    drawn = await actor.submit_move(gid, "draw", expected_version=view.version, request_id="x")
    with pytest.raises(AlreadyExists) as reused:
        await actor.submit_move(
            gid,
            parse_move(f"discard {view.hand[0]}"),
            expected_version=drawn.version,
            request_id="x",
        )
    assert reused.value.reason == "REQUEST_ID_REUSED"

    with pytest.raises(NotFound) as missing:
        await app.get_view("no-such-game")
    assert missing.value.reason == "GAME_NOT_FOUND"

    with pytest.raises(PermissionDenied) as needs_token:
        await app.legal_moves(gid)
    assert needs_token.value.reason == "PLAYER_TOKEN_REQUIRED"

    with pytest.raises(Unauthenticated) as bad_key:
        await make_client(api_key="tk_wrong").list_presets()
    assert bad_key.value.reason == "BAD_API_KEY"

    closed = AsyncTrancaClient(
        "127.0.0.1:1",
        api_key="k",
        retry=RetryPolicy(max_attempts=2, initial_backoff=0.01),
        timeout=0.5,
    )
    try:
        with pytest.raises(Unavailable) as down:
            await closed.get_view(gid)
        assert down.value.attempts == 2
        assert down.value.reason == ""
    finally:
        await closed.close()


# ----- bots as clients --------------------------------------------------------------------


def _sync_seat(address: str, token: str, gid: str) -> pb.GameView:
    """A greedy bot on the blocking client, moving on its own turns from ``watch``."""
    bot = GreedyBot(seed=3)
    played = 0  # the version made by this seat's last move
    with TrancaClient(address, token=token) as me:
        last = me.get_view(gid)
        for view in me.watch(gid):
            last = view
            if view.version < played:
                continue  # our own moves, seen in the answers already
            while view.status == pb.GAME_STATUS_PLAYING and view.turn == view.seat:
                legal = me.legal_moves(gid)
                view = last = me.play(view, bot.choose(view, list(legal.moves)))
                played = view.version
        return last


async def test_bots_as_clients_play_a_whole_deal(
    app: AsyncTrancaClient, address: str, api_key: str
) -> None:
    """Seat 0 is `tranca bot` (joining with the API key), seat 1 a bot on the blocking
    client; the command-line bot starts the game once both seats are taken."""
    game = await app.create_game("tranca-000", 2, overrides=SINGLE_DEAL, seed=11)
    gid = game.game_id
    sync_seat = await app.join(gid, 1, player_name="sync bot")
    assert sync_seat.token is not None
    cli = asyncio.to_thread(
        bot_main,
        [
            "--address",
            address,
            "--game",
            gid,
            "--api-key",
            api_key,
            "--seat",
            "0",
            "--level",
            "greedy",
            "--seed",
            "1",
            "--quiet",
        ],
    )
    code, final = await asyncio.gather(
        cli, asyncio.to_thread(_sync_seat, address, sync_seat.token, gid)
    )

    assert code == 0
    assert final.status == pb.GAME_STATUS_FINISHED
    assert final.match_result.reason == "single_deal"
    assert final.last_deal.end_reason in ("batida", "stock_out", "no_legal_move")
    replay = await app.get_replay(gid)
    assert len(replay.moves) == final.version
    assert {m.seat for m in replay.moves if m.move.WhichOneof("kind")} == {0, 1}
    assert len(replay.deals) == 1


async def test_async_bots_play_a_whole_deal_of_four(app: AsyncTrancaClient) -> None:
    players = 4
    gid, seats = await new_table(app, players, "canasta-002", seed=21, start=False)
    bots = [GreedyBot(seed=i) if i % 2 == 0 else RandomBot(seed=i) for i in range(players)]
    finals = await asyncio.gather(*(run_bot(s, gid, b) for s, b in zip(seats, bots, strict=True)))
    assert {f.version for f in finals} == {finals[0].version}
    final = finals[0]
    assert final.status == pb.GAME_STATUS_FINISHED
    assert final.match_result.reason == "single_deal"
    assert len(final.last_deal.scores) == (2 if players == 4 else players)
    with contextlib.suppress(RuleRejected):
        await seats[0].submit_move(gid, "draw", expected_version=final.version)
        pytest.fail("a move after the end was accepted")


async def test_a_refusal_comes_worded_in_the_clients_language(
    make_client: MakeClient,
) -> None:
    """The client asks for a language (accept-language) and its typed errors carry the
    service's LocalizedMessage in it, beside the unchanged reason and message."""
    app = make_client(language="pt-BR")
    gid, seats = await new_table(app)
    _, view = await to_act(gid, seats)
    idle = seats[1 - view.turn]
    assert idle.language == "pt-BR"  # a seat's client keeps the language
    with pytest.raises(RuleRejected) as refused:
        await idle.submit_move(gid, "draw", expected_version=view.version)
    err = refused.value
    assert err.reason == "NOT_YOUR_TURN" and err.metadata == {"seat": str(view.turn)}
    assert (err.locale, err.localized) == (
        "pt-BR",
        f"Não é a sua vez: é a vez do lugar {view.turn}.",
    )
    english = make_client()
    with pytest.raises(RuleRejected) as plain:
        await english.with_token(idle.token or "").submit_move(
            gid, "draw", expected_version=view.version
        )
    assert plain.value.locale == "en" and plain.value.localized.startswith("It is not your turn")


async def test_a_turn_in_one_call_and_its_refusal_naming_the_move(app: AsyncTrancaClient) -> None:
    """``submit_turn``: the moves after one another in one call, each logged at its
    own version; a refused move is named by ``move_index`` and nothing is played."""
    gid, seats = await new_table(app)
    actor, view = await to_act(gid, seats)
    card = sorted(view.hand)[0]
    with pytest.raises(RuleRejected) as refused:
        await actor.submit_turn(gid, ["draw", "draw"], expected_version=view.version)
    assert refused.value.move_index == 2
    assert (await actor.get_view(gid)).version == view.version
    done = await actor.submit_turn(
        gid, ["draw", f"discard {card}"], expected_version=view.version, include_legal_moves=True
    )
    assert done.version == view.version + 2 and not done.replayed
    assert list(done.legal_moves) == []
    replay = await app.get_replay(gid)
    assert [move_kind(m.move) for m in replay.moves[-2:]] == ["draw", "discard"]
    assert [m.version for m in replay.moves[-2:]] == [view.version + 1, view.version + 2]


async def test_bots_play_whole_turns_in_one_call_each(app: AsyncTrancaClient) -> None:
    """``run_bot`` sends the rest of each turn after its draw in one SubmitTurn: a
    deal played that way has about two calls a turn, and its log folds move by move."""
    gid, seats = await new_table(app, 2, seed=5, start=False)
    calls: list[int] = []
    for seat in seats:
        original = seat._stub.SubmitTurn

        def counted(request: pb.SubmitTurnRequest, *a: object, _o: object = original, **k: object):  # type: ignore[no-untyped-def]
            calls.append(len(request.moves))
            return _o(request, *a, **k)  # type: ignore[operator]

        seat._stub.SubmitTurn = counted  # type: ignore[assignment]
    finals = await asyncio.gather(
        *(run_bot(s, gid, GreedyBot(seed=i)) for i, s in enumerate(seats))
    )
    final = finals[0]
    assert final.status == pb.GAME_STATUS_FINISHED
    assert calls and max(calls) >= 2  # a meld or an add, then the discard, in one call
    replay = await app.get_replay(gid)
    assert [m.version for m in replay.moves] == list(range(1, final.version + 1))


async def test_a_planned_turn_refused_goes_to_on_rejected_and_play_goes_on(
    app: AsyncTrancaClient,
) -> None:
    """A plan whose first move the service refuses: ``on_rejected`` gets the refusal
    with its ``move_index``, nothing of it is played, and the seat plays that turn
    move by move; the match still ends."""
    from tranca_client.bots import play_seat

    gid, seats = await new_table(app, 2, seed=9, start=False)
    refused: list[int | None] = []
    bad = pb.Move(discard=pb.DiscardMove(card="ZZ"))  # no such card: MALFORMED_MOVE
    bots = [GreedyBot(seed=0), GreedyBot(seed=1)]

    def chooser(seat: int) -> Any:
        async def choose(view: pb.GameView, moves: list[pb.Move]) -> pb.Move | None:
            if seat == 0 and not refused and view.phase != pb.PHASE_DRAW:
                return bad
            return bots[seat].choose(view, moves)

        return choose

    async def on_rejected(err: RuleRejected | InvalidRequest) -> None:
        refused.append(err.move_index)

    finals = await asyncio.gather(
        *(play_seat(s, gid, chooser(i), on_rejected=on_rejected) for i, s in enumerate(seats))
    )
    assert finals[0].status == pb.GAME_STATUS_FINISHED
    assert refused == [1]


async def test_a_planned_turn_refused_without_on_rejected_still_plays_on(
    app: AsyncTrancaClient,
) -> None:
    """``run_bot`` gives no ``on_rejected``: a plan the service refuses part-way (here
    its first move) is the plan's failure, not the bot's, so the seat plays that turn
    move by move instead of raising, and the match ends."""
    from tranca_client.bots import play_seat

    gid, seats = await new_table(app, 2, seed=9, start=False)
    planned_bad: list[bool] = []
    bad = pb.Move(discard=pb.DiscardMove(card="ZZ"))  # no such card: MALFORMED_MOVE
    bots = [GreedyBot(seed=0), GreedyBot(seed=1)]

    def chooser(seat: int) -> Any:
        async def choose(view: pb.GameView, moves: list[pb.Move]) -> pb.Move | None:
            if seat == 0 and not planned_bad and view.phase != pb.PHASE_DRAW:
                planned_bad.append(True)
                return bad
            return bots[seat].choose(view, moves)

        return choose

    finals = await asyncio.gather(*(play_seat(s, gid, chooser(i)) for i, s in enumerate(seats)))
    assert planned_bad == [True]
    assert finals[0].status == pb.GAME_STATUS_FINISHED
