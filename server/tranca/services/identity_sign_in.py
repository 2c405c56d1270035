"""Signing in with an identity the player already has (SignInWithIdentity): an
OpenID Connect ID token from one of the app's identity providers (Sign in with
Apple, Google, Facebook Limited Login, an issuer the app names), or a custom token
the app's backend signed for its own player.

- The app's policy names what it accepts (``services/identity_providers.py``); the
  token is checked against it (``services/identity_tokens.py``), an ID token's
  signature against the provider's published keys (``services/key_sets.py``).
- An identity (the token's issuer and subject) belongs to one player of the app:
  the first sign-in with it makes the player (``account:`` and 128 random bits)
  and links the identity to it; later ones sign that player in. Two first
  sign-ins of one identity at once, on any replicas, make one player: the link is
  written once (the identity is the row's key), and the one that loses the race
  signs in the player the winner made. A custom token's subject is the app's own
  player id (as ``CreatePlayerSession`` takes it), linked the same way.
- Each token opens one session: it is recorded as spent until it expires, and the
  same token again is refused (ID_TOKEN_REPLAYED), so a token taken from a
  player's device or a log cannot open a session of its own once the player has
  used it.
- Sign-ins count against the same per-address bucket as device and guest
  sign-ins (``Sessions.admitted``). A token that does not verify keeps its place in
  the bucket: it is a failed authentication, not a request out of shape.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Protocol

from ..reasons import Reason
from .access import Credentials
from .credentials import hash_secret
from .errors import Refusal, Refused, malformed
from .identity_providers import CUSTOM
from .identity_tokens import (
    LEEWAY,
    TokenRefused,
    VerifiedIdentity,
    token_header,
    verify_custom_token,
    verify_id_token,
)
from .key_sets import KeySets, KeysUnavailable
from .policy import AppPolicy
from .ports import SessionKind
from .sessions import MAX_NAME, Clock, Issued, Sessions, app_player_id

# Player ids this use case makes for a new identity's player.
ACCOUNT_PREFIX = "account:"
DEFAULT_NAME = "player"


class IdentityRepository(Protocol):
    """The identities linked to players, and the identity tokens spent (one adapter a
    database in ``tranca.store``, an in-memory one for the unit tests)."""

    async def identity_player(self, app_id: str, issuer: str, subject: str) -> str | None:
        """The player the identity is linked to, if any."""
        ...

    async def link_identity(
        self, app_id: str, issuer: str, subject: str, player_id: str, now: int
    ) -> tuple[str, bool]:
        """Link the identity to ``player_id`` unless it is linked already: the player
        it is linked to now, and whether this call linked it."""
        ...

    async def spend_identity_token(self, token_hash: str, expires_at: int, now: int) -> bool:
        """Record the token as spent until ``expires_at`` (epoch ms): False when it
        was spent already. Tokens past their expiry may be forgotten."""
        ...


@dataclass(frozen=True)
class SignedIn:
    """The session opened, and whether the identity made a new player."""

    issued: Issued
    new_player: bool


def refused_token(exc: TokenRefused) -> Refused:
    return Refused(Refusal.UNAUTHENTICATED, Reason.ID_TOKEN_INVALID, str(exc))


class IdentitySignIn:
    def __init__(
        self,
        sessions: Sessions,
        repo: IdentityRepository,
        key_sets: KeySets,
        clock: Clock,
    ) -> None:
        self.sessions = sessions
        self.repo = repo
        self.key_sets = key_sets
        self.clock = clock

    async def sign_in(
        self,
        credentials: Credentials,
        app_id: str,
        provider: str,
        id_token: str,
        *,
        nonce: str = "",
        display_name: str = "",
    ) -> SignedIn:
        """A session for the player ``id_token`` names, where the app accepts it."""
        name = provider.strip().lower()
        token = id_token.strip()
        if not name:
            raise malformed('provider is required ("apple", "google", ..., or "custom")')
        if not token:
            raise malformed("id_token is required")
        shown = " ".join(display_name.split())
        if len(shown) > MAX_NAME:
            raise malformed(f"display_name is at most {MAX_NAME} characters")
        policy = await self.sessions.admitted(credentials, app_id, SessionKind.IDENTITY)
        identity = await self.verified_once(policy, app_id, name, token, nonce)
        now = self.clock()
        player_id, new_player = await self._player_of(app_id, identity, now)
        issued = await self.sessions.issue(
            app_id,
            policy,
            player_id,
            shown or identity.name or DEFAULT_NAME,
            SessionKind.IDENTITY,
            credentials.peer(),
        )
        return SignedIn(issued, new_player)

    async def verified_once(
        self, policy: AppPolicy, app_id: str, name: str, token: str, nonce: str
    ) -> VerifiedIdentity:
        """The identity ``token`` names, checked against the app's provider ``name``
        (or its custom keys), and the token spent: ID_TOKEN_REPLAYED if it was."""
        identity = await self._verified(policy, app_id, name, token, nonce)
        # Kept while the token could still verify (its expiry and the leeway). What is
        # spent is the signed content (header and payload), not the whole string: an
        # ECDSA signature can be rewritten into another valid one (s into n - s)
        # without the key, which would make the same token look new.
        spent_until = (identity.expires_at + LEEWAY) * 1000
        signed_content = token.rsplit(".", 1)[0]
        spent = hash_secret(signed_content)
        if not await self.repo.spend_identity_token(spent, spent_until, self.clock()):
            raise Refused(
                Refusal.UNAUTHENTICATED,
                Reason.ID_TOKEN_REPLAYED,
                "this token was already used: get a new one from the provider",
            )
        return identity

    async def _verified(
        self, policy: AppPolicy, app_id: str, name: str, token: str, nonce: str
    ) -> VerifiedIdentity:
        now = self.clock() // 1000
        try:
            if name == CUSTOM:
                if not policy.custom_token_keys:
                    raise self._unknown(name)
                return verify_custom_token(
                    token, app_id, policy.custom_token_keys, now=now, nonce=nonce
                )
            provider = policy.provider(name)
            if provider is None:
                raise self._unknown(name)
            kid = token_header(token).get("kid")
            try:
                key_set = await self.key_sets.key_set(
                    provider.jwks_uri, kid if isinstance(kid, str) else None
                )
            except KeysUnavailable as exc:
                raise Refused(
                    Refusal.UNAVAILABLE,
                    Reason.IDENTITY_KEYS_UNAVAILABLE,
                    f"the keys of {provider.name} cannot be fetched now: retry",
                ) from exc
            return verify_id_token(token, provider, key_set, now=now, nonce=nonce)
        except TokenRefused as exc:
            raise refused_token(exc) from None

    @staticmethod
    def _unknown(name: str) -> Refused:
        return Refused(
            Refusal.FORBIDDEN,
            Reason.IDENTITY_PROVIDER_UNKNOWN,
            f"this app accepts no identity provider named {name[:64]!r}",
        )

    async def _player_of(
        self, app_id: str, identity: VerifiedIdentity, now: int
    ) -> tuple[str, bool]:
        """The identity's player, made and linked at its first sign-in."""
        linked = await self.repo.identity_player(app_id, identity.issuer, identity.subject)
        if linked is not None:
            return linked, False
        if identity.issuer == "custom":
            try:
                candidate = app_player_id(identity.subject)
            except Refused as exc:
                raise refused_token(TokenRefused(f"the token's sub: {exc.message}")) from None
        else:
            candidate = ACCOUNT_PREFIX + secrets.token_hex(16)
        return await self.repo.link_identity(
            app_id, identity.issuer, identity.subject, candidate, now
        )


__all__ = ["ACCOUNT_PREFIX", "IdentityRepository", "IdentitySignIn", "SignedIn"]
