"""Signing in with an identity the player already has (services/identity_sign_in.py),
against the in-memory fakes and a key fetcher the tests control: an ID token of an
app's provider, or a custom token of the app's backend, opens a session for the
identity's player; every token that must not (forged, expired, for someone else,
replayed) is refused and opens nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.harness.identity import (
    CLIENT_ID,
    ISSUER,
    LocalIssuer,
    custom_key,
    custom_token,
    public_jwk,
)
from tranca.services.access import Credentials
from tranca.services.errors import Refused
from tranca.services.identity_providers import CustomTokenKey, IdentityProvider
from tranca.services.identity_sign_in import ACCOUNT_PREFIX, IdentitySignIn
from tranca.services.key_sets import KeySets, KeysUnavailable
from tranca.services.policy import AppPolicy

from .conftest import World
from .fakes import IdentitiesMemory

JWKS = "https://id.example.test/jwks"
PROVIDER = IdentityProvider("corp", ISSUER, JWKS, (CLIENT_ID,), ("RS256",))


class Published:
    """The issuer's key set as a fetcher sees it: served, or down."""

    def __init__(self, issuer: LocalIssuer) -> None:
        self.issuer = issuer
        self.down = False
        self.fetches = 0

    async def fetch(self, url: str) -> dict[str, Any]:
        assert url == JWKS
        self.fetches += 1
        if self.down:
            raise KeysUnavailable("down")
        return self.issuer.key_set()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def issuer() -> LocalIssuer:
    return LocalIssuer()


@pytest.fixture
def published(issuer: LocalIssuer) -> Published:
    return Published(issuer)


@pytest.fixture
def keys_clock() -> Clock:
    return Clock()


@pytest.fixture
async def sign_in(world: World, published: Published, keys_clock: Clock) -> IdentitySignIn:
    await world.sessions.set_policy(world.as_app(), AppPolicy(identity_providers=(PROVIDER,)))
    key_sets = KeySets(published, ttl=3600, min_refresh=30, clock=keys_clock)
    return IdentitySignIn(world.sessions, IdentitiesMemory(), key_sets, lambda: world.repo.now)


def now_s(world: World) -> int:
    return world.repo.now // 1000


async def refused(reason: str, call: object) -> Refused:
    with pytest.raises(Refused) as caught:
        await call  # type: ignore[misc]
    assert caught.value.reason == reason, caught.value.message
    return caught.value


def client(peer: str = "198.51.100.1") -> Credentials:
    return Credentials(peer=lambda: peer)


async def test_an_id_token_signs_in_the_same_player_each_time(
    world: World, sign_in: IdentitySignIn, issuer: LocalIssuer
) -> None:
    first = await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now_s(world)))
    assert first.new_player and first.issued.player_id.startswith(ACCOUNT_PREFIX)
    assert first.issued.display_name == "Ana Souza"  # the token's name claim
    again = await sign_in.sign_in(
        client(), world.app.id, "corp", issuer.token(now_s(world)), display_name="Ana"
    )
    assert not again.new_player
    assert again.issued.player_id == first.issued.player_id
    assert again.issued.display_name == "Ana"
    other = await sign_in.sign_in(
        client(), world.app.id, "corp", issuer.token(now_s(world), sub="user-2")
    )
    assert other.new_player and other.issued.player_id != first.issued.player_id


async def test_the_session_it_opens_is_a_session_like_any_other(
    world: World, sign_in: IdentitySignIn, issuer: LocalIssuer
) -> None:
    signed = await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now_s(world)))
    caller = await world.access.identify(Credentials(token=signed.issued.access_token))
    assert caller.session is not None
    assert caller.session.player_id == signed.issued.player_id


async def test_a_token_opens_one_session(
    world: World, sign_in: IdentitySignIn, issuer: LocalIssuer
) -> None:
    token = issuer.token(now_s(world))
    await sign_in.sign_in(client(), world.app.id, "corp", token)
    await refused("ID_TOKEN_REPLAYED", sign_in.sign_in(client(), world.app.id, "corp", token))


@pytest.mark.parametrize(
    ("changes", "what"),
    [
        ({"exp": -120}, "expired"),
        ({"nbf": 300}, "not valid yet"),
        ({"iat": 300}, "not valid yet"),
        ({"aud": "someone-else"}, "aud"),
        ({"iss": "https://evil.example.test"}, "iss"),
        ({"sub": None}, "sub"),
        ({"exp": None}, "exp"),
    ],
)
async def test_a_token_whose_claims_do_not_hold_is_refused(
    world: World, sign_in: IdentitySignIn, issuer: LocalIssuer, changes: dict[str, Any], what: str
) -> None:
    now = now_s(world)
    relative = {k: now + v if k in ("exp", "nbf", "iat") and v is not None else v
                for k, v in changes.items()}  # fmt: skip
    token = issuer.token(now, **relative)
    err = await refused("ID_TOKEN_INVALID", sign_in.sign_in(client(), world.app.id, "corp", token))
    assert what in err.message


async def test_clocks_a_minute_apart_still_agree(
    world: World, sign_in: IdentitySignIn, issuer: LocalIssuer
) -> None:
    now = now_s(world)
    late = issuer.token(now, exp=now - 30)  # expired 30 s ago by our clock
    early = issuer.token(now, iat=now + 30, sub="user-2")  # issued 30 s ahead
    await sign_in.sign_in(client(), world.app.id, "corp", late)
    await sign_in.sign_in(client(), world.app.id, "corp", early)


async def test_tokens_not_signed_by_the_provider_are_refused(
    world: World, sign_in: IdentitySignIn, issuer: LocalIssuer
) -> None:
    now = now_s(world)
    stranger = LocalIssuer()
    forged = [
        issuer.unsigned_token(now),  # alg none
        issuer.hmac_with_public_key(now),  # HS256 keyed with the public key
        stranger.token(now, kid=issuer.key.kid),  # another key under the right kid
        issuer.token(now)[:-4] + "AAAA",  # a signature changed
    ]
    for token in forged:
        await refused("ID_TOKEN_INVALID", sign_in.sign_in(client(), world.app.id, "corp", token))


async def test_a_nonce_the_client_sent_must_be_in_the_token(
    world: World, sign_in: IdentitySignIn, issuer: LocalIssuer
) -> None:
    now = now_s(world)
    await refused(
        "ID_TOKEN_INVALID",
        sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now), nonce="n-1"),
    )
    await refused(
        "ID_TOKEN_INVALID",
        sign_in.sign_in(
            client(), world.app.id, "corp", issuer.token(now, nonce="n-2", sub="b"), nonce="n-1"
        ),
    )
    await sign_in.sign_in(
        client(), world.app.id, "corp", issuer.token(now, nonce="n-1", sub="c"), nonce="n-1"
    )


async def test_a_rotated_key_is_fetched_once_it_signs(
    world: World,
    sign_in: IdentitySignIn,
    issuer: LocalIssuer,
    published: Published,
    keys_clock: Clock,
) -> None:
    now = now_s(world)
    await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now))
    assert published.fetches == 1
    await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now, sub="b"))
    assert published.fetches == 1  # kept
    issuer.rotate(keep_old=False)
    # Moments after the last fetch an unknown key is not looked for again...
    await refused(
        "ID_TOKEN_INVALID",
        sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now, sub="c")),
    )
    assert published.fetches == 1
    # ...and once the refresh interval has passed it is.
    keys_clock.now += 31
    await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now, sub="d"))
    assert published.fetches == 2


async def test_a_made_up_key_id_is_refused_without_fetching_each_time(
    world: World, sign_in: IdentitySignIn, issuer: LocalIssuer, published: Published
) -> None:
    now = now_s(world)
    await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now))
    for n in range(5):
        err = await refused(
            "ID_TOKEN_INVALID",
            sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now, kid=f"made-up-{n}")),
        )
        assert "no key" in err.message
    assert published.fetches == 1


async def test_a_provider_down_is_served_from_the_keys_kept_or_unavailable(
    world: World,
    sign_in: IdentitySignIn,
    issuer: LocalIssuer,
    published: Published,
    keys_clock: Clock,
) -> None:
    now = now_s(world)
    published.down = True
    await refused(
        "IDENTITY_KEYS_UNAVAILABLE",
        sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now)),
    )
    published.down = False
    await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now, sub="b"))
    published.down = True
    keys_clock.now += 7200  # the keys kept are stale, and the provider is down
    await sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now, sub="c"))


async def test_providers_the_policy_does_not_name_are_refused(
    world: World, sign_in: IdentitySignIn, issuer: LocalIssuer
) -> None:
    token = issuer.token(now_s(world))
    await refused(
        "IDENTITY_PROVIDER_UNKNOWN", sign_in.sign_in(client(), world.app.id, "google", token)
    )
    await refused(
        "IDENTITY_PROVIDER_UNKNOWN", sign_in.sign_in(client(), world.app.id, "custom", token)
    )
    await world.sessions.set_policy(world.as_app(), AppPolicy())
    await refused(
        "IDENTITY_SIGN_IN_DISABLED", sign_in.sign_in(client(), world.app.id, "corp", token)
    )
    await refused("APP_NOT_FOUND", sign_in.sign_in(client(), "0" * 32, "corp", token))
    await refused("MALFORMED_REQUEST", sign_in.sign_in(client(), world.app.id, "", token))
    await refused("MALFORMED_REQUEST", sign_in.sign_in(client(), world.app.id, "corp", " "))


@pytest.mark.parametrize("algorithm", ["EdDSA", "ES256", "RS256"])
async def test_a_custom_token_signs_in_the_apps_own_player(
    world: World, sign_in: IdentitySignIn, algorithm: str
) -> None:
    key = custom_key(algorithm)
    policy = AppPolicy(custom_token_keys=(CustomTokenKey("backend-1", algorithm, public_jwk(key)),))
    await world.sessions.set_policy(world.as_app(), policy)
    now = now_s(world)
    token = custom_token(key, algorithm, world.app.id, "player-42", now)
    signed = await sign_in.sign_in(client(), world.app.id, "custom", token, display_name="Bia")
    assert signed.issued.player_id == "player-42"
    assert signed.new_player
    again = custom_token(key, algorithm, world.app.id, "player-42", now, jti="2")
    assert not (await sign_in.sign_in(client(), world.app.id, "custom", again)).new_player


async def test_custom_tokens_that_must_not_sign_in_are_refused(
    world: World, sign_in: IdentitySignIn
) -> None:
    key = custom_key("EdDSA")
    policy = AppPolicy(custom_token_keys=(CustomTokenKey("backend-1", "EdDSA", public_jwk(key)),))
    await world.sessions.set_policy(world.as_app(), policy)
    now = now_s(world)
    app = world.app.id
    bad = {
        "for another app": custom_token(key, "EdDSA", "another-app", "p", now),
        "living an hour": custom_token(key, "EdDSA", app, "p", now, exp=now + 3600),
        "signed by another key": custom_token(custom_key("EdDSA"), "EdDSA", app, "p", now),
        "a server-made id": custom_token(key, "EdDSA", app, "guest:abc", now),
        "expired": custom_token(key, "EdDSA", app, "p", now - 1000),
    }
    for what, token in bad.items():
        with pytest.raises(Refused) as caught:
            await sign_in.sign_in(client(), app, "custom", token)
        assert caught.value.reason == "ID_TOKEN_INVALID", what


async def test_a_policy_refuses_providers_and_keys_out_of_shape(world: World) -> None:
    private = custom_key("EdDSA")
    cases = [
        AppPolicy(identity_providers=(IdentityProvider("corp", ISSUER, JWKS, ()),)),
        AppPolicy(identity_providers=(IdentityProvider("corp", "http://plain", JWKS, ("c",)),)),
        AppPolicy(identity_providers=(IdentityProvider("corp", ISSUER, "", ("c",)),)),
        AppPolicy(identity_providers=(IdentityProvider("corp", ISSUER, JWKS, ("c",), ("HS256",)),)),
        AppPolicy(identity_providers=(IdentityProvider("corp", ISSUER, JWKS, ("c",), ("none",)),)),
        AppPolicy(identity_providers=(IdentityProvider("custom", ISSUER, JWKS, ("c",)),)),
        AppPolicy(
            custom_token_keys=(
                CustomTokenKey("k", "EdDSA", public_jwk(private).replace("}", ', "d": "x"}')),
            )
        ),
        AppPolicy(custom_token_keys=(CustomTokenKey("k", "HS256", "secret"),)),
        AppPolicy(custom_token_keys=(CustomTokenKey("k", "ES256", public_jwk(private)),)),
    ]
    for policy in cases:
        await refused("MALFORMED_REQUEST", world.sessions.set_policy(world.as_app(), policy))


async def test_well_known_providers_need_only_the_apps_client_ids(world: World) -> None:
    policy = AppPolicy(identity_providers=(IdentityProvider("Apple", client_ids=("com.app",)),))
    stored = await world.sessions.set_policy(world.as_app(), policy)
    apple = stored.identity_providers[0]
    assert (apple.name, apple.issuer) == ("apple", "https://appleid.apple.com")
    assert apple.jwks_uri == "https://appleid.apple.com/auth/keys"
    assert apple.algorithms == ("RS256",)


P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def with_other_ecdsa_signature(token: str) -> str:
    """The same token signed anew without the key: ECDSA's (r, s) and (r, n - s) both
    verify, so the string changes and the signature still holds."""
    import base64

    head, body, signature = token.split(".")
    raw = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
    r, s = raw[:32], int.from_bytes(raw[32:], "big")
    flipped = r + (P256_ORDER - s).to_bytes(32, "big")
    return f"{head}.{body}.{base64.urlsafe_b64encode(flipped).decode().rstrip('=')}"


async def test_a_token_signed_anew_without_the_key_is_still_the_same_token(
    world: World, sign_in: IdentitySignIn
) -> None:
    key = custom_key("ES256")
    policy = AppPolicy(custom_token_keys=(CustomTokenKey("backend-1", "ES256", public_jwk(key)),))
    await world.sessions.set_policy(world.as_app(), policy)
    token = custom_token(key, "ES256", world.app.id, "player-9", now_s(world))
    await sign_in.sign_in(client(), world.app.id, "custom", token)
    other = with_other_ecdsa_signature(token)
    assert other != token
    await refused("ID_TOKEN_REPLAYED", sign_in.sign_in(client(), world.app.id, "custom", other))


async def test_an_issuer_written_two_ways_is_one_identity(
    world: World, published: Published, keys_clock: Clock
) -> None:
    google = LocalIssuer(issuer="https://accounts.google.com")
    published.issuer = google
    provider = IdentityProvider("google", "https://accounts.google.com", JWKS, (CLIENT_ID,))
    await world.sessions.set_policy(world.as_app(), AppPolicy(identity_providers=(provider,)))
    sign_in = IdentitySignIn(
        world.sessions,
        IdentitiesMemory(),
        KeySets(published, clock=keys_clock),
        lambda: world.repo.now,
    )
    now = now_s(world)
    first = await sign_in.sign_in(client(), world.app.id, "google", google.token(now))
    bare = google.token(now, iss="accounts.google.com")
    again = await sign_in.sign_in(client(), world.app.id, "google", bare)
    assert again.issued.player_id == first.issued.player_id and not again.new_player


async def test_control_characters_in_a_subject_are_refused_and_stripped_from_a_name(
    world: World, sign_in: IdentitySignIn, issuer: LocalIssuer
) -> None:
    now = now_s(world)
    await refused(
        "ID_TOKEN_INVALID",
        sign_in.sign_in(client(), world.app.id, "corp", issuer.token(now, sub="a\x00b")),
    )
    named = issuer.token(now, sub="c", name="Ana\x00 \u200bSouza")
    signed = await sign_in.sign_in(client(), world.app.id, "corp", named)
    assert signed.issued.display_name == "Ana Souza"
