"""SessionService: protobuf in, a use case of ``services.sessions.Sessions``, protobuf
out. Nothing else happens here."""

from __future__ import annotations

import json

from ..services.avatars import Avatars
from ..services.friends import FriendModel
from ..services.identity_links import IdentityLinks, ShownIdentity
from ..services.identity_providers import CustomTokenKey, IdentityProvider
from ..services.identity_sign_in import IdentitySignIn
from ..services.invitations import InvitePolicy
from ..services.player_data import PlayerData
from ..services.player_erasure import PlayerErasure
from ..services.policy import (
    DEFAULT_ABANDONMENT_GRACE_SECONDS,
    DEFAULT_CHAT_RETENTION_DAYS,
    DEFAULT_REMATCH_HOLD_SECONDS,
    AbandonmentPenalty,
    AppPolicy,
)
from ..services.ports import SessionKind
from ..services.profiles import Profile, ProfileChange, Profiles, PublicProfile
from ..services.sessions import Issued, SessionInfo, Sessions
from ..v1 import session_pb2 as pb
from ..v1 import session_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .progression import rules_from_pb, rules_pb
from .servicer import rpc

KINDS = {
    SessionKind.SERVER: pb.SESSION_KIND_SERVER,
    SessionKind.DEVICE: pb.SESSION_KIND_DEVICE,
    SessionKind.GUEST: pb.SESSION_KIND_GUEST,
    SessionKind.IDENTITY: pb.SESSION_KIND_IDENTITY,
}


def session_pb(issued: Issued) -> pb.PlayerSession:
    return pb.PlayerSession(
        session_id=issued.session_id,
        player_id=issued.player_id,
        display_name=issued.display_name,
        access_token=issued.access_token,
        access_expires_at_ms=issued.access_expires_at,
        refresh_token=issued.refresh_token,
        refresh_expires_at_ms=issued.refresh_expires_at,
    )


def profile_pb(player_id: str, p: Profile) -> pb.Profile:
    return pb.Profile(
        player_id=player_id,
        display_name=p.display_name,
        avatar_url=p.avatar_url,
        locale=p.locale,
        country=p.country,
        abandonments=p.abandonments,
        cooldown_until_ms=p.cooldown_until_ms,
    )


def public_profile_pb(p: PublicProfile) -> pb.Profile:
    """Another player's profile as others see it: no locale."""
    return pb.Profile(
        player_id=p.player_id,
        display_name=p.display_name,
        avatar_url=p.avatar_url,
        country=p.country,
        abandonments=p.abandonments,
    )


def identity_pb(i: ShownIdentity) -> pb.LinkedIdentity:
    return pb.LinkedIdentity(
        provider=i.provider, issuer=i.issuer, subject=i.subject, linked_at_ms=i.linked_at
    )


def summary_pb(s: SessionInfo) -> pb.SessionSummary:
    return pb.SessionSummary(
        session_id=s.session_id,
        player_id=s.player_id,
        display_name=s.display_name,
        kind=KINDS[s.kind],
        created_at_ms=s.created_at,
        last_used_at_ms=s.last_used_at,
        access_expires_at_ms=s.access_expires_at,
        refresh_expires_at_ms=s.refresh_expires_at,
        revoked=s.revoked,
        address=s.address,
    )


FRIEND_MODEL_PB: dict[FriendModel, pb.FriendModel.ValueType] = {
    FriendModel.REQUESTS: pb.FRIEND_MODEL_REQUESTS,
    FriendModel.MUTUAL_FOLLOW: pb.FRIEND_MODEL_MUTUAL_FOLLOW,
}
# Unspecified is the default, requests; a value from a later version of the contract
# too (its policy would otherwise not be set at all).
FRIEND_MODEL_FROM_PB = {v: k for k, v in FRIEND_MODEL_PB.items()}
# Whom players invite to a table: unspecified (or unknown) is friends, the default.
INVITE_POLICY_PB: dict[InvitePolicy, pb.InvitationPolicy.ValueType] = {
    InvitePolicy.FRIENDS: pb.INVITATION_POLICY_FRIENDS,
    InvitePolicy.ANYONE: pb.INVITATION_POLICY_ANYONE,
}
INVITE_POLICY_FROM_PB = {v: k for k, v in INVITE_POLICY_PB.items()}


def policy_pb(p: AppPolicy) -> pb.AppPolicy:
    return pb.AppPolicy(
        device_sign_in=p.device_sign_in,
        guest_sign_in=p.guest_sign_in,
        session_seconds=p.session_seconds,
        refresh_seconds=p.refresh_seconds,
        players_create_tables=p.players_create_tables,
        presets=list(p.presets),
        competitive=p.competitive,
        max_stake=p.max_stake,
        robots_after_seconds=p.robots_after_seconds,
        quick_play_turn_seconds=p.quick_play_turn_seconds,
        allowed_origins=list(p.allowed_origins),
        unique_display_names=p.unique_display_names,
        avatar_hosts=list(p.avatar_hosts),
        player_data_rights=p.player_data_rights,
        friend_model=FRIEND_MODEL_PB[FriendModel(p.friend_model)],
        lobby_rooms=list(p.lobby_rooms),
        chat_retention_days=p.chat_retention_days,
        invitations=INVITE_POLICY_PB[InvitePolicy(p.invitations)],
        rematch_hold_seconds=p.rematch_hold_seconds,
        abandonment_penalty=pb.AbandonmentPenalty(
            ranking_points=p.abandonment_penalty.ranking_points,
            rated_loss=p.abandonment_penalty.rated_loss,
            stake_kept=p.abandonment_penalty.stake_kept,
            cooldown_seconds=p.abandonment_penalty.cooldown_seconds,
        ),
        abandonment_grace_seconds=p.abandonment_grace_seconds,
        automatic_rated=p.automatic_rated,
        automatic_robot_level=p.automatic_robot_level,
        progression=rules_pb(p.progression),
        identity_providers=[
            pb.IdentityProvider(
                name=i.name,
                issuer=i.issuer,
                jwks_uri=i.jwks_uri,
                client_ids=list(i.client_ids),
                algorithms=list(i.algorithms),
            )
            for i in p.identity_providers
        ],
        custom_token_keys=[
            pb.CustomTokenKey(key_id=k.key_id, algorithm=k.algorithm, public_key=k.public_key)
            for k in p.custom_token_keys
        ],
    )


def policy_from_pb(p: pb.AppPolicy) -> AppPolicy:
    return AppPolicy(
        device_sign_in=p.device_sign_in,
        guest_sign_in=p.guest_sign_in,
        session_seconds=p.session_seconds,
        refresh_seconds=p.refresh_seconds,
        players_create_tables=p.players_create_tables,
        presets=tuple(p.presets),
        competitive=p.competitive,
        max_stake=p.max_stake,
        robots_after_seconds=p.robots_after_seconds,
        quick_play_turn_seconds=p.quick_play_turn_seconds,
        allowed_origins=tuple(p.allowed_origins),
        unique_display_names=p.unique_display_names,
        avatar_hosts=tuple(p.avatar_hosts),
        player_data_rights=p.player_data_rights,
        friend_model=FRIEND_MODEL_FROM_PB.get(p.friend_model, FriendModel.REQUESTS).value,
        lobby_rooms=tuple(p.lobby_rooms),
        chat_retention_days=p.chat_retention_days or DEFAULT_CHAT_RETENTION_DAYS,
        invitations=INVITE_POLICY_FROM_PB.get(p.invitations, InvitePolicy.FRIENDS).value,
        rematch_hold_seconds=p.rematch_hold_seconds or DEFAULT_REMATCH_HOLD_SECONDS,
        # Unset: the defaults (docs/platform/automatic-and-abandonment.md).
        abandonment_penalty=(
            AbandonmentPenalty(
                p.abandonment_penalty.ranking_points,
                p.abandonment_penalty.rated_loss,
                p.abandonment_penalty.stake_kept,
                p.abandonment_penalty.cooldown_seconds,
            )
            if p.HasField("abandonment_penalty")
            else AbandonmentPenalty()
        ),
        abandonment_grace_seconds=(
            p.abandonment_grace_seconds
            if p.HasField("abandonment_grace_seconds")
            else DEFAULT_ABANDONMENT_GRACE_SECONDS
        ),
        automatic_rated=p.automatic_rated if p.HasField("automatic_rated") else True,
        automatic_robot_level=p.automatic_robot_level or "greedy",
        progression=rules_from_pb(p.progression),
        identity_providers=tuple(
            IdentityProvider(i.name, i.issuer, i.jwks_uri, tuple(i.client_ids), tuple(i.algorithms))
            for i in p.identity_providers
        ),
        custom_token_keys=tuple(
            CustomTokenKey(k.key_id, k.algorithm, k.public_key) for k in p.custom_token_keys
        ),
    )


class SessionService(pb_grpc.SessionServiceServicer):
    def __init__(
        self,
        sessions: Sessions,
        identities: IdentitySignIn,
        links: IdentityLinks,
        profiles: Profiles,
        player_data: PlayerData,
        erasure: PlayerErasure,
        avatars: Avatars,
    ) -> None:
        self.sessions = sessions
        self.identities = identities
        self.links = links
        self.profiles = profiles
        self.player_data = player_data
        self.erasure = erasure
        self.avatars = avatars

    @rpc("CreatePlayerSession")
    async def CreatePlayerSession(
        self, request: pb.CreatePlayerSessionRequest, context: Ctx
    ) -> pb.CreatePlayerSessionResponse:
        issued = await self.sessions.create(
            credentials(context), request.player_id, request.display_name
        )
        return pb.CreatePlayerSessionResponse(session=session_pb(issued))

    @rpc("SignInDevice")
    async def SignInDevice(
        self, request: pb.SignInDeviceRequest, context: Ctx
    ) -> pb.SignInDeviceResponse:
        issued = await self.sessions.sign_in_device(
            credentials(context), request.app_id, request.device_id, request.display_name
        )
        return pb.SignInDeviceResponse(session=session_pb(issued))

    @rpc("SignInGuest")
    async def SignInGuest(
        self, request: pb.SignInGuestRequest, context: Ctx
    ) -> pb.SignInGuestResponse:
        issued = await self.sessions.sign_in_guest(
            credentials(context), request.app_id, request.display_name
        )
        return pb.SignInGuestResponse(session=session_pb(issued))

    @rpc("SignInWithIdentity")
    async def SignInWithIdentity(
        self, request: pb.SignInWithIdentityRequest, context: Ctx
    ) -> pb.SignInWithIdentityResponse:
        signed_in = await self.identities.sign_in(
            credentials(context),
            request.app_id,
            request.provider,
            request.id_token,
            nonce=request.nonce,
            display_name=request.display_name,
        )
        return pb.SignInWithIdentityResponse(
            session=session_pb(signed_in.issued), new_player=signed_in.new_player
        )

    @rpc("LinkIdentity")
    async def LinkIdentity(
        self, request: pb.LinkIdentityRequest, context: Ctx
    ) -> pb.LinkIdentityResponse:
        linked = await self.links.link(
            credentials(context), request.provider, request.id_token, nonce=request.nonce
        )
        return pb.LinkIdentityResponse(identity=identity_pb(linked))

    @rpc("ListIdentities")
    async def ListIdentities(
        self, request: pb.ListIdentitiesRequest, context: Ctx
    ) -> pb.ListIdentitiesResponse:
        found = await self.links.identities(credentials(context))
        return pb.ListIdentitiesResponse(identities=[identity_pb(i) for i in found])

    @rpc("UnlinkIdentity")
    async def UnlinkIdentity(
        self, request: pb.UnlinkIdentityRequest, context: Ctx
    ) -> pb.UnlinkIdentityResponse:
        await self.links.unlink(credentials(context), request.issuer, request.subject)
        return pb.UnlinkIdentityResponse()

    @rpc("GetProfile")
    async def GetProfile(
        self, request: pb.GetProfileRequest, context: Ctx
    ) -> pb.GetProfileResponse:
        player_id, profile = await self.profiles.own(credentials(context))
        return pb.GetProfileResponse(profile=profile_pb(player_id, profile))

    @rpc("UpdateProfile")
    async def UpdateProfile(
        self, request: pb.UpdateProfileRequest, context: Ctx
    ) -> pb.UpdateProfileResponse:
        r = request
        change = ProfileChange(
            r.display_name if r.HasField("display_name") else None,
            r.avatar_url if r.HasField("avatar_url") else None,
            r.locale if r.HasField("locale") else None,
            r.country if r.HasField("country") else None,
        )
        player_id, profile = await self.profiles.update(credentials(context), change)
        return pb.UpdateProfileResponse(profile=profile_pb(player_id, profile))

    @rpc("GetPlayerProfile")
    async def GetPlayerProfile(
        self, request: pb.GetPlayerProfileRequest, context: Ctx
    ) -> pb.GetPlayerProfileResponse:
        shown = await self.profiles.public(credentials(context), request.player_id)
        return pb.GetPlayerProfileResponse(profile=public_profile_pb(shown))

    @rpc("UploadAvatar")
    async def UploadAvatar(
        self, request: pb.UploadAvatarRequest, context: Ctx
    ) -> pb.UploadAvatarResponse:
        player_id, profile = await self.avatars.upload(credentials(context), request.image)
        return pb.UploadAvatarResponse(profile=profile_pb(player_id, profile))

    @rpc("GetPlayerProfiles")
    async def GetPlayerProfiles(
        self, request: pb.GetPlayerProfilesRequest, context: Ctx
    ) -> pb.GetPlayerProfilesResponse:
        shown = await self.profiles.public_many(credentials(context), list(request.player_ids))
        return pb.GetPlayerProfilesResponse(profiles=[public_profile_pb(p) for p in shown])

    @rpc("ExportPlayerData")
    async def ExportPlayerData(
        self, request: pb.ExportPlayerDataRequest, context: Ctx
    ) -> pb.ExportPlayerDataResponse:
        document = await self.player_data.export(credentials(context), request.player_id)
        return pb.ExportPlayerDataResponse(json=json.dumps(document, ensure_ascii=False))

    @rpc("ErasePlayer")
    async def ErasePlayer(
        self, request: pb.ErasePlayerRequest, context: Ctx
    ) -> pb.ErasePlayerResponse:
        erased = await self.erasure.erase(credentials(context), request.player_id)
        return pb.ErasePlayerResponse(pseudonym=erased.pseudonym, rows=erased.rows)

    @rpc("RefreshSession")
    async def RefreshSession(
        self, request: pb.RefreshSessionRequest, context: Ctx
    ) -> pb.RefreshSessionResponse:
        issued = await self.sessions.refresh(credentials(context), request.refresh_token)
        return pb.RefreshSessionResponse(session=session_pb(issued))

    @rpc("SignOut")
    async def SignOut(self, request: pb.SignOutRequest, context: Ctx) -> pb.SignOutResponse:
        ended = await self.sessions.sign_out(credentials(context))
        return pb.SignOutResponse(seat_tokens_revoked=ended.seat_tokens)

    @rpc("RevokePlayer")
    async def RevokePlayer(
        self, request: pb.RevokePlayerRequest, context: Ctx
    ) -> pb.RevokePlayerResponse:
        ended = await self.sessions.revoke_player(credentials(context), request.player_id)
        return pb.RevokePlayerResponse(
            sessions_revoked=ended.sessions, seat_tokens_revoked=ended.seat_tokens
        )

    @rpc("ListPlayerSessions")
    async def ListPlayerSessions(
        self, request: pb.ListPlayerSessionsRequest, context: Ctx
    ) -> pb.ListPlayerSessionsResponse:
        rows, next_page = await self.sessions.list(
            credentials(context),
            request.player_id,
            request.live_only,
            request.page_size,
            request.page_token,
        )
        return pb.ListPlayerSessionsResponse(
            sessions=[summary_pb(s) for s in rows], next_page_token=next_page
        )

    @rpc("GetAppPolicy")
    async def GetAppPolicy(
        self, request: pb.GetAppPolicyRequest, context: Ctx
    ) -> pb.GetAppPolicyResponse:
        policy = await self.sessions.policy(credentials(context))
        return pb.GetAppPolicyResponse(policy=policy_pb(policy))

    @rpc("SetAppPolicy")
    async def SetAppPolicy(
        self, request: pb.SetAppPolicyRequest, context: Ctx
    ) -> pb.SetAppPolicyResponse:
        policy = await self.sessions.set_policy(
            credentials(context), policy_from_pb(request.policy)
        )
        return pb.SetAppPolicyResponse(policy=policy_pb(policy))
