"""Players' identities as the fake and both databases keep them
(services/identity_sign_in.py's IdentityRepository): an identity links to one
player, the first link wins, and an identity token is spent once until it expires."""

from __future__ import annotations

import asyncio
import uuid

from .conftest import Backend

ISSUER = "https://id.example.test"


async def test_an_identity_never_linked_has_no_player(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    assert await backend.identities.identity_player(app_id, ISSUER, "nobody") is None


async def test_the_first_link_of_an_identity_wins_and_later_ones_read_it(
    backend: Backend,
) -> None:
    app_id, _ = await backend.new_app()
    subject = uuid.uuid4().hex
    first = await backend.identities.link_identity(app_id, ISSUER, subject, "account:a", 1)
    second = await backend.identities.link_identity(app_id, ISSUER, subject, "account:b", 2)
    assert first == ("account:a", True)
    assert second == ("account:a", False)
    assert await backend.identities.identity_player(app_id, ISSUER, subject) == "account:a"


async def test_links_at_once_make_one_player(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    subject = uuid.uuid4().hex
    results = await asyncio.gather(
        *(
            backend.identities.link_identity(app_id, ISSUER, subject, f"account:{n}", 1)
            for n in range(4)
        )
    )
    winners = {player for player, _ in results}
    assert len(winners) == 1
    assert sum(linked for _, linked in results) == 1


async def test_one_subject_of_two_issuers_or_two_apps_is_two_identities(
    backend: Backend,
) -> None:
    app_id, _ = await backend.new_app()
    other_app, _ = await backend.new_app()
    subject = uuid.uuid4().hex
    await backend.identities.link_identity(app_id, ISSUER, subject, "account:a", 1)
    assert await backend.identities.identity_player(app_id, "https://other.test", subject) is None
    assert await backend.identities.identity_player(other_app, ISSUER, subject) is None


async def test_a_token_is_spent_once_until_it_expires(backend: Backend) -> None:
    token = uuid.uuid4().hex
    assert await backend.identities.spend_identity_token(token, 1_000, 500) is True
    assert await backend.identities.spend_identity_token(token, 1_000, 900) is False
    # Past its expiry it may be forgotten: it no longer verifies anyway.
    other = uuid.uuid4().hex
    assert await backend.identities.spend_identity_token(other, 5_000, 2_000) is True
    assert await backend.identities.spend_identity_token(token, 9_000, 2_000) is True


async def test_a_players_identities_list_oldest_first_and_unlink_keeps_one_where_asked(
    backend: Backend,
) -> None:
    app_id, _ = await backend.new_app()
    player = f"account:{uuid.uuid4().hex}"
    await backend.identities.link_identity(app_id, ISSUER, "first", player, 10)
    await backend.identities.link_identity(app_id, "custom", "second", player, 20)
    listed = await backend.identities.identities_of(app_id, player)
    assert [(i.issuer, i.subject, i.linked_at) for i in listed] == [
        (ISSUER, "first", 10),
        ("custom", "second", 20),
    ]
    unlink = backend.identities.unlink_identity
    assert await unlink(app_id, ISSUER, "first", "someone-else", keep_one=True) == "not_linked"
    assert await unlink(app_id, ISSUER, "first", player, keep_one=True) == "unlinked"
    assert await unlink(app_id, "custom", "second", player, keep_one=True) == "last"
    assert await unlink(app_id, "custom", "second", player, keep_one=False) == "unlinked"
    assert await backend.identities.identities_of(app_id, player) == []


async def test_two_unlinks_at_once_leave_one_identity(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    player = f"account:{uuid.uuid4().hex}"
    await backend.identities.link_identity(app_id, ISSUER, "a", player, 1)
    await backend.identities.link_identity(app_id, ISSUER, "b", player, 2)
    outcomes = await asyncio.gather(
        backend.identities.unlink_identity(app_id, ISSUER, "a", player, keep_one=True),
        backend.identities.unlink_identity(app_id, ISSUER, "b", player, keep_one=True),
    )
    assert sorted(outcomes) == ["last", "unlinked"]
    assert len(await backend.identities.identities_of(app_id, player)) == 1


async def test_a_profile_reads_back_and_a_unique_name_key_is_one_players(
    backend: Backend,
) -> None:
    from tranca.services.profiles import Profile

    app_id, _ = await backend.new_app()
    ana, bia = Profile("Ana", "", "pt-BR", "BR"), Profile("ANA", "", "", "")
    assert await backend.profiles.profile(app_id, "ana") is None
    assert await backend.profiles.save_profile(app_id, "ana", ana, "ana", 1) is True
    assert await backend.profiles.profile(app_id, "ana") == ana
    assert await backend.profiles.save_profile(app_id, "bia", bia, "ana", 2) is False
    assert await backend.profiles.profile(app_id, "bia") is None
    # Without a key (names not unique) any number share a name.
    assert await backend.profiles.save_profile(app_id, "bia", bia, None, 3) is True
    assert await backend.profiles.save_profile(app_id, "cid", bia, None, 3) is True
    # Its own key again, changed otherwise: saved.
    moved = Profile("Ana", "", "", "PT")
    assert await backend.profiles.save_profile(app_id, "ana", moved, "ana", 4) is True
    assert await backend.profiles.profile(app_id, "ana") == moved
