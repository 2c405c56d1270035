"""SignInWithIdentity through a real channel, on SQLite and PostgreSQL, against an
OpenID Connect issuer of the test's own whose keys are published over HTTPS on
127.0.0.1 (a certificate from a test authority the server is told to trust, the
address allowed by --outbound-allow, the host name known only to the server's
resolver): the first sign-in of an identity makes its player and later ones sign
that player in; rotated keys are fetched; every token that must not open a session
(unknown key, expired, not yet valid, for another audience or issuer, unsigned, an
HMAC keyed with the public key, replayed) is refused and opens none; a provider
down or too slow is served from the keys kept, or answered UNAVAILABLE; and two
first sign-ins of one identity on two replicas at once make one player."""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
import trustme

from tests.harness.clients import Client
from tests.harness.identity import CLIENT_ID, ISSUER, KeyServer, LocalIssuer
from tests.harness.servers import app_client, running_server, server_config
from tests.usecases.fakes import FakeResolver
from tranca.server import Running
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .api_calls import reason_of, refused

KEYS_HOST = "keys.example.test"


@dataclass
class IdentityWorld:
    servers: list[Running]
    clients: list[Client]
    app_id: str
    issuer: LocalIssuer
    keys: KeyServer

    def sessions(self, n: int = 0) -> spb_grpc.SessionServiceAsyncStub:
        return spb_grpc.SessionServiceStub(self.clients[n].channel)

    async def sign_in(
        self, token: str, n: int = 0, **fields: Any
    ) -> spb.SignInWithIdentityResponse:
        request = spb.SignInWithIdentityRequest(
            app_id=self.app_id, provider="corp", id_token=token, **fields
        )
        return await self.sessions(n).SignInWithIdentity(request)

    async def guest(self, n: int = 0) -> spb.PlayerSession:
        request = spb.SignInGuestRequest(app_id=self.app_id, display_name="Visitor")
        return (await self.sessions(n).SignInGuest(request)).session

    async def link(self, session: spb.PlayerSession, token: str, n: int = 0) -> spb.LinkedIdentity:
        request = spb.LinkIdentityRequest(provider="corp", id_token=token)
        bearer = (("authorization", f"Bearer {session.access_token}"),)
        return (await self.sessions(n).LinkIdentity(request, metadata=bearer)).identity

    async def session_count(self) -> int:
        listed = await self.sessions().ListPlayerSessions(
            spb.ListPlayerSessionsRequest(page_size=500), metadata=self.clients[0].app()
        )
        return len(listed.sessions)


async def identity_world(
    url: str, tmp_path: Path, replicas: int = 1
) -> AsyncIterator[IdentityWorld]:
    ca = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(KEYS_HOST).configure_cert(context)
    issuer = LocalIssuer()
    keys = KeyServer(issuer, context, KEYS_HOST)
    await keys.start()
    config = server_config(
        url,
        outbound_allow="127.0.0.1/32",
        outbound_ca_file=str(ca_file),
        identity_keys_refresh=0.0,
    )
    async with AsyncExitStack() as stack:
        stack.push_async_callback(keys.stop)
        names = FakeResolver({KEYS_HOST: ["127.0.0.1"]})
        servers = [
            await stack.enter_async_context(running_server(config, resolver=names))
            for _ in range(replicas)
        ]
        first = await stack.enter_async_context(app_client(servers[0]))
        clients = [first]
        for running in servers[1:]:
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
            stack.push_async_callback(channel.close)
            clients.append(Client(channel, first.api_key))
        policy = spb.AppPolicy(
            guest_sign_in=True,
            session_seconds=900,
            refresh_seconds=86400,
            players_create_tables=True,
            competitive=True,
            identity_providers=[
                spb.IdentityProvider(
                    name="corp",
                    issuer=ISSUER,
                    jwks_uri=keys.url,
                    client_ids=[CLIENT_ID],
                    algorithms=["RS256"],
                )
            ],
        )
        stub: spb_grpc.SessionServiceAsyncStub = spb_grpc.SessionServiceStub(first.channel)
        await stub.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=first.app())
        app = await servers[0].store.app_by_key(first.api_key)
        assert app is not None
        yield IdentityWorld(servers, clients, app.id, issuer, keys)


@pytest.fixture
async def world(db_url: str, tmp_path: Path) -> AsyncIterator[IdentityWorld]:
    async for made in identity_world(db_url, tmp_path):
        yield made


def now() -> int:
    return int(time.time())


async def test_an_identity_signs_in_one_player_whose_session_plays(world: IdentityWorld) -> None:
    first = await world.sign_in(world.issuer.token(now()))
    assert first.new_player
    assert first.session.player_id.startswith("account:")
    assert first.session.display_name == "Ana Souza"
    again = await world.sign_in(world.issuer.token(now()), display_name="Ana")
    assert not again.new_player
    assert again.session.player_id == first.session.player_id
    # The session is one like any other: it lists the lobby with its bearer token.
    bearer = (("authorization", f"Bearer {again.session.access_token}"),)
    await world.clients[0].stub.ListOpenTables(gpb.ListOpenTablesRequest(), metadata=bearer)
    assert world.keys.gets == 1  # the keys were kept between the two


async def test_a_token_opens_one_session(world: IdentityWorld) -> None:
    token = world.issuer.token(now())
    await world.sign_in(token)
    await refused(world.sign_in(token), grpc.StatusCode.UNAUTHENTICATED, "ID_TOKEN_REPLAYED")
    assert await world.session_count() == 1


async def test_rotated_keys_are_fetched_and_unknown_ones_refused(world: IdentityWorld) -> None:
    await world.sign_in(world.issuer.token(now()))
    world.issuer.rotate(keep_old=False)
    rotated = await world.sign_in(world.issuer.token(now(), sub="user-2"))
    assert rotated.new_player
    assert world.keys.gets == 2
    err = await refused(
        world.sign_in(world.issuer.token(now(), kid="no-such-key", sub="user-3")),
        grpc.StatusCode.UNAUTHENTICATED,
        "ID_TOKEN_INVALID",
    )
    assert "no key" in (err.details() or "")


async def test_tokens_that_must_not_sign_in_are_refused_and_open_nothing(
    world: IdentityWorld,
) -> None:
    t = now()
    issuer = world.issuer
    bad = {
        "expired": issuer.token(t, iat=t - 900, exp=t - 300),
        "not yet valid": issuer.token(t, nbf=t + 600),
        "issued in the future": issuer.token(t, iat=t + 600, exp=t + 1200),
        "another audience": issuer.token(t, aud="another-client"),
        "another issuer": issuer.token(t, iss="https://evil.example.test"),
        "alg none": issuer.unsigned_token(t),
        "HS256 keyed with the public key": issuer.hmac_with_public_key(t),
        "signed by a stranger": LocalIssuer().token(t, kid=issuer.key.kid),
    }
    refusals = {}
    for what, token in bad.items():
        err = await refused(world.sign_in(token), grpc.StatusCode.UNAUTHENTICATED)
        refusals[what] = reason_of(err)
    assert refusals == dict.fromkeys(bad, "ID_TOKEN_INVALID")
    assert await world.session_count() == 0
    await refused(world.sign_in("not.a.token"), grpc.StatusCode.UNAUTHENTICATED, "ID_TOKEN_INVALID")


async def test_a_provider_down_or_slow_is_served_from_its_keys_kept_or_unavailable(
    world: IdentityWorld,
) -> None:
    # Nothing kept: down is UNAVAILABLE at once, too slow after the fetch's timeout.
    world.keys.mode = "down"
    await refused(
        world.sign_in(world.issuer.token(now())),
        grpc.StatusCode.UNAVAILABLE,
        "IDENTITY_KEYS_UNAVAILABLE",
    )
    world.keys.mode = "hang"
    await refused(
        world.sign_in(world.issuer.token(now())),
        grpc.StatusCode.UNAVAILABLE,
        "IDENTITY_KEYS_UNAVAILABLE",
    )
    world.keys.mode = "ok"
    await world.sign_in(world.issuer.token(now()))
    # Down, then too slow: a key the kept set lists still verifies.
    world.keys.mode = "down"
    world.issuer.rotate(keep_old=True)  # an unknown key: the server asks, and is refused
    await refused(
        world.sign_in(world.issuer.token(now(), sub="user-2")),
        grpc.StatusCode.UNAUTHENTICATED,
        "ID_TOKEN_INVALID",
    )
    old = world.issuer.keys[0]
    await world.sign_in(world.issuer.token(now(), key=old, sub="user-3"))
    world.keys.mode = "hang"
    started = time.monotonic()
    await world.sign_in(world.issuer.token(now(), key=old, sub="user-4"))
    assert time.monotonic() - started < 1.0  # a known key: no fetch at all


async def test_a_new_identity_on_two_replicas_at_once_makes_one_player(
    pg_url: str, tmp_path: Path
) -> None:
    async for world in identity_world(pg_url, tmp_path, replicas=2):
        for n in range(3):
            subject = f"racer-{n}-{time.time_ns()}"
            answers = await asyncio.gather(
                world.sign_in(world.issuer.token(now(), sub=subject), 0),
                world.sign_in(world.issuer.token(now(), sub=subject), 1),
            )
            assert answers[0].session.player_id == answers[1].session.player_id
            assert sorted(a.new_player for a in answers) == [False, True]


async def test_a_guest_links_an_identity_and_keeps_its_player(world: IdentityWorld) -> None:
    guest = await world.guest()
    linked = await world.link(guest, world.issuer.token(now()))
    assert (linked.provider, linked.issuer, linked.subject) == ("corp", ISSUER, "user-1")
    signed = await world.sign_in(world.issuer.token(now()))
    assert not signed.new_player
    assert signed.session.player_id == guest.player_id
    bearer = (("authorization", f"Bearer {signed.session.access_token}"),)
    listed = await world.sessions().ListIdentities(spb.ListIdentitiesRequest(), metadata=bearer)
    assert [i.subject for i in listed.identities] == ["user-1"]
    await world.sessions().UnlinkIdentity(
        spb.UnlinkIdentityRequest(issuer=ISSUER, subject="user-1"), metadata=bearer
    )
    # Unlinked, the identity is new again: its next sign-in makes a player.
    fresh = await world.sign_in(world.issuer.token(now()))
    assert fresh.new_player and fresh.session.player_id != guest.player_id
    # That player's only identity stays.
    mine = (("authorization", f"Bearer {fresh.session.access_token}"),)
    await refused(
        world.sessions().UnlinkIdentity(
            spb.UnlinkIdentityRequest(issuer=ISSUER, subject="user-1"), metadata=mine
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "LAST_IDENTITY",
    )


async def test_one_identity_linked_by_two_guests_on_two_replicas_at_once_goes_to_one(
    pg_url: str, tmp_path: Path
) -> None:
    async for world in identity_world(pg_url, tmp_path, replicas=2):
        for n in range(3):
            subject = f"contested-{n}-{time.time_ns()}"
            guests = [await world.guest(0), await world.guest(1)]
            outcomes = await asyncio.gather(
                *(world.link(guests[r], world.issuer.token(now(), sub=subject), r) for r in (0, 1)),
                return_exceptions=True,
            )
            won = [o for o in outcomes if isinstance(o, spb.LinkedIdentity)]
            lost = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
            assert len(won) == 1 and len(lost) == 1, outcomes
            assert reason_of(lost[0]) == "IDENTITY_ALREADY_LINKED"
            winner = guests[outcomes.index(won[0])]
            signed = await world.sign_in(world.issuer.token(now(), sub=subject))
            assert signed.session.player_id == winner.player_id
