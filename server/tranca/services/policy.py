"""What an app lets its players do with their own sessions (``apps.policy``): how
they may sign in, how long a session lasts, and which tables they may create or
join. The app's backend, holding the API key, is not bound by it: the policy limits
end users, who hold only a session token.

The defaults are the cautious ones: sign-in only through the app's backend
(``CreatePlayerSession``), practice and competitive tables of any preset, no stakes
(chips change hands only where the app says so), 15-minute access tokens refreshed
for up to 30 days.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Protocol
from urllib.parse import urlsplit

from tranca_rules.errors import quoted
from tranca_rules.presets import PRESETS

from ..platform.friendships import FriendModel
from ..platform.invitations import InvitePolicy
from ..platform.progression import Rules as ProgressionRules
from .errors import malformed
from .identity_providers import (
    CustomTokenKey,
    IdentityProvider,
    checked_custom_keys,
    checked_providers,
)

# An access token's life: short, since it travels with every call; a refresh token's:
# how long a player stays signed in without using the app.
DEFAULT_SESSION_SECONDS = 15 * 60
MIN_SESSION_SECONDS = 60
MAX_SESSION_SECONDS = 24 * 3600
DEFAULT_REFRESH_SECONDS = 30 * 24 * 3600
MAX_REFRESH_SECONDS = 365 * 24 * 3600
MAX_WAIT_SECONDS = 3600
MAX_STAKE = 10**12
# Pages on other sites an app lets call the browser port (services/origins.py).
MAX_ORIGINS = 20
MAX_ORIGIN_CHARS = 200
_DEFAULT_PORTS = {"http": 80, "https": 443}
FRIEND_MODELS = frozenset(m.value for m in FriendModel)
# Chat: lobby rooms an app names (lower-case letters, digits, "-" and "_"), and how
# long messages are kept (a month by default; the app may keep them up to ten years).
MAX_LOBBY_ROOMS = 20
_LOBBY_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}", re.ASCII)
DEFAULT_CHAT_RETENTION_DAYS = 30
MAX_CHAT_RETENTION_DAYS = 3650
INVITE_POLICIES = frozenset(p.value for p in InvitePolicy)
# A rematch holds the seats of the last match's players who have not confirmed it
# (services/rematch.py) for a minute by default, as card rooms keep a rematch offer
# open while the players are still at the table; 10 s to 10 minutes.
DEFAULT_REMATCH_HOLD_SECONDS = 60
MIN_REMATCH_HOLD_SECONDS = 10
MAX_REMATCH_HOLD_SECONDS = 600
# Automatic mode and abandonment (docs/platform/automatic-and-abandonment.md, where
# each default is written down with the passage of 003 it rests on).
ROBOT_LEVELS = ("random", "greedy", "expert")  # services/robots.py's, cheapest first
DEFAULT_ABANDONMENT_GRACE_SECONDS = 180  # "un margen de unos minutos para regresar"
# 003 names one penalty of abandonment, the stake an annulment keeps; its ranking
# gives points by the result alone, so by default none are taken beyond the loss.
DEFAULT_ABANDONMENT_POINTS = 0
DEFAULT_ABANDONMENT_COOLDOWN_SECONDS = 300
MAX_ABANDONMENT_SECONDS = 24 * 3600
MAX_ABANDONMENT_POINTS = 1000


@dataclass(frozen=True)
class AbandonmentPenalty:
    """What a player who abandons a rated match loses beyond the match
    (platform/abandonment.py decides who abandoned)."""

    # Ranking points taken from the match's award (it may go below zero).
    ranking_points: int = DEFAULT_ABANDONMENT_POINTS
    # Rated as a loss whatever their side's result (their partner keeps theirs).
    rated_loss: bool = True
    # An annulled match does not give their stake back (003: "excepto si han sido
    # penalizados por abandono"): the house keeps it.
    stake_kept: bool = True
    # Seconds quick play refuses them a rated ticket after the match ends.
    cooldown_seconds: int = DEFAULT_ABANDONMENT_COOLDOWN_SECONDS

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AbandonmentPenalty:
        known = {f.name for f in fields(cls)}
        return replace(cls(), **{k: v for k, v in data.items() if k in known})


def normalise_origin(origin: str) -> str | None:
    """The serialised origin, or None for something that is not one."""
    if len(origin) > MAX_ORIGIN_CHARS:
        return None
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS[parts.scheme]:
        return f"{parts.scheme}://{host}"
    return f"{parts.scheme}://{host}:{port}"


def checked_origins(origins: tuple[str, ...]) -> tuple[str, ...]:
    """A policy's allow-list in its serialised form; MALFORMED_REQUEST naming the
    first entry that is no origin."""
    if len(origins) > MAX_ORIGINS:
        raise malformed(f"allowed_origins holds at most {MAX_ORIGINS} origins")
    out: list[str] = []
    for origin in origins:
        norm = normalise_origin(origin)
        if norm is None:
            raise malformed(
                f"allowed_origins: {quoted(origin)} is not an origin"
                ' ("https://host" or "https://host:port", no path)'
            )
        if norm not in out:
            out.append(norm)
    return tuple(out)


MAX_AVATAR_HOSTS = 10
_HOST = re.compile(
    r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$"
)


def checked_hosts(hosts: tuple[str, ...]) -> tuple[str, ...]:
    """The avatar hosts as stored (lower case, each once); MALFORMED_REQUEST naming
    the first that is not a host name."""
    if len(hosts) > MAX_AVATAR_HOSTS:
        raise malformed(f"avatar_hosts holds at most {MAX_AVATAR_HOSTS} hosts")
    out: list[str] = []
    for host in hosts:
        name = host.strip().lower().rstrip(".")
        if not _HOST.match(name):
            raise malformed(f"avatar_hosts: {quoted(host)} is not a host name (cdn.example.com)")
        if name not in out:
            out.append(name)
    return tuple(out)


@dataclass(frozen=True)
class AppPolicy:
    # Sign-in for apps without a backend of their own (off by default): a device id
    # exchanged for a session (the same device, the same player), or a guest (a new
    # player each time, kept only by its refresh token).
    device_sign_in: bool = False
    guest_sign_in: bool = False
    session_seconds: int = DEFAULT_SESSION_SECONDS
    refresh_seconds: int = DEFAULT_REFRESH_SECONDS
    # Tables a session may create (CreateGame), and the limits on the tables it may
    # create, join or be matched at.
    players_create_tables: bool = True
    presets: tuple[str, ...] = ()  # empty: every preset
    competitive: bool = True  # rated tables allowed
    max_stake: int = 0  # 0: no staked table
    # Quick play: robots fill the seats still empty after this many seconds of
    # waiting (practice only: robots never play competitive tables). 0: never.
    robots_after_seconds: int = 0
    # Quick play's tables: seconds a player has for a turn (then the server plays it;
    # 0: no limit). A silent player's seat is played by a robot after the same time,
    # at practice tables.
    quick_play_turn_seconds: int = 60
    # Web pages on other sites that may call for the app through the browser port
    # (its CORS allow-list), as serialised origins ("https://play.example.com").
    # Empty: none (the page the server serves itself is always allowed).
    allowed_origins: tuple[str, ...] = ()
    # Identities that sign players in (SignInWithIdentity): OpenID Connect issuers,
    # and the keys the app's backend signs custom tokens with
    # (services/identity_providers.py). Empty: none.
    identity_providers: tuple[IdentityProvider, ...] = ()
    custom_token_keys: tuple[CustomTokenKey, ...] = ()
    # Profiles (services/profiles.py): whether display names are unique in the app
    # (without regard to case), and the hosts avatars may be served from (their
    # subdomains too). Empty: no avatars.
    unique_display_names: bool = False
    avatar_hosts: tuple[str, ...] = ()
    # Whether a player's own session may export its data (ExportPlayerData); the
    # app's key always may.
    player_data_rights: bool = False
    # How players become friends (platform/friendships.py): "requests" (ask and
    # accept, the default) or "mutual_follow" (a follow holds at once; two players
    # who follow each other are friends).
    friend_model: str = FriendModel.REQUESTS.value
    # Chat (services/chat.py): the app's lobby rooms, by name, and how long messages
    # are kept.
    lobby_rooms: tuple[str, ...] = ("main",)
    chat_retention_days: int = DEFAULT_CHAT_RETENTION_DAYS
    # Whom players invite to a table (platform/invitations.py): "friends" (the
    # default) or "anyone" of the app; never across a block.
    invitations: str = InvitePolicy.FRIENDS.value
    # Seconds a rematch holds the seats of the players who have not confirmed it
    # (services/rematch.py); then anyone may take them.
    rematch_hold_seconds: int = DEFAULT_REMATCH_HOLD_SECONDS
    # Abandonment (platform/abandonment.py): the penalty, and how long a robot holds
    # a silent player's seat before their absence is an abandonment.
    abandonment_penalty: AbandonmentPenalty = AbandonmentPenalty()
    abandonment_grace_seconds: int = DEFAULT_ABANDONMENT_GRACE_SECONDS
    # Whether a match in which a seat was in automatic mode counts as rated.
    automatic_rated: bool = True
    # The most expensive robot level automatic mode plays, whatever the table's.
    automatic_robot_level: str = "greedy"
    # Experience, levels, achievements and the stake's weight on points
    # (platform/progression.py; docs/platform/progression.md gives each default).
    progression: ProgressionRules = field(default_factory=ProgressionRules)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["presets"] = list(self.presets)
        out["allowed_origins"] = list(self.allowed_origins)
        out["identity_providers"] = [p.to_dict() for p in self.identity_providers]
        out["custom_token_keys"] = [k.to_dict() for k in self.custom_token_keys]
        out["avatar_hosts"] = list(self.avatar_hosts)
        out["lobby_rooms"] = list(self.lobby_rooms)
        out["abandonment_penalty"] = self.abandonment_penalty.to_dict()
        out["progression"] = self.progression.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AppPolicy:
        """The stored policy; unknown keys (from a later version) are ignored and
        missing ones take their defaults."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        if "presets" in values:
            values["presets"] = tuple(values["presets"])
        if "allowed_origins" in values:
            values["allowed_origins"] = tuple(values["allowed_origins"])
        if "avatar_hosts" in values:
            values["avatar_hosts"] = tuple(values["avatar_hosts"])
        if "lobby_rooms" in values:
            values["lobby_rooms"] = tuple(values["lobby_rooms"])
        if "abandonment_penalty" in values:
            values["abandonment_penalty"] = AbandonmentPenalty.from_dict(
                values["abandonment_penalty"]
            )
        if "identity_providers" in values:
            values["identity_providers"] = tuple(
                IdentityProvider.from_dict(p) for p in values["identity_providers"]
            )
        if "custom_token_keys" in values:
            values["custom_token_keys"] = tuple(
                CustomTokenKey.from_dict(k) for k in values["custom_token_keys"]
            )
        if "progression" in values:
            values["progression"] = ProgressionRules.from_dict(values["progression"])
        return replace(cls(), **values)

    def check(self) -> AppPolicy:
        """The policy if it is coherent; MALFORMED_REQUEST naming the field if not."""
        if not MIN_SESSION_SECONDS <= self.session_seconds <= MAX_SESSION_SECONDS:
            raise malformed(f"session_seconds is {MIN_SESSION_SECONDS} to {MAX_SESSION_SECONDS}")
        if not self.session_seconds <= self.refresh_seconds <= MAX_REFRESH_SECONDS:
            raise malformed(f"refresh_seconds is session_seconds to {MAX_REFRESH_SECONDS}")
        unknown = [p for p in self.presets if p not in PRESETS]
        if unknown:
            raise malformed(f"unknown preset {unknown[0]!r} (see ListPresets)")
        if not 0 <= self.max_stake <= MAX_STAKE:
            raise malformed(f"max_stake is 0 to {MAX_STAKE}")
        if not 0 <= self.robots_after_seconds <= MAX_WAIT_SECONDS:
            raise malformed(f"robots_after_seconds is 0 (never) to {MAX_WAIT_SECONDS}")
        if not 0 <= self.quick_play_turn_seconds <= MAX_WAIT_SECONDS:
            raise malformed(f"quick_play_turn_seconds is 0 (no limit) to {MAX_WAIT_SECONDS}")
        if self.friend_model not in FRIEND_MODELS:
            raise malformed('friend_model is "requests" or "mutual_follow"')
        if len(self.lobby_rooms) > MAX_LOBBY_ROOMS or len(set(self.lobby_rooms)) != len(
            self.lobby_rooms
        ):
            raise malformed(f"lobby_rooms holds at most {MAX_LOBBY_ROOMS} names, each once")
        if any(_LOBBY_NAME.fullmatch(name) is None for name in self.lobby_rooms):
            raise malformed("a lobby room's name is 1 to 32 of a-z, 0-9, '-' and '_'")
        if not 1 <= self.chat_retention_days <= MAX_CHAT_RETENTION_DAYS:
            raise malformed(f"chat_retention_days is 1 to {MAX_CHAT_RETENTION_DAYS}")
        if self.invitations not in INVITE_POLICIES:
            raise malformed('invitations is "friends" or "anyone"')
        if not MIN_REMATCH_HOLD_SECONDS <= self.rematch_hold_seconds <= MAX_REMATCH_HOLD_SECONDS:
            raise malformed(
                f"rematch_hold_seconds is {MIN_REMATCH_HOLD_SECONDS} to {MAX_REMATCH_HOLD_SECONDS}"
            )
        penalty = self.abandonment_penalty
        if not 0 <= penalty.ranking_points <= MAX_ABANDONMENT_POINTS:
            raise malformed(f"abandonment_penalty.ranking_points is 0 to {MAX_ABANDONMENT_POINTS}")
        if not 0 <= penalty.cooldown_seconds <= MAX_ABANDONMENT_SECONDS:
            raise malformed(
                f"abandonment_penalty.cooldown_seconds is 0 to {MAX_ABANDONMENT_SECONDS}"
            )
        if not 1 <= self.abandonment_grace_seconds <= MAX_ABANDONMENT_SECONDS:
            raise malformed(f"abandonment_grace_seconds is 1 to {MAX_ABANDONMENT_SECONDS}")
        if self.automatic_robot_level not in ROBOT_LEVELS:
            raise malformed(f"automatic_robot_level is one of {', '.join(ROBOT_LEVELS)}")
        if (problem := self.progression.problem()) is not None:
            raise malformed(f"progression: {problem}")
        return replace(
            self,
            allowed_origins=checked_origins(self.allowed_origins),
            identity_providers=checked_providers(self.identity_providers),
            custom_token_keys=checked_custom_keys(self.custom_token_keys),
            avatar_hosts=checked_hosts(self.avatar_hosts),
        )

    def provider(self, name: str) -> IdentityProvider | None:
        """The identity provider the policy names ``name``, if any."""
        return next((p for p in self.identity_providers if p.name == name), None)

    def access_expiry(self, now: int) -> int:
        """When an access token issued at ``now`` (epoch ms) expires."""
        return now + self.session_seconds * 1000

    def refresh_expiry(self, now: int) -> int:
        """When a refresh token issued at ``now`` expires: a session in use slides on."""
        return now + self.refresh_seconds * 1000

    def allows_preset(self, preset: str) -> bool:
        return not self.presets or preset in self.presets


class AppPolicies(Protocol):
    """Where a use case reads an app's policy (the sessions' store)."""

    async def app_policy(self, app_id: str) -> AppPolicy | None:
        """The app's policy (None: it set none, the defaults hold)."""
        ...


__all__ = ["AbandonmentPenalty", "AppPolicies", "AppPolicy"]
