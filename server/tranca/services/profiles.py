"""Players' profiles: the name a player is shown with, an avatar, a locale and a
country (003: "tu propio perfil, tu avatar"). A player reads and changes its own
with its session (GetProfile, UpdateProfile); anyone of the app (its key, or any of
its players' sessions) reads another's public part (GetPlayerProfile: name, avatar,
country; never the locale, never a session or an identity).

What a profile may hold, checked when it is changed:
- **display name**: Unicode NFC, spaces collapsed, 1 to ``MAX_NAME`` characters, no
  control, format or private-use characters (which would let two names look alike
  or break a layout), at least one letter or digit. Where the app's policy asks
  (``unique_display_names``), unique in the app without regard to case
  (DISPLAY_NAME_TAKEN): decided by the database (a unique key on the folded name),
  so two players taking one name at once on two replicas cannot both have it.
- **avatar**: an https URL on a host the app's policy lists (``avatar_hosts``; a
  listed host's subdomains too). Empty: none. The server stores the URL and never
  fetches it.
- **locale**: a BCP 47 language tag of the simple form ``ll`` or ``ll-CC``.
- **country**: an ISO 3166-1 alpha-2 code.

A player who never set a profile has the name its session was opened with. A name
set in the profile becomes its sessions' name too, so the seats it takes from then
on, and so the lobby's and the standings' lists, show it (seats already taken keep
the name they were taken with: a game's log is not rewritten).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol
from urllib.parse import urlsplit

from ..reasons import Reason
from .abandonment import AbandonmentReader
from .access import Access, Credentials, require_app
from .errors import Refusal, Refused, malformed
from .sessions import Clock, require_session

MAX_NAME = 32
# The most profiles one GetPlayerProfiles reads: a tournament's page of standings.
MAX_PROFILES_ASKED = 100
MAX_AVATAR_URL = 500
_LOCALE = re.compile(r"^([a-z]{2,3})(?:-([a-z]{2}))?$", re.IGNORECASE)
_COUNTRY = re.compile(r"^[A-Z]{2}$")
_HIDDEN = {"Cc", "Cf", "Co", "Cs", "Cn"}  # control, format, private use, surrogates, unassigned


@dataclass(frozen=True)
class Profile:
    """A player's profile as stored."""

    display_name: str = ""
    avatar_url: str = ""
    locale: str = ""
    country: str = ""
    # Not stored with the profile: the player's abandonments of rated matches
    # (services/abandonment.py), and until when quick play refuses them a ticket
    # (epoch ms, 0 for none), shown with it.
    abandonments: int = 0
    cooldown_until_ms: int = 0


@dataclass(frozen=True)
class PublicProfile:
    """What anyone of the app may see of a player."""

    player_id: str
    display_name: str
    avatar_url: str
    country: str
    abandonments: int = 0  # rated matches they abandoned


@dataclass(frozen=True)
class ProfileChange:
    """The fields a player changes; None leaves one as it is."""

    display_name: str | None = None
    avatar_url: str | None = None
    locale: str | None = None
    country: str | None = None


class ProfileRepository(Protocol):
    async def profile(self, app_id: str, player_id: str) -> Profile | None:
        """The player's profile, if it ever set one."""
        ...

    async def profiles_of(self, app_id: str, player_ids: Sequence[str]) -> dict[str, Profile]:
        """The profiles of those of ``player_ids`` who set one, by player id."""
        ...

    async def save_profile(
        self, app_id: str, player_id: str, profile: Profile, name_key: str | None, now: int
    ) -> bool:
        """Store the profile; ``name_key`` (the folded name, where names are unique)
        is the app's to one player: False, and nothing stored, when another player
        holds it."""
        ...

    async def rename_sessions(self, app_id: str, player_id: str, display_name: str) -> None:
        """Give the player's sessions ``display_name``: the seats they take from then
        on carry it."""
        ...


def display_name(text: str) -> str:
    """The name as stored; MALFORMED_REQUEST saying what is wrong."""
    name = " ".join(unicodedata.normalize("NFC", text).split())
    if not 1 <= len(name) <= MAX_NAME:
        raise malformed(f"display_name is 1 to {MAX_NAME} characters")
    if any(unicodedata.category(c) in _HIDDEN for c in name):
        raise malformed("display_name holds a control or invisible character")
    if not any(c.isalnum() for c in name):
        raise malformed("display_name needs a letter or a digit")
    return name


def name_key(name: str) -> str:
    """Two names one key when they differ only in case (and width, by NFKC)."""
    return unicodedata.normalize("NFKC", name).casefold()


def avatar_url(url: str, hosts: tuple[str, ...]) -> str:
    url = url.strip()
    if not url:
        return ""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        parts, host = None, ""
    if len(url) > MAX_AVATAR_URL or parts is None or parts.scheme != "https" or not host:
        raise malformed(f"avatar_url is an https URL of at most {MAX_AVATAR_URL} characters")
    if parts.username or parts.password:
        raise malformed("avatar_url carries no credentials")
    if not any(host == h or host.endswith("." + h) for h in hosts):
        raise Refused(
            Refusal.FORBIDDEN,
            Reason.AVATAR_HOST_NOT_ALLOWED,
            "the app does not allow avatars from that host (its policy: avatar_hosts)",
        )
    return url


def locale(text: str) -> str:
    if not text.strip():
        return ""
    found = _LOCALE.match(text.strip())
    if found is None:
        raise malformed('locale is a language tag such as "pt" or "pt-BR"')
    language, region = found.group(1).lower(), found.group(2)
    return f"{language}-{region.upper()}" if region else language


def country(text: str) -> str:
    code = text.strip().upper()
    if code and not _COUNTRY.match(code):
        raise malformed('country is an ISO 3166-1 alpha-2 code such as "BR"')
    return code


class Profiles:
    def __init__(
        self,
        access: Access,
        repo: ProfileRepository,
        clock: Clock,
        abandonments: AbandonmentReader | None = None,
    ) -> None:
        self.access = access
        self.repo = repo
        self.clock = clock
        # Players' abandonments, shown with their profiles (None: shown as none).
        self.abandonments = abandonments

    async def _with_abandonments(self, app_id: str, player_id: str, profile: Profile) -> Profile:
        if self.abandonments is None:
            return profile
        found = await self.abandonments.abandonments(app_id, player_id)
        until = found.cooldown_ms()
        return replace(
            profile,
            abandonments=found.count,
            cooldown_until_ms=until if until > self.clock() else 0,
        )

    async def _count(self, app_id: str, player_id: str) -> int:
        if self.abandonments is None:
            return 0
        return (await self.abandonments.abandonments(app_id, player_id)).count

    async def own(self, credentials: Credentials) -> tuple[str, Profile]:
        """The calling session's player and its profile."""
        session = require_session(await self.access.identify(credentials))
        stored = await self.repo.profile(session.app_id, session.player_id)
        shown = self._shown(stored or Profile(), session.display_name)
        return session.player_id, await self._with_abandonments(
            session.app_id, session.player_id, shown
        )

    async def update(self, credentials: Credentials, change: ProfileChange) -> tuple[str, Profile]:
        """The calling session's player's profile, changed as ``change`` says."""
        session = require_session(await self.access.identify(credentials))
        policy = session.policy
        stored = await self.repo.profile(session.app_id, session.player_id)
        # An empty display name is "not set": the session's name shows, and, never
        # having been checked or claimed, it holds no place among unique names.
        now = stored or Profile()
        if change.display_name is not None:
            now = replace(now, display_name=display_name(change.display_name))
        if change.avatar_url is not None:
            now = replace(now, avatar_url=avatar_url(change.avatar_url, policy.avatar_hosts))
        if change.locale is not None:
            now = replace(now, locale=locale(change.locale))
        if change.country is not None:
            now = replace(now, country=country(change.country))
        named = bool(now.display_name) and policy.unique_display_names
        key = name_key(now.display_name) if named else None
        if not await self.repo.save_profile(
            session.app_id, session.player_id, now, key, self.clock()
        ):
            raise Refused(
                Refusal.EXISTS,
                Reason.DISPLAY_NAME_TAKEN,
                "another player of this app has that name: choose another",
            )
        if now.display_name and now.display_name != session.display_name:
            await self.repo.rename_sessions(session.app_id, session.player_id, now.display_name)
        return session.player_id, self._shown(now, session.display_name)

    @staticmethod
    def _shown(profile: Profile, session_name: str) -> Profile:
        """The profile as its player sees it: the session's name where none is set."""
        return profile if profile.display_name else replace(profile, display_name=session_name)

    async def public(self, credentials: Credentials, player_id: str) -> PublicProfile:
        """Another player's public profile (the app's key, or a session of the app)."""
        if not player_id or len(player_id) > 128:
            raise malformed("player_id is 1 to 128 characters")
        caller = await self.access.identify(credentials)
        app_id = caller.session.app_id if caller.session is not None else require_app(caller).id
        stored = await self.repo.profile(app_id, player_id)
        if stored is None:
            raise Refused(
                Refusal.NOT_FOUND, Reason.PROFILE_NOT_FOUND, "that player has set no profile"
            )
        return PublicProfile(
            player_id,
            stored.display_name,
            stored.avatar_url,
            stored.country,
            await self._count(app_id, player_id),
        )

    async def public_many(
        self, credentials: Credentials, player_ids: Sequence[str]
    ) -> list[PublicProfile]:
        """The public profiles of several players at once (a table's seats, a lobby's
        tables, a tournament's standings), in the order asked; a player who set none
        is left out. The app's key, or a session of the app."""
        wanted = list(dict.fromkeys(player_ids))
        if not wanted or len(wanted) > MAX_PROFILES_ASKED:
            raise malformed(f"player_ids holds 1 to {MAX_PROFILES_ASKED} ids")
        if any(not p or len(p) > 128 for p in wanted):
            raise malformed("each player_id is 1 to 128 characters")
        caller = await self.access.identify(credentials)
        app_id = caller.session.app_id if caller.session is not None else require_app(caller).id
        stored = await self.repo.profiles_of(app_id, wanted)
        return [
            PublicProfile(
                p,
                stored[p].display_name,
                stored[p].avatar_url,
                stored[p].country,
                await self._count(app_id, p),
            )
            for p in wanted
            if p in stored
        ]


__all__ = [
    "MAX_NAME",
    "MAX_PROFILES_ASKED",
    "Profile",
    "ProfileChange",
    "ProfileRepository",
    "Profiles",
    "PublicProfile",
    "display_name",
    "name_key",
]
