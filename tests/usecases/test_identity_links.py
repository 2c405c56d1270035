"""A signed-in player's identities (services/identity_links.py), against the fakes: a
guest links an identity and from then on signs in as the same player; an identity
belongs to one player, never moved; the last identity of an account is kept."""

from __future__ import annotations

import pytest

from tests.harness.identity import CLIENT_ID, ISSUER, LocalIssuer
from tranca.services.access import Credentials
from tranca.services.errors import Refused
from tranca.services.identity_links import IdentityLinks
from tranca.services.identity_providers import IdentityProvider
from tranca.services.identity_sign_in import IdentitySignIn
from tranca.services.key_sets import KeySets
from tranca.services.policy import AppPolicy

from .conftest import World
from .fakes import IdentitiesMemory
from .test_identity_sign_in import JWKS, Published, client, refused

PROVIDER = IdentityProvider("corp", ISSUER, JWKS, (CLIENT_ID,), ("RS256",))


@pytest.fixture
def issuer() -> LocalIssuer:
    return LocalIssuer()


@pytest.fixture
async def both(world: World, issuer: LocalIssuer) -> tuple[IdentitySignIn, IdentityLinks]:
    await world.sessions.set_policy(
        world.as_app(), AppPolicy(guest_sign_in=True, identity_providers=(PROVIDER,))
    )
    repo = IdentitiesMemory()
    sign_in = IdentitySignIn(
        world.sessions, repo, KeySets(Published(issuer)), lambda: world.repo.now
    )
    return sign_in, IdentityLinks(world.access, sign_in, repo)


def session(token: str) -> Credentials:
    return Credentials(token=token, peer=lambda: "198.51.100.1")


async def test_a_guest_links_an_identity_and_signs_in_as_itself_after(
    world: World, issuer: LocalIssuer, both: tuple[IdentitySignIn, IdentityLinks]
) -> None:
    sign_in, links = both
    now = world.repo.now // 1000
    guest = await world.sessions.sign_in_guest(client(), world.app.id, "Visitor")
    linked = await links.link(session(guest.access_token), "corp", issuer.token(now))
    assert (linked.provider, linked.issuer, linked.subject) == ("corp", ISSUER, "user-1")
    again = await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now))
    assert not again.new_player
    assert again.issued.player_id == guest.player_id  # the guest's games are its games
    # Linking it again is what it was: nothing changes.
    twice = await links.link(session(guest.access_token), "corp", issuer.token(now))
    assert twice == linked
    assert await links.identities(session(guest.access_token)) == [linked]


async def test_an_identity_of_another_player_is_never_moved(
    world: World, issuer: LocalIssuer, both: tuple[IdentitySignIn, IdentityLinks]
) -> None:
    sign_in, links = both
    now = world.repo.now // 1000
    owner = await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now))
    guest = await world.sessions.sign_in_guest(client(), world.app.id, "Visitor")
    await refused(
        "IDENTITY_ALREADY_LINKED",
        links.link(session(guest.access_token), "corp", issuer.token(now)),
    )
    back = await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now))
    assert back.issued.player_id == owner.issued.player_id


async def test_linking_spends_the_token_and_needs_a_session(
    world: World, issuer: LocalIssuer, both: tuple[IdentitySignIn, IdentityLinks]
) -> None:
    _, links = both
    now = world.repo.now // 1000
    guest = await world.sessions.sign_in_guest(client(), world.app.id, "Visitor")
    token = issuer.token(now)
    await links.link(session(guest.access_token), "corp", token)
    await refused("ID_TOKEN_REPLAYED", links.link(session(guest.access_token), "corp", token))
    await refused("SESSION_TOKEN_REQUIRED", links.link(world.as_app(), "corp", issuer.token(now)))
    await refused(
        "ID_TOKEN_INVALID",
        links.link(session(guest.access_token), "corp", issuer.token(now, aud="other")),
    )


async def test_the_last_identity_of_an_account_is_kept(
    world: World, issuer: LocalIssuer, both: tuple[IdentitySignIn, IdentityLinks]
) -> None:
    sign_in, links = both
    now = world.repo.now // 1000
    account = await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now))
    me = session(account.issued.access_token)
    err = await refused("LAST_IDENTITY", links.unlink(me, ISSUER, "user-1"))
    assert "only way" in err.message
    await links.link(me, "corp", issuer.token(now, sub="user-1-work"))
    await links.unlink(me, ISSUER, "user-1")
    assert [i.subject for i in await links.identities(me)] == ["user-1-work"]
    await refused("IDENTITY_NOT_LINKED", links.unlink(me, ISSUER, "user-1"))
    # A guest's player keeps its own way in: its identities may all go.
    guest = await world.sessions.sign_in_guest(client(), world.app.id, "Visitor")
    mine = session(guest.access_token)
    await links.link(mine, "corp", issuer.token(now, sub="guest-id"))
    await links.unlink(mine, ISSUER, "guest-id")
    assert await links.identities(mine) == []


async def test_an_identity_not_the_callers_cannot_be_unlinked(
    world: World, issuer: LocalIssuer, both: tuple[IdentitySignIn, IdentityLinks]
) -> None:
    sign_in, links = both
    now = world.repo.now // 1000
    await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now, sub="ana"))
    guest = await world.sessions.sign_in_guest(client(), world.app.id, "Visitor")
    with pytest.raises(Refused) as caught:
        await links.unlink(session(guest.access_token), ISSUER, "ana")
    assert caught.value.reason == "IDENTITY_NOT_LINKED"
