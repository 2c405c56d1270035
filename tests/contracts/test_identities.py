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
