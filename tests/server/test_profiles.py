"""Players' profiles through a real channel, on SQLite and PostgreSQL: a session
reads and changes its player's profile, the app and other players read its public
part, and a unique name taken by two players at once, on two replicas, goes to one."""

from __future__ import annotations

import asyncio

import grpc

from tests.harness.clients import Client
from tests.harness.servers import app_client
from tranca.server import Running
from tranca.v1 import game_pb2 as pb
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .api_calls import reason_of, refused


def sessions(client: Client) -> spb_grpc.SessionServiceAsyncStub:
    return spb_grpc.SessionServiceStub(client.channel)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def policy_with_profiles(client: Client) -> None:
    stub = sessions(client)
    policy = (await stub.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.unique_display_names = True
    policy.avatar_hosts.append("cdn.example.com")
    await stub.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())


async def player(client: Client, player_id: str) -> tuple[tuple[str, str], ...]:
    opened = await sessions(client).CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=player_id, display_name=player_id.title()),
        metadata=client.app(),
    )
    return bearer(opened.session.access_token)


async def test_a_player_sets_its_profile_and_others_read_its_public_part(
    client: Client,
) -> None:
    await policy_with_profiles(client)
    stub = sessions(client)
    ana = await player(client, "ana")
    own = (await stub.GetProfile(spb.GetProfileRequest(), metadata=ana)).profile
    assert (own.player_id, own.display_name) == ("ana", "Ana")
    changed = await stub.UpdateProfile(
        spb.UpdateProfileRequest(
            display_name="Ana Souza",
            avatar_url="https://cdn.example.com/ana.png",
            locale="pt-br",
            country="br",
        ),
        metadata=ana,
    )
    assert (changed.profile.locale, changed.profile.country) == ("pt-BR", "BR")
    # Only the fields sent change.
    kept = await stub.UpdateProfile(spb.UpdateProfileRequest(country="PT"), metadata=ana)
    assert (kept.profile.display_name, kept.profile.country) == ("Ana Souza", "PT")
    bia = await player(client, "bia")
    for credentials in (bia, client.app()):
        public = (
            await stub.GetPlayerProfile(
                spb.GetPlayerProfileRequest(player_id="ana"), metadata=credentials
            )
        ).profile
        assert (public.display_name, public.avatar_url, public.locale, public.country) == (
            "Ana Souza",
            "https://cdn.example.com/ana.png",
            "",
            "PT",
        )
    await refused(
        stub.UpdateProfile(spb.UpdateProfileRequest(display_name="ANA SOUZA"), metadata=bia),
        grpc.StatusCode.ALREADY_EXISTS,
        "DISPLAY_NAME_TAKEN",
    )
    await refused(
        stub.UpdateProfile(
            spb.UpdateProfileRequest(avatar_url="https://evil.example.net/x.png"), metadata=bia
        ),
        grpc.StatusCode.PERMISSION_DENIED,
        "AVATAR_HOST_NOT_ALLOWED",
    )
    await refused(
        stub.UpdateProfile(spb.UpdateProfileRequest(display_name="\u200b"), metadata=bia),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    await refused(
        stub.GetPlayerProfile(spb.GetPlayerProfileRequest(player_id="nobody"), metadata=bia),
        grpc.StatusCode.NOT_FOUND,
        "PROFILE_NOT_FOUND",
    )
    # A table's seats at once: those who set a profile, in the order asked.
    many = await stub.GetPlayerProfiles(
        spb.GetPlayerProfilesRequest(player_ids=["nobody", "ana"]), metadata=bia
    )
    assert [(p.player_id, p.country, p.locale) for p in many.profiles] == [("ana", "PT", "")]
    await refused(
        stub.GetPlayerProfiles(spb.GetPlayerProfilesRequest(), metadata=bia),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )


async def test_the_seats_a_player_takes_after_a_new_name_carry_it(client: Client) -> None:
    ana = await player(client, "ana")
    await sessions(client).UpdateProfile(
        spb.UpdateProfileRequest(display_name="Estrela"), metadata=ana
    )
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2),
        metadata=client.app(),
    )
    game_id = created.game.game_id
    await client.stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=0), metadata=ana)
    view = (
        await client.stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=client.app())
    ).view
    assert view.seats[0].player_name == "Estrela"


async def test_one_unique_name_taken_at_once_on_two_replicas_goes_to_one(
    replicas: list[Running],
) -> None:
    async with app_client(replicas[0]) as first:
        await policy_with_profiles(first)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{replicas[1].port}") as channel:
            second = Client(channel, first.api_key)
            for n in range(3):
                name = f"Estrela {n}"
                a = await player(first, f"a{n}")
                b = await player(second, f"b{n}")
                outcomes = await asyncio.gather(
                    sessions(first).UpdateProfile(
                        spb.UpdateProfileRequest(display_name=name), metadata=a
                    ),
                    sessions(second).UpdateProfile(
                        spb.UpdateProfileRequest(display_name=name.upper()), metadata=b
                    ),
                    return_exceptions=True,
                )
                won = [o for o in outcomes if isinstance(o, spb.UpdateProfileResponse)]
                lost = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
                assert len(won) == 1 and len(lost) == 1, outcomes
                assert reason_of(lost[0]) == "DISPLAY_NAME_TAKEN"
