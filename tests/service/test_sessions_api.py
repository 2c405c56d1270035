"""Players' own sessions through a real channel, on SQLite and PostgreSQL: the end
user's flow (the app's backend opens a session, the client creates or joins a table
and plays with its seat token), refresh with rotation, sign-out and revocation that
end every credential at once, device and guest sign-in behind the app's policy, and
the typed refusals (docs/APP_GUIDE.md, "Players' own sessions")."""

from __future__ import annotations

import uuid

import grpc
import pytest

from tranca.server import Running
from tranca.v1 import game_pb2 as pb
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .conftest import Client, move_first_legal
from .test_api import refused

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
