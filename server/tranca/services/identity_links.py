"""A signed-in player's identities: link another (LinkIdentity), list them
(ListIdentities), unlink one (UnlinkIdentity). The way a guest keeps what it played
when it signs up: the guest's session links an identity, and from then on that
identity signs in the guest's player, with its games, ratings, chips and history,
under the same player id (the upgrade happens in place; nothing is copied).

- Linking takes a token of the identity, checked and spent as a sign-in's is
  (``IdentitySignIn.verified_once``): a player links only an identity they hold.
- An identity belongs to one player. One already linked to another player is
  refused (IDENTITY_ALREADY_LINKED), never moved nor merged: two accounts become
  one only by an administrator's explicit merge. Linking one already the caller's
  answers as a first link did. Two links of one identity at once, on any
  replicas, link it once: the loser is refused as if it came second.
- Unlinking needs the identity to be the caller's, and is refused for the last
  identity of a player whose only way in it is (``account:`` players, made by an
  identity's first sign-in; LAST_IDENTITY): a device's or a guest's player keeps
  its own way in.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from ..reasons import Reason
from .access import Access, Credentials
from .errors import Refusal, Refused, malformed
from .identity_providers import CUSTOM, IdentityProvider
from .identity_sign_in import ACCOUNT_PREFIX, IdentityRepository, IdentitySignIn
from .sessions import require_session


@dataclass(frozen=True)
class LinkedIdentity:
    """An identity linked to a player: its issuer (``custom`` for the app's custom
    tokens), its subject, and when it was linked (epoch ms)."""

    issuer: str
    subject: str
    linked_at: int


class Unlinked(StrEnum):
    UNLINKED = "unlinked"
    NOT_LINKED = "not_linked"  # not an identity of that player
    LAST = "last"  # the player's last identity, kept


class IdentityLinkRepository(IdentityRepository, Protocol):
    """The identities' port, with what linking reads and removes."""

    async def identities_of(self, app_id: str, player_id: str) -> list[LinkedIdentity]:
        """The player's identities, the oldest link first."""
        ...

    async def unlink_identity(
        self, app_id: str, issuer: str, subject: str, player_id: str, *, keep_one: bool
    ) -> Unlinked:
        """Remove the identity if it is ``player_id``'s and, ``keep_one``, not its
        last: decided and done in one transaction, the player's identities locked,
        so that two unlinks at once never leave it none."""
        ...


@dataclass(frozen=True)
class ShownIdentity:
    """An identity as its player sees it: the provider's name in the app's policy
    (empty for an issuer the policy no longer names), its issuer and subject."""

    provider: str
    issuer: str
    subject: str
    linked_at: int


class IdentityLinks:
    def __init__(
        self, access: Access, sign_in: IdentitySignIn, repo: IdentityLinkRepository
    ) -> None:
        self.access = access
        self.sign_in = sign_in
        self.repo = repo

    async def link(
        self, credentials: Credentials, provider: str, id_token: str, *, nonce: str = ""
    ) -> ShownIdentity:
        """Link the identity ``id_token`` names to the calling session's player."""
        name = provider.strip().lower()
        token = id_token.strip()
        if not name or not token:
            raise malformed("provider and id_token are required")
        session = require_session(await self.access.identify(credentials))
        identity = await self.sign_in.verified_once(
            session.policy, session.app_id, name, token, nonce
        )
        owner = await self.repo.identity_player(session.app_id, identity.issuer, identity.subject)
        if owner is None:
            owner, _ = await self.repo.link_identity(
                session.app_id,
                identity.issuer,
                identity.subject,
                session.player_id,
                self.sign_in.clock(),
            )
        if owner != session.player_id:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.IDENTITY_ALREADY_LINKED,
                "this identity belongs to another player: sign in with it, or ask the"
                " app to merge the two accounts",
            )
        linked = await self.repo.identities_of(session.app_id, session.player_id)
        found = next(
            (i for i in linked if (i.issuer, i.subject) == (identity.issuer, identity.subject)),
            None,
        )
        if found is None:  # unlinked by another call of the player's meanwhile
            raise Refused(
                Refusal.CONFLICT,
                Reason.IDENTITY_NOT_LINKED,
                "the identity was unlinked while it was being linked: link it again",
            )
        return self._shown(session.policy.identity_providers, found)

    async def identities(self, credentials: Credentials) -> list[ShownIdentity]:
        """The calling session's player's identities."""
        session = require_session(await self.access.identify(credentials))
        linked = await self.repo.identities_of(session.app_id, session.player_id)
        return [self._shown(session.policy.identity_providers, i) for i in linked]

    async def unlink(self, credentials: Credentials, issuer: str, subject: str) -> None:
        """Unlink one of the calling session's player's identities."""
        if not issuer or not subject:
            raise malformed("issuer and subject are required (ListIdentities gives them)")
        session = require_session(await self.access.identify(credentials))
        outcome = await self.repo.unlink_identity(
            session.app_id,
            issuer,
            subject,
            session.player_id,
            keep_one=session.player_id.startswith(ACCOUNT_PREFIX),
        )
        if outcome is Unlinked.NOT_LINKED:
            raise Refused(
                Refusal.NOT_FOUND,
                Reason.IDENTITY_NOT_LINKED,
                "the player has no such identity (ListIdentities lists them)",
            )
        if outcome is Unlinked.LAST:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.LAST_IDENTITY,
                "this is the player's only way to sign in: link another identity first",
            )

    @staticmethod
    def _shown(providers: tuple[IdentityProvider, ...], identity: LinkedIdentity) -> ShownIdentity:
        name = CUSTOM if identity.issuer == CUSTOM else ""
        for provider in providers:
            if identity.issuer in provider.issuers:
                name = provider.name
                break
        return ShownIdentity(name, identity.issuer, identity.subject, identity.linked_at)


__all__ = [
    "IdentityLinkRepository",
    "IdentityLinks",
    "LinkedIdentity",
    "ShownIdentity",
    "Unlinked",
]
