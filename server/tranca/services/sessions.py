"""Player sessions: how an end user's client talks to the server without the app's
API key, which a phone or a web page can never keep secret.

- The app's backend, with its key, opens a session for one of its players
  (``create``: the app's player id and display name) and hands the tokens to that
  player's client. Apps without a backend may let clients sign in themselves
  (``sign_in_device``: a device id, the same player every time; ``sign_in_guest``: a
  new player), where the app's policy allows it (off by default).
- A session is two tokens: an access token (``ts_``, sent as ``authorization: Bearer``,
  short-lived) and a refresh token (``tr_``, sent only to ``refresh``). Each refresh
  rotates both; a refresh token presented again after its rotation, whichever of the
  session's spent ones it is, means someone holds a copy, and ends the session and
  its seat tokens (OAuth 2.0's refresh token rotation, with reuse detection).
- Signing out ends the session and the seat tokens it was given; revoking a player
  ends all its sessions and all its seat tokens, and revoking the app (``tranca
  revoke-app``) ends every credential of the app: each is one transaction.

Tokens are random (an access token 256 bits, a refresh token 320: below) and kept
only as their SHA-256 hash, as API keys and seat tokens are, rather than signed
tokens (JWT): every call already reads its
credential's row (its revocation, its app's), so a signature would save no read, and
revocation must take effect at once, which a self-contained token cannot do without
a deny-list read on every call anyway. A leaked database yields no usable token.

Every refresh token of a session carries the session's **family**: ``tr_<family>.<own
secret>``, the family 128 random bits drawn when the session opens and kept by every
rotation, the own secret 192 bits drawn anew at each. The session's row keeps the
hash of its current refresh token and the hash of its family. A token that is not
the current one but of a known family is a spent token of that session (or one
made up by someone who saw one: only holders of the session's tokens know the
family), so it ends the session, however long ago it was spent. This was chosen
over a table of every spent token's hash: a session refreshed every 15 minutes
spends thousands of tokens a month and all of them must count, which such a table
would keep (and a clean-up would sweep) for as long as the session lives, while a
family is one column, one indexed read, the same on every database, and nothing to
sweep. A token without a family (``tr_`` and 43 characters, issued before families
were) is caught when it is the session's last spent one (``previous_refresh_hash``),
as before; the session's next refresh gives it a family.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from ..reasons import Reason
from .access import Access, Caller, Credentials
from .credentials import hash_secret, new_secret
from .errors import Refusal, Refused, malformed, rate_limited
from .limits import RateLimiter
from .origins import check_origin
from .paging import Position
from .player_rewrite import PSEUDONYM_PREFIX
from .policy import AppPolicy
from .ports import SessionKind, SessionRecord

MAX_PLAYER_ID = 128
MAX_NAME = 200
MIN_DEVICE_ID = 16  # long enough to be unguessable: the device id is the credential
MAX_DEVICE_ID = 128
SESSION_PREFIX = "ts_"
REFRESH_PREFIX = "tr_"
FAMILY_BYTES = 16  # a session's refresh token family: 128 random bits
REFRESH_OWN_BYTES = 24  # each refresh token's own secret: 192 random bits
# Player ids the server makes up for device and guest sign-ins: an app's backend may
# not name its players with these prefixes, so they never collide.
SERVER_MADE_IDS = ("device:", "guest:", "account:", PSEUDONYM_PREFIX)
DEFAULT_PAGE = 50
MAX_PAGE = 500


class RefreshOutcome(StrEnum):
    ROTATED = "rotated"
    REUSED = "reused"  # an already rotated refresh token: the session is ended
    UNKNOWN = "unknown"  # no such live refresh token


@dataclass(frozen=True)
class NewSession:
    """A session to store: the tokens' hashes and lifetimes (epoch ms)."""

    session_id: str
    app_id: str
    player_id: str
    display_name: str
    kind: SessionKind
    access_hash: str
    access_expires_at: int
    refresh_hash: str
    refresh_expires_at: int
    address: str
    now: int  # also when it opened: the order ListPlayerSessions pages in
    family_hash: str  # the hash of the family every refresh token of it carries


@dataclass(frozen=True)
class Rotation:
    """A refresh: the new tokens' hashes and lifetimes for the session whose refresh
    token hashes to ``refresh_hash``."""

    refresh_hash: str
    # The hash of the family the token presented carries; None for a token issued
    # before families, of which only the session's last spent one is known.
    family_hash: str | None
    access_hash: str
    new_refresh_hash: str
    # The family of the new refresh token: the session's own, or (a session whose
    # token had none) the one it takes from now on.
    new_family_hash: str
    now: int  # the new tokens' lifetimes run from here, as the app's policy sets them


@dataclass(frozen=True)
class Issued:
    """A session's tokens, shown once: the client keeps both."""

    session_id: str
    player_id: str
    display_name: str
    access_token: str
    access_expires_at: int
    refresh_token: str
    refresh_expires_at: int


@dataclass(frozen=True)
class SessionInfo:
    """A session as the app's admin view lists it (no token, no hash)."""

    session_id: str
    player_id: str
    display_name: str
    kind: SessionKind
    created_at: int  # epoch ms: when it opened, which nothing changes
    last_used_at: int  # epoch ms: issued or last refreshed
    access_expires_at: int
    refresh_expires_at: int
    revoked: bool
    address: str


@dataclass(frozen=True)
class Revoked:
    sessions: int
    seat_tokens: int


class SessionRepository(Protocol):
    async def app_policy(self, app_id: str) -> AppPolicy | None:
        """A live app's policy; None for an unknown or revoked app."""
        ...

    async def set_app_policy(self, app_id: str, policy: AppPolicy) -> None: ...

    async def create_session(self, new: NewSession) -> None: ...

    async def rotate_refresh(
        self, rotation: Rotation
    ) -> tuple[RefreshOutcome, SessionRecord | None]:
        """In one transaction: the live session of the refresh token gets the new
        tokens, valid for the app's policy's lifetimes from ``rotation.now``
        (ROTATED, the session as refreshed); a token of a session's family that is not
        its current refresh token, or a family-less one that is its last spent one,
        ends the session and the session's seat tokens (REUSED), whether or not the
        session is still live; else UNKNOWN (the current token of a session expired,
        ended or of a revoked app included). Two refreshes of one token at once: one
        rotates, the other finds it spent (REUSED)."""
        ...

    async def end_session(self, session_id: str) -> Revoked:
        """The session and its seat tokens revoked, in one transaction."""
        ...

    async def revoke_player(self, app_id: str, player_id: str) -> Revoked:
        """Every session of the player and every seat token it holds in the app's games
        revoked, in one transaction."""
        ...

    async def list_sessions(
        self,
        app_id: str,
        player_id: str,
        live_only: bool,
        now: int,
        limit: int,
        after: Position | None,
    ) -> list[SessionInfo]:
        """Up to ``limit`` of the app's sessions (of one player, if given), newest
        opened first (``created_at`` descending, then ``session_id`` descending),
        after ``after``."""
        ...


def session_refused(reason: Reason, message: str) -> Refused:
    return Refused(Refusal.UNAUTHENTICATED, reason, message)


def _name(display_name: str) -> str:
    name = display_name.strip()
    if len(name) > MAX_NAME:
        raise malformed(f"display_name is at most {MAX_NAME} characters")
    return name


def app_player_id(player_id: str) -> str:
    """An app's own player id, as its backend names its players (CreatePlayerSession,
    a custom token's subject); MALFORMED_REQUEST for one out of shape or of the
    forms the server makes."""
    pid = player_id.strip()
    if not pid or len(pid) > MAX_PLAYER_ID:
        raise malformed(f"player_id is 1 to {MAX_PLAYER_ID} characters")
    if pid.startswith(SERVER_MADE_IDS):
        raise malformed(
            "player ids starting with 'device:', 'guest:', 'account:' or 'erased-' are the server's"
        )
    return pid


def _refresh_token(family: str) -> str:
    """A new refresh token of the family ``family`` (module docstring)."""
    return f"{REFRESH_PREFIX}{family}.{secrets.token_urlsafe(REFRESH_OWN_BYTES)}"


def refresh_family(token: str) -> str | None:
    """The family a refresh token carries; None for one without (issued before
    families, or not a token of this server)."""
    family, dot, _ = token.removeprefix(REFRESH_PREFIX).partition(".")
    return family if dot and family else None


def device_player_id(app_id: str, device_id: str) -> str:
    """The same device of the same app is always the same player; the id does not
    reveal the device id (which is the credential)."""
    digest = hashlib.sha256(f"{app_id}:{device_id}".encode()).hexdigest()
    return "device:" + digest[:32]


_PRINTABLE = re.compile(r"^[\x21-\x7e]+$")


class Sessions:
    def __init__(
        self,
        repo: SessionRepository,
        access: Access,
        clock: Clock,
        sign_in_limiter: RateLimiter | None = None,
    ) -> None:
        self.repo = repo
        self.access = access
        self.clock = clock
        # Device and guest sign-ins need no credential, and each makes a session row:
        # a bucket per peer address (per process, as every rate limit) keeps one
        # client from making them without end, or from guessing device ids quickly.
        # 10 at once, then one every 3 s; what counts: ``admitted``.
        self.sign_in_limiter = sign_in_limiter or RateLimiter(1 / 3, 10)

    # ----- opening a session -------------------------------------------------------

    async def issue(
        self,
        app_id: str,
        policy: AppPolicy,
        player_id: str,
        display_name: str,
        kind: SessionKind,
        address: str,
    ) -> Issued:
        now = self.clock()
        family = secrets.token_urlsafe(FAMILY_BYTES)
        access, refresh = SESSION_PREFIX + new_secret(), _refresh_token(family)
        new = NewSession(
            session_id=secrets.token_hex(16),
            app_id=app_id,
            player_id=player_id,
            display_name=display_name or player_id,
            kind=kind,
            access_hash=hash_secret(access),
            access_expires_at=policy.access_expiry(now),
            refresh_hash=hash_secret(refresh),
            refresh_expires_at=policy.refresh_expiry(now),
            address=address[:64],
            now=now,
            family_hash=hash_secret(family),
        )
        await self.repo.create_session(new)
        return Issued(
            new.session_id,
            player_id,
            new.display_name,
            access,
            new.access_expires_at,
            refresh,
            new.refresh_expires_at,
        )

    async def create(
        self, credentials: Credentials, player_id: str, display_name: str, address: str = ""
    ) -> Issued:
        """The app's backend opens a session for its player (API key)."""
        app = await self.access.calling_app(credentials)
        pid = app_player_id(player_id)
        name = _name(display_name)
        policy = await self.repo.app_policy(app.id) or AppPolicy()
        return await self.issue(app.id, policy, pid, name, SessionKind.SERVER, address)

    async def admitted(self, credentials: Credentials, app_id: str, kind: SessionKind) -> AppPolicy:
        """The policy of the app a client signs itself in to, once the sign-in is one
        that opens a session (the app live, its policy allowing ``kind``, the calling
        page's origin listed), counted against the peer's sign-in bucket.

        What the bucket counts: the sign-ins that could open a session, each whether
        its device id is new or known. It guards the table of sessions from a client
        making rows without end, and guessing device ids: a device id is the
        device's credential, and every well-formed one is a sign-in that works, so
        every one counts. A refusal opens nothing and cannot be a guess, so it gives
        its place back: a malformed request (refused before the bucket is looked at),
        an unknown app (counted instead as a failed authentication, as an unknown
        key is), sign-in turned off by the app's policy, an origin the policy does
        not list. A peer past its limit is refused (RATE_LIMITED) before anything is
        looked up."""
        if not app_id or len(app_id) > 32:
            raise malformed("app_id is required (the app's id, not its key)")
        self.access.throttle.check(credentials.peer, "")
        address = credentials.peer()
        wait = self.sign_in_limiter.take(address)
        if wait:
            raise rate_limited(wait)
        try:
            policy = await self.repo.app_policy(app_id)
            if policy is None:
                self.access.throttle.failed(address)
                raise Refused(Refusal.NOT_FOUND, Reason.APP_NOT_FOUND, "no such app")
            check_origin(policy, credentials.origin)
            if kind is SessionKind.DEVICE and not policy.device_sign_in:
                raise Refused(
                    Refusal.FORBIDDEN,
                    Reason.DEVICE_SIGN_IN_DISABLED,
                    "this app does not let devices sign in (its policy: device_sign_in)",
                )
            if kind is SessionKind.IDENTITY and not (
                policy.identity_providers or policy.custom_token_keys
            ):
                raise Refused(
                    Refusal.FORBIDDEN,
                    Reason.IDENTITY_SIGN_IN_DISABLED,
                    "this app accepts no identity (its policy: identity_providers,"
                    " custom_token_keys)",
                )
            if kind is SessionKind.GUEST and not policy.guest_sign_in:
                raise Refused(
                    Refusal.FORBIDDEN,
                    Reason.GUEST_SIGN_IN_DISABLED,
                    "this app does not let guests sign in (its policy: guest_sign_in)",
                )
        except Exception:  # refused, or the database unreachable: nothing was opened
            self.sign_in_limiter.give_back(address)
            raise
        return policy

    async def sign_in_device(
        self, credentials: Credentials, app_id: str, device_id: str, display_name: str
    ) -> Issued:
        """A client signs itself in with its device id, where the app allows it."""
        device = device_id.strip()
        if not MIN_DEVICE_ID <= len(device) <= MAX_DEVICE_ID or not _PRINTABLE.match(device):
            raise malformed(
                f"device_id is {MIN_DEVICE_ID} to {MAX_DEVICE_ID} printable characters"
                " (a random id the app keeps on the device)"
            )
        name = _name(display_name)
        policy = await self.admitted(credentials, app_id, SessionKind.DEVICE)
        return await self.issue(
            app_id,
            policy,
            device_player_id(app_id, device),
            name,
            SessionKind.DEVICE,
            credentials.peer(),
        )

    async def sign_in_guest(
        self, credentials: Credentials, app_id: str, display_name: str
    ) -> Issued:
        """A new player with no account, where the app allows it."""
        name = _name(display_name)
        policy = await self.admitted(credentials, app_id, SessionKind.GUEST)
        player_id = "guest:" + secrets.token_hex(16)
        return await self.issue(
            app_id, policy, player_id, name, SessionKind.GUEST, credentials.peer()
        )

    # ----- keeping and ending it ---------------------------------------------------

    async def refresh(self, credentials: Credentials, refresh_token: str) -> Issued:
        """New tokens for a live session; the refresh token given is spent."""
        token = refresh_token.strip()
        if not token.startswith(REFRESH_PREFIX):
            raise malformed("refresh_token is the tr_ token the session was opened with")
        self.access.throttle.check(credentials.peer, token)
        now = self.clock()
        family = refresh_family(token)
        kept = family or secrets.token_urlsafe(FAMILY_BYTES)
        access, refresh = SESSION_PREFIX + new_secret(), _refresh_token(kept)
        rotation = Rotation(
            refresh_hash=hash_secret(token),
            family_hash=None if family is None else hash_secret(family),
            access_hash=hash_secret(access),
            new_refresh_hash=hash_secret(refresh),
            new_family_hash=hash_secret(kept),
            now=now,
        )
        outcome, record = await self.repo.rotate_refresh(rotation)
        if outcome is RefreshOutcome.REUSED:
            self.access.throttle.failed(credentials.peer())
            raise session_refused(
                Reason.REFRESH_TOKEN_REUSED,
                "this refresh token was already used: the session is ended; sign in again",
            )
        if outcome is RefreshOutcome.UNKNOWN or record is None:
            self.access.throttle.failed(credentials.peer())
            raise session_refused(
                Reason.BAD_REFRESH_TOKEN, "unknown, expired or revoked refresh token"
            )
        policy = record.policy
        return Issued(
            record.session_id,
            record.player_id,
            record.display_name,
            access,
            policy.access_expiry(now),
            refresh,
            record.refresh_expires_at,
        )

    async def sign_out(self, credentials: Credentials) -> Revoked:
        """The caller's session ends, with the seat tokens it was given."""
        session = require_session(await self.access.identify(credentials))
        return await self.repo.end_session(session.session_id)

    async def revoke_player(self, credentials: Credentials, player_id: str) -> Revoked:
        """The app ends every session and seat token of one of its players."""
        app = await self.access.calling_app(credentials)
        pid = player_id.strip()
        if not pid or len(pid) > MAX_PLAYER_ID:
            raise malformed(f"player_id is 1 to {MAX_PLAYER_ID} characters")
        return await self.repo.revoke_player(app.id, pid)

    async def list(
        self,
        credentials: Credentials,
        player_id: str,
        live_only: bool,
        page_size: int,
        page_token: str,
    ) -> tuple[list[SessionInfo], str]:
        """A page of the app's sessions, newest opened first, and the next page's token
        (empty at the end): the position of the page's last session (``paging.Position``:
        when it opened, in epoch ms, and its id)."""
        app = await self.access.calling_app(credentials)
        size = page_size or DEFAULT_PAGE
        if not 1 <= size <= MAX_PAGE:
            raise malformed(f"page_size is 1..{MAX_PAGE}")
        after = Position.parse(page_token)
        rows = await self.repo.list_sessions(
            app.id, player_id.strip(), live_only, self.clock(), size + 1, after
        )
        page = rows[:size]
        if len(rows) <= size:
            return page, ""
        return page, Position(page[-1].created_at, page[-1].session_id).token()

    # ----- the app's policy --------------------------------------------------------

    async def policy(self, credentials: Credentials) -> AppPolicy:
        app = await self.access.calling_app(credentials)
        return await self.repo.app_policy(app.id) or AppPolicy()

    async def set_policy(self, credentials: Credentials, policy: AppPolicy) -> AppPolicy:
        app = await self.access.calling_app(credentials)
        checked = policy.check()
        await self.repo.set_app_policy(app.id, checked)
        return checked


def require_session(caller: Caller) -> SessionRecord:
    if caller.session is None:
        raise Refused(
            Refusal.FORBIDDEN,
            Reason.SESSION_TOKEN_REQUIRED,
            "this call needs a player session token",
        )
    return caller.session


class Clock(Protocol):
    def __call__(self) -> int:
        """Now, in milliseconds since the epoch."""
        ...


__all__: Sequence[str] = [
    "Issued",
    "NewSession",
    "RefreshOutcome",
    "Revoked",
    "Rotation",
    "SessionInfo",
    "SessionKind",
    "SessionRecord",
    "SessionRepository",
    "Sessions",
    "device_player_id",
    "refresh_family",
    "require_session",
]
