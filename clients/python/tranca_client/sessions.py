"""Players' sessions (``tranca.v1.SessionService``) for both clients: the app's
backend opens one for its player (``create_player_session``, the API key); a client
without a backend signs itself in (``sign_in_device``, ``sign_in_guest``, where the
app's policy allows them) or with an identity the player already has
(``sign_in_with_identity``: an OpenID Connect ID token of one of the app's
providers, such as Sign in with Apple or Google, or a custom token the app's
backend signed); then it refreshes (``refresh_session``) and signs out
(``sign_out``). A session links more identities to its player
(``link_identity``: how a guest keeps what it played when it signs up), lists them
and unlinks one; it reads and changes its player's profile (``profile``,
``update_profile``) and reads another's public one (``player_profile``). A
player's data rights: ``export_player_data`` and ``erase_player`` (the app's key,
or the player's own session where the app's policy allows); the app merges two
accounts of one person (``merge_players``) and reads its audit log of both
(``audit_entries``). A session's calls are made with
``client.with_token(access_token)``.

Retries: a device's sign-in is the same player every time, so it is retried after
UNAVAILABLE or DEADLINE_EXCEEDED; the others are not, since a lost answer already
did what it did: a guest's made a player, an identity token's spent the token (a
retry would be ``ID_TOKEN_REPLAYED``: ask the provider for a new token), a refresh's
rotated the tokens (presenting the spent refresh token again ends the session).
"""

from __future__ import annotations

import json
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from ._auth import ANY, APP, PLAYER
from .v1 import admin_pb2 as apb
from .v1 import admin_pb2_grpc as apb_grpc
from .v1 import session_pb2 as spb
from .v1 import session_pb2_grpc as spb_grpc

if TYPE_CHECKING:
    from .client import AsyncTrancaClient

T = TypeVar("T")

__all__ = ["AsyncSessions", "Sessions"]


class AsyncSessions:
    """The session calls of ``AsyncTrancaClient``."""

    if TYPE_CHECKING:
        _sessions: spb_grpc.SessionServiceAsyncStub
        _admin: apb_grpc.AdminServiceAsyncStub

        async def _unary(
            self, method: Any, request: Any, auth: str, *, retry: bool, conflicts: bool = False
        ) -> Any: ...

    async def create_player_session(
        self, player_id: str, display_name: str = ""
    ) -> spb.PlayerSession:
        """A session for the app's player ``player_id`` (the API key): hand its tokens
        to that player's client. Not retried: each call opens a session."""
        request = spb.CreatePlayerSessionRequest(player_id=player_id, display_name=display_name)
        out: spb.CreatePlayerSessionResponse = await self._unary(
            self._sessions.CreatePlayerSession, request, APP, retry=False
        )
        return out.session

    async def sign_in_device(
        self, app_id: str, device_id: str, display_name: str = ""
    ) -> spb.PlayerSession:
        """A session for a device: the same ``device_id`` (16 to 128 printable
        characters the app keeps on the device) is the same player every time."""
        request = spb.SignInDeviceRequest(
            app_id=app_id, device_id=device_id, display_name=display_name
        )
        out: spb.SignInDeviceResponse = await self._unary(
            self._sessions.SignInDevice, request, ANY, retry=True
        )
        return out.session

    async def sign_in_guest(self, app_id: str, display_name: str = "") -> spb.PlayerSession:
        """A session for a new player with no account."""
        request = spb.SignInGuestRequest(app_id=app_id, display_name=display_name)
        out: spb.SignInGuestResponse = await self._unary(
            self._sessions.SignInGuest, request, ANY, retry=False
        )
        return out.session

    async def sign_in_with_identity(
        self,
        app_id: str,
        provider: str,
        id_token: str,
        *,
        nonce: str = "",
        display_name: str = "",
    ) -> spb.SignInWithIdentityResponse:
        """A session for the player an identity names: ``provider`` is the name the
        app's policy gives it ("apple", "google", "facebook", its own issuer's) and
        ``id_token`` the ID token the provider's sign-in gave the client, or
        "custom" and a token the app's backend signed. ``nonce``: the one the client
        passed to the provider, if any. The answer's ``new_player`` says whether the
        identity was new. Each token opens one session."""
        request = spb.SignInWithIdentityRequest(
            app_id=app_id,
            provider=provider,
            id_token=id_token,
            nonce=nonce,
            display_name=display_name,
        )
        out: spb.SignInWithIdentityResponse = await self._unary(
            self._sessions.SignInWithIdentity, request, ANY, retry=False
        )
        return out

    async def link_identity(
        self, provider: str, id_token: str, *, nonce: str = ""
    ) -> spb.LinkedIdentity:
        """Link the identity ``id_token`` names to this client's session's player
        (a guest keeps its games so: the identity then signs in the guest's
        player). ``RuleRejected`` ``IDENTITY_ALREADY_LINKED`` when it is another
        player's. Not retried: the token is spent."""
        request = spb.LinkIdentityRequest(provider=provider, id_token=id_token, nonce=nonce)
        out: spb.LinkIdentityResponse = await self._unary(
            self._sessions.LinkIdentity, request, PLAYER, retry=False
        )
        return out.identity

    async def list_identities(self) -> list[spb.LinkedIdentity]:
        """This client's session's player's identities, the oldest link first."""
        out: spb.ListIdentitiesResponse = await self._unary(
            self._sessions.ListIdentities, spb.ListIdentitiesRequest(), PLAYER, retry=True
        )
        return list(out.identities)

    async def unlink_identity(self, issuer: str, subject: str) -> None:
        """Unlink one of the player's identities (``LAST_IDENTITY``: an account's
        only way in is kept)."""
        request = spb.UnlinkIdentityRequest(issuer=issuer, subject=subject)
        await self._unary(self._sessions.UnlinkIdentity, request, PLAYER, retry=True)

    async def profile(self) -> spb.Profile:
        """This client's session's player's profile."""
        out: spb.GetProfileResponse = await self._unary(
            self._sessions.GetProfile, spb.GetProfileRequest(), PLAYER, retry=True
        )
        return out.profile

    async def update_profile(
        self,
        *,
        display_name: str | None = None,
        avatar_url: str | None = None,
        locale: str | None = None,
        country: str | None = None,
    ) -> spb.Profile:
        """Change the player's profile: each field given is changed, the others kept
        (``AlreadyExists`` ``DISPLAY_NAME_TAKEN`` where the app's names are unique)."""
        given = {
            "display_name": display_name,
            "avatar_url": avatar_url,
            "locale": locale,
            "country": country,
        }
        request = spb.UpdateProfileRequest(**{k: v for k, v in given.items() if v is not None})
        out: spb.UpdateProfileResponse = await self._unary(
            self._sessions.UpdateProfile, request, PLAYER, retry=True
        )
        return out.profile

    async def player_profile(self, player_id: str) -> spb.Profile:
        """Another player's public profile (no locale)."""
        request = spb.GetPlayerProfileRequest(player_id=player_id)
        out: spb.GetPlayerProfileResponse = await self._unary(
            self._sessions.GetPlayerProfile, request, ANY, retry=True
        )
        return out.profile

    async def upload_avatar(self, image: bytes) -> spb.Profile:
        """The session's player's avatar from a picture (PNG, JPEG, WebP or GIF, at
        most 200 KB: make a photo small first); the server keeps a 128-pixel WebP
        made anew, which the answer's ``avatar_url`` names (a path on the server's
        browser port). Not retried: send it again."""
        request = spb.UploadAvatarRequest(image=image)
        out: spb.UploadAvatarResponse = await self._unary(
            self._sessions.UploadAvatar, request, PLAYER, retry=False
        )
        return out.profile

    async def player_profiles(self, player_ids: list[str]) -> list[spb.Profile]:
        """The public profiles of up to 100 players at once (a table's seats, a
        tournament's standings), in the order asked; those who set none are left
        out."""
        request = spb.GetPlayerProfilesRequest(player_ids=player_ids)
        out: spb.GetPlayerProfilesResponse = await self._unary(
            self._sessions.GetPlayerProfiles, request, ANY, retry=True
        )
        return list(out.profiles)

    async def export_player_data(self, player_id: str = "") -> dict[str, Any]:
        """Everything the service holds about a player, as the JSON document it
        sends (the app's key: any of its players; a session: its own, where the
        app's policy allows)."""
        request = spb.ExportPlayerDataRequest(player_id=player_id)
        out: spb.ExportPlayerDataResponse = await self._unary(
            self._sessions.ExportPlayerData, request, ANY, retry=True
        )
        document: dict[str, Any] = json.loads(out.json)
        return document

    async def erase_player(self, player_id: str = "") -> spb.ErasePlayerResponse:
        """Erase a player (the app's key: any of its players; a session: its own,
        where the app's policy allows, and the session ends with it): their
        identities, profile and sessions deleted, their id and name elsewhere
        replaced by the answer's ``pseudonym``; ``rows`` says how many rows of each
        kind changed. Refused while the player still plays (``PLAYER_STILL_PLAYING``).
        Not retried: a retry would erase nothing and name another pseudonym."""
        request = spb.ErasePlayerRequest(player_id=player_id)
        out: spb.ErasePlayerResponse = await self._unary(
            self._sessions.ErasePlayer, request, ANY, retry=False
        )
        return out

    async def audit_entries(self, after_id: int = 0, limit: int = 0) -> list[apb.AuditEntry]:
        """The app's audit log (the API key): erasures and merges of accounts, oldest
        first, from the entry after ``after_id``; at most ``limit`` (0: 200)."""
        request = apb.ListAuditEntriesRequest(after_id=after_id, limit=limit)
        out: apb.ListAuditEntriesResponse = await self._unary(
            self._admin.ListAuditEntries, request, APP, retry=True
        )
        return list(out.entries)

    async def merge_players(self, merged_player_id: str, kept_player_id: str) -> dict[str, int]:
        """Fold one player's account into another's (the API key; one person with two
        accounts): identities, seats, ranking points, tournaments, tickets, events and
        chips move to the kept player, whose profile stays; the rows changed, by
        table. Refused while either plays (``PLAYER_STILL_PLAYING``) or where the two
        played together (``ACCOUNTS_SHARED_A_TABLE``). Audited. Retried: a retry finds
        nothing more to move."""
        request = apb.MergePlayersRequest(
            merged_player_id=merged_player_id, kept_player_id=kept_player_id
        )
        out: apb.MergePlayersResponse = await self._unary(
            self._admin.MergePlayers, request, APP, retry=True
        )
        return dict(out.rows)

    async def app_policy(self) -> spb.AppPolicy:
        """What the app lets its players' sessions do (the API key)."""
        out: spb.GetAppPolicyResponse = await self._unary(
            self._sessions.GetAppPolicy, spb.GetAppPolicyRequest(), APP, retry=True
        )
        return out.policy

    async def set_app_policy(self, policy: spb.AppPolicy) -> spb.AppPolicy:
        """Replace the app's policy whole (read it first and change what you mean to:
        a field left out takes its zero value); the policy as stored (the
        well-known identity providers filled in)."""
        out: spb.SetAppPolicyResponse = await self._unary(
            self._sessions.SetAppPolicy, spb.SetAppPolicyRequest(policy=policy), APP, retry=True
        )
        return out.policy

    async def refresh_session(self, refresh_token: str) -> spb.PlayerSession:
        """New tokens for the session; ``refresh_token`` is spent (keep one refresh in
        flight per session: a spent token presented again ends the session)."""
        request = spb.RefreshSessionRequest(refresh_token=refresh_token)
        out: spb.RefreshSessionResponse = await self._unary(
            self._sessions.RefreshSession, request, ANY, retry=False
        )
        return out.session

    async def sign_out(self) -> int:
        """End this client's session (its token) and the seat tokens it was given:
        how many seat tokens were revoked."""
        out: spb.SignOutResponse = await self._unary(
            self._sessions.SignOut, spb.SignOutRequest(), PLAYER, retry=False
        )
        return out.seat_tokens_revoked


class Sessions:
    """The session calls of the blocking ``TrancaClient`` (see ``AsyncSessions``)."""

    if TYPE_CHECKING:

        @property
        def aio(self) -> AsyncTrancaClient: ...

        def _run(self, coro: Coroutine[Any, Any, T]) -> T: ...

    def create_player_session(self, player_id: str, display_name: str = "") -> spb.PlayerSession:
        """See ``AsyncTrancaClient.create_player_session``."""
        return self._run(self.aio.create_player_session(player_id, display_name))

    def sign_in_device(
        self, app_id: str, device_id: str, display_name: str = ""
    ) -> spb.PlayerSession:
        """See ``AsyncTrancaClient.sign_in_device``."""
        return self._run(self.aio.sign_in_device(app_id, device_id, display_name))

    def sign_in_guest(self, app_id: str, display_name: str = "") -> spb.PlayerSession:
        """See ``AsyncTrancaClient.sign_in_guest``."""
        return self._run(self.aio.sign_in_guest(app_id, display_name))

    def sign_in_with_identity(
        self, app_id: str, provider: str, id_token: str, **kwargs: str
    ) -> spb.SignInWithIdentityResponse:
        """See ``AsyncTrancaClient.sign_in_with_identity``."""
        return self._run(self.aio.sign_in_with_identity(app_id, provider, id_token, **kwargs))

    def link_identity(self, provider: str, id_token: str, **kwargs: str) -> spb.LinkedIdentity:
        """See ``AsyncTrancaClient.link_identity``."""
        return self._run(self.aio.link_identity(provider, id_token, **kwargs))

    def list_identities(self) -> list[spb.LinkedIdentity]:
        """See ``AsyncTrancaClient.list_identities``."""
        return self._run(self.aio.list_identities())

    def unlink_identity(self, issuer: str, subject: str) -> None:
        """See ``AsyncTrancaClient.unlink_identity``."""
        self._run(self.aio.unlink_identity(issuer, subject))

    def profile(self) -> spb.Profile:
        """See ``AsyncTrancaClient.profile``."""
        return self._run(self.aio.profile())

    def update_profile(self, **kwargs: str | None) -> spb.Profile:
        """See ``AsyncTrancaClient.update_profile``."""
        return self._run(self.aio.update_profile(**kwargs))

    def player_profile(self, player_id: str) -> spb.Profile:
        """See ``AsyncTrancaClient.player_profile``."""
        return self._run(self.aio.player_profile(player_id))

    def upload_avatar(self, image: bytes) -> spb.Profile:
        """See ``AsyncTrancaClient.upload_avatar``."""
        return self._run(self.aio.upload_avatar(image))

    def player_profiles(self, player_ids: list[str]) -> list[spb.Profile]:
        """See ``AsyncTrancaClient.player_profiles``."""
        return self._run(self.aio.player_profiles(player_ids))

    def export_player_data(self, player_id: str = "") -> dict[str, Any]:
        """See ``AsyncTrancaClient.export_player_data``."""
        return self._run(self.aio.export_player_data(player_id))

    def erase_player(self, player_id: str = "") -> spb.ErasePlayerResponse:
        """See ``AsyncTrancaClient.erase_player``."""
        return self._run(self.aio.erase_player(player_id))

    def audit_entries(self, after_id: int = 0, limit: int = 0) -> list[apb.AuditEntry]:
        """See ``AsyncTrancaClient.audit_entries``."""
        return self._run(self.aio.audit_entries(after_id, limit))

    def merge_players(self, merged_player_id: str, kept_player_id: str) -> dict[str, int]:
        """See ``AsyncTrancaClient.merge_players``."""
        return self._run(self.aio.merge_players(merged_player_id, kept_player_id))

    def app_policy(self) -> spb.AppPolicy:
        """See ``AsyncTrancaClient.app_policy``."""
        return self._run(self.aio.app_policy())

    def set_app_policy(self, policy: spb.AppPolicy) -> spb.AppPolicy:
        """See ``AsyncTrancaClient.set_app_policy``."""
        return self._run(self.aio.set_app_policy(policy))

    def refresh_session(self, refresh_token: str) -> spb.PlayerSession:
        """See ``AsyncTrancaClient.refresh_session``."""
        return self._run(self.aio.refresh_session(refresh_token))

    def sign_out(self) -> int:
        """See ``AsyncTrancaClient.sign_out``."""
        return self._run(self.aio.sign_out())
