"""Players' own sessions through a real channel, on SQLite and PostgreSQL: the end
user's flow (the app's backend opens a session, the client creates or joins a table
and plays with its seat token), refresh with rotation, sign-out and revocation that
end every credential at once, device and guest sign-in behind the app's policy, and
the typed refusals (docs/APP_GUIDE.md, "Players' own sessions")."""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import Awaitable, Callable

import grpc
import pytest

from tranca.server import Running
from tranca.services.paging import LAST_MICROSECOND
from tranca.v1 import game_pb2 as pb
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .api_calls import reason_of, refused
from .conftest import Client, move_first_legal

Code = grpc.StatusCode


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@pytest.fixture
def sessions(client: Client) -> spb_grpc.SessionServiceAsyncStub:
    return spb_grpc.SessionServiceStub(client.channel)


async def open_session(
    client: Client, sessions: spb_grpc.SessionServiceAsyncStub, player_id: str
) -> spb.PlayerSession:
    done = await sessions.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=player_id, display_name=player_id.title()),
        metadata=client.app(),
    )
    return done.session


async def test_a_client_plays_a_game_with_its_session_and_never_the_apps_key(
    client: Client, sessions: spb_grpc.SessionServiceAsyncStub
) -> None:
    ana = await open_session(client, sessions, "ana")
    bia = await open_session(client, sessions, "bia")
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2, seed=11),
        metadata=bearer(ana.access_token),
    )
    gid = created.game.game_id
    # The lobby a session sees: its app's public tables with a free seat.
    lobby = await client.stub.ListGames(pb.ListGamesRequest(), metadata=bearer(bia.access_token))
    assert gid in [g.game_id for g in lobby.games]
    tokens = []
    for s in (ana, bia):
        joined = await client.stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, seat=-1), metadata=bearer(s.access_token)
        )
        tokens.append(joined.player_token)
        assert 0 < joined.token_expires_at_ms <= s.refresh_expires_at_ms
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=bearer(tokens[0]))
    assert await move_first_legal(client, gid, tokens) == 4
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    assert sorted(s.player_name for s in view.seats) == ["Ana", "Bia"]
    # A session acts at a table only through the seat token JoinGame gave it.
    await refused(
        client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=bearer(ana.access_token)),
        Code.PERMISSION_DENIED,
        "SEAT_TOKEN_REQUIRED",
    )
    # And it is no API key.
    await refused(
        sessions.CreatePlayerSession(
            spb.CreatePlayerSessionRequest(player_id="eve"), metadata=bearer(ana.access_token)
        ),
        Code.PERMISSION_DENIED,
        "APP_KEY_REQUIRED",
    )


async def test_refresh_rotates_and_a_reused_refresh_token_ends_the_session(
    client: Client, sessions: spb_grpc.SessionServiceAsyncStub
) -> None:
    ana = await open_session(client, sessions, "ana")
    renewed = (
        await sessions.RefreshSession(spb.RefreshSessionRequest(refresh_token=ana.refresh_token))
    ).session
    assert renewed.session_id == ana.session_id
    assert renewed.access_token != ana.access_token
    # The spent access token no longer works; the new one does.
    await refused(
        client.stub.ListGames(pb.ListGamesRequest(), metadata=bearer(ana.access_token)),
        Code.UNAUTHENTICATED,
        "BAD_SESSION",
    )
    await client.stub.ListGames(pb.ListGamesRequest(), metadata=bearer(renewed.access_token))
    await refused(
        sessions.RefreshSession(spb.RefreshSessionRequest(refresh_token=ana.refresh_token)),
        Code.UNAUTHENTICATED,
        "REFRESH_TOKEN_REUSED",
    )
    await refused(
        client.stub.ListGames(pb.ListGamesRequest(), metadata=bearer(renewed.access_token)),
        Code.UNAUTHENTICATED,
        "BAD_SESSION",
    )
    await refused(
        sessions.RefreshSession(spb.RefreshSessionRequest(refresh_token="tr_" + "x" * 43)),
        Code.UNAUTHENTICATED,
        "BAD_REFRESH_TOKEN",
    )


async def test_sign_out_and_revocation_end_sessions_and_seat_tokens_at_once(
    client: Client, sessions: spb_grpc.SessionServiceAsyncStub
) -> None:
    gid, _ = await client.new_game(players=2)
    table = await client.stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=4),
        metadata=client.app(),
    )
    other = table.game.game_id
    phone = await open_session(client, sessions, "ana")
    tablet = await open_session(client, sessions, "ana")
    seat = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=other, seat=-1), metadata=bearer(phone.access_token)
    )
    out = await sessions.SignOut(spb.SignOutRequest(), metadata=bearer(phone.access_token))
    assert out.seat_tokens_revoked == 1
    await refused(
        client.stub.GetView(pb.GetViewRequest(game_id=other), metadata=bearer(seat.player_token)),
        Code.UNAUTHENTICATED,
        "BAD_TOKEN",
    )
    # The tablet's session lives on, and takes the player's seat back with a new
    # token, until the app revokes the player.
    again = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=other, seat=-1), metadata=bearer(tablet.access_token)
    )
    assert again.seat == seat.seat and again.player_token != seat.player_token
    seat = again
    revoked = await sessions.RevokePlayer(
        spb.RevokePlayerRequest(player_id="ana"), metadata=client.app()
    )
    assert (revoked.sessions_revoked, revoked.seat_tokens_revoked) == (1, 1)
    for token in (tablet.access_token, seat.player_token):
        await refused(
            client.stub.GetView(pb.GetViewRequest(game_id=other), metadata=bearer(token)),
            Code.UNAUTHENTICATED,
        )
    listed = await sessions.ListPlayerSessions(
        spb.ListPlayerSessionsRequest(player_id="ana"), metadata=client.app()
    )
    assert len(listed.sessions) == 2 and all(s.revoked for s in listed.sessions)
    assert all(s.kind == spb.SESSION_KIND_SERVER for s in listed.sessions)
    assert gid  # the app's other game is untouched
    await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())


async def test_device_and_guest_sign_in_follow_the_apps_policy(
    server: Running, client: Client, sessions: spb_grpc.SessionServiceAsyncStub
) -> None:
    app_id = (await server.store.app_by_key(client.api_key)).id  # type: ignore[union-attr]
    device = uuid.uuid4().hex
    await refused(
        sessions.SignInDevice(spb.SignInDeviceRequest(app_id=app_id, device_id=device)),
        Code.PERMISSION_DENIED,
        "DEVICE_SIGN_IN_DISABLED",
    )
    policy = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    assert policy.session_seconds == 900 and not policy.device_sign_in
    policy.device_sign_in = policy.guest_sign_in = True
    policy.players_create_tables = False
    await sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    first = (
        await sessions.SignInDevice(spb.SignInDeviceRequest(app_id=app_id, device_id=device))
    ).session
    again = (
        await sessions.SignInDevice(spb.SignInDeviceRequest(app_id=app_id, device_id=device))
    ).session
    assert first.player_id == again.player_id and first.player_id.startswith("device:")
    guest = (await sessions.SignInGuest(spb.SignInGuestRequest(app_id=app_id))).session
    assert guest.player_id.startswith("guest:")
    await refused(
        client.stub.CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2),
            metadata=bearer(guest.access_token),
        ),
        Code.PERMISSION_DENIED,
        "PLAYERS_MAY_NOT_CREATE_TABLES",
    )
    await refused(
        sessions.SignInGuest(spb.SignInGuestRequest(app_id="f" * 32)),
        Code.NOT_FOUND,
        "APP_NOT_FOUND",
    )
    policy.session_seconds = 5
    await refused(
        sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app()),
        Code.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    kept = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    assert kept.session_seconds == 900 and kept.guest_sign_in


async def test_a_revoked_app_ends_its_players_sessions(
    server: Running, client: Client, sessions: spb_grpc.SessionServiceAsyncStub
) -> None:
    ana = await open_session(client, sessions, "ana")
    app = await server.store.app_by_key(client.api_key)
    assert app is not None
    await server.store.revoke_app(app.id)
    await refused(
        client.stub.ListGames(pb.ListGamesRequest(), metadata=bearer(ana.access_token)),
        Code.UNAUTHENTICATED,
        "BAD_SESSION",
    )
    await refused(
        sessions.RefreshSession(spb.RefreshSessionRequest(refresh_token=ana.refresh_token)),
        Code.UNAUTHENTICATED,
        "BAD_REFRESH_TOKEN",
    )


async def refresh(sessions: spb_grpc.SessionServiceAsyncStub, token: str) -> spb.PlayerSession:
    done = await sessions.RefreshSession(spb.RefreshSessionRequest(refresh_token=token))
    return done.session


async def test_any_spent_refresh_token_of_the_session_ends_it_not_only_the_last(
    client: Client, sessions: spb_grpc.SessionServiceAsyncStub
) -> None:
    table = await client.stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2),
        metadata=client.app(),
    )
    gid = table.game.game_id
    first = await open_session(client, sessions, "ana")
    second = await refresh(sessions, first.refresh_token)
    third = await refresh(sessions, second.refresh_token)
    seat = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, seat=-1), metadata=bearer(third.access_token)
    )
    await client.stub.ListGames(pb.ListGamesRequest(), metadata=bearer(third.access_token))
    await refused(
        sessions.RefreshSession(spb.RefreshSessionRequest(refresh_token=first.refresh_token)),
        Code.UNAUTHENTICATED,
        "REFRESH_TOKEN_REUSED",
    )
    await refused(
        client.stub.ListGames(pb.ListGamesRequest(), metadata=bearer(third.access_token)),
        Code.UNAUTHENTICATED,
        "BAD_SESSION",
    )
    await refused(
        client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=bearer(seat.player_token)),
        Code.UNAUTHENTICATED,
        "BAD_TOKEN",
    )
    await refused(
        sessions.RefreshSession(spb.RefreshSessionRequest(refresh_token=third.refresh_token)),
        Code.UNAUTHENTICATED,
        "BAD_REFRESH_TOKEN",
    )
    listed = await sessions.ListPlayerSessions(
        spb.ListPlayerSessionsRequest(player_id="ana"), metadata=client.app()
    )
    assert [(s.session_id, s.revoked) for s in listed.sessions] == [(first.session_id, True)]


async def test_two_refreshes_of_one_token_at_once_rotate_it_once_and_end_the_session(
    client: Client, sessions: spb_grpc.SessionServiceAsyncStub
) -> None:
    """Exactly one of them rotates; the other finds the token spent, a reuse, and
    ends the session the first one renewed."""
    for n in range(4):
        opened = await open_session(client, sessions, f"racer{n}")
        answers = await asyncio.gather(
            refresh(sessions, opened.refresh_token),
            refresh(sessions, opened.refresh_token),
            return_exceptions=True,
        )
        rotated = [a for a in answers if isinstance(a, spb.PlayerSession)]
        failed = [a for a in answers if isinstance(a, grpc.aio.AioRpcError)]
        assert len(rotated) == 1 and len(failed) == 1, answers
        assert failed[0].code() == Code.UNAUTHENTICATED
        assert reason_of(failed[0]) == "REFRESH_TOKEN_REUSED"
        await refused(
            client.stub.ListGames(pb.ListGamesRequest(), metadata=bearer(rotated[0].access_token)),
            Code.UNAUTHENTICATED,
            "BAD_SESSION",
        )
        await refused(
            refresh(sessions, rotated[0].refresh_token), Code.UNAUTHENTICATED, "BAD_REFRESH_TOKEN"
        )


async def list_all(
    client: Client,
    sessions: spb_grpc.SessionServiceAsyncStub,
    page_size: int,
    between_pages: Callable[[], Awaitable[object]],
) -> list[str]:
    """Every session id of the app's listing, page by page, ``between_pages`` run
    after each page."""
    seen: list[str] = []
    token = ""
    while True:
        page = await sessions.ListPlayerSessions(
            spb.ListPlayerSessionsRequest(page_size=page_size, page_token=token),
            metadata=client.app(),
        )
        seen += [s.session_id for s in page.sessions]
        token = page.next_page_token
        if not token:
            return seen
        await between_pages()


async def test_paging_the_sessions_keeps_its_place_while_they_are_refreshed(
    client: Client, sessions: spb_grpc.SessionServiceAsyncStub
) -> None:
    opened = [await open_session(client, sessions, f"pager{n}") for n in range(7)]
    untouched = await list_all(client, sessions, 3, lambda: asyncio.sleep(0))
    assert sorted(untouched) == sorted(o.session_id for o in opened)
    listed = await sessions.ListPlayerSessions(
        spb.ListPlayerSessionsRequest(page_size=10), metadata=client.app()
    )
    opened_at = [s.created_at_ms for s in listed.sessions]
    assert opened_at == sorted(opened_at, reverse=True)
    # Between pages the sessions still to come are refreshed, each one once.
    tokens = {o.session_id: o.refresh_token for o in opened}

    async def refresh_the_oldest_left() -> None:
        oldest = untouched[-1 - len(refreshed)]
        tokens[oldest] = (await refresh(sessions, tokens[oldest])).refresh_token
        refreshed.append(oldest)

    refreshed: list[str] = []
    assert await list_all(client, sessions, 3, refresh_the_oldest_left) == untouched
    assert refreshed


async def test_a_page_token_the_server_did_not_make_is_malformed_never_internal(
    client: Client, sessions: spb_grpc.SessionServiceAsyncStub
) -> None:
    await open_session(client, sessions, "ana")

    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    bad = [
        "50",  # a page number of servers before
        "-1",
        "99999999999999999999999",
        "!!!!",
        "\x00",
        b64(b"\x00"),
        b64(b"18446744073709551616:ab"),  # past 64 bits
        b64(b"99999999999999999999999999:ab"),
        b64(b"9223372036854775807:ab"),  # a BIGINT's largest, past what a token holds
        b64(b"-5:ab"),
        b64(b"5:a\x00b"),
        b64(b"5:a'b"),
        b64(b"\xff\xfe"),
        b64(f"{LAST_MICROSECOND + 1}:{'f' * 32}".encode()),  # past the calendar
        b64(b"5:ffff"),  # an id of no session's shape
        "x" * 97,  # past the field's max_chars
    ]
    for token in bad:
        await refused(
            sessions.ListPlayerSessions(
                spb.ListPlayerSessionsRequest(page_token=token), metadata=client.app()
            ),
            Code.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
        )
    # The largest position a token may hold (the calendar's last instant, a session
    # id's shape) reads the same on every database; one past it is malformed.
    last = f"{LAST_MICROSECOND}:{'f' * 32}".encode()
    page = await sessions.ListPlayerSessions(
        spb.ListPlayerSessionsRequest(page_token=b64(last).rstrip("=")),
        metadata=client.app(),
    )
    assert [s.player_id for s in page.sessions] == ["ana"]


async def test_refused_sign_ins_do_not_use_up_the_addresss_sign_ins(
    server: Running, client: Client, sessions: spb_grpc.SessionServiceAsyncStub
) -> None:
    app_id = (await server.store.app_by_key(client.api_key)).id  # type: ignore[union-attr]
    device = uuid.uuid4().hex
    for _ in range(12):  # more than the address's 10 at once
        await refused(
            sessions.SignInDevice(spb.SignInDeviceRequest(app_id=app_id, device_id=device)),
            Code.PERMISSION_DENIED,
            "DEVICE_SIGN_IN_DISABLED",
        )
        await refused(
            sessions.SignInGuest(spb.SignInGuestRequest(app_id=app_id)),
            Code.PERMISSION_DENIED,
            "GUEST_SIGN_IN_DISABLED",
        )
    policy = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.device_sign_in = True
    await sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    for n in range(10):  # each sign-in that opens a session counts, a known device's too
        await sessions.SignInDevice(
            spb.SignInDeviceRequest(app_id=app_id, device_id=device if n % 2 else f"{device}{n}")
        )
    await refused(
        sessions.SignInDevice(spb.SignInDeviceRequest(app_id=app_id, device_id=device)),
        Code.RESOURCE_EXHAUSTED,
        "RATE_LIMITED",
    )
