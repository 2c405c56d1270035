"""Who is calling, and whether they may: an app (its API key), an end user (a player
session's access token, ``ts_``) or a seat of a game (a player token, ``tp_``),
within their rate limits. Secrets are looked up by their hash and
never logged. The transports read the credentials from their requests (gRPC
metadata, HTTP headers) and hand them here as they are.

A credential works while it is neither revoked nor expired and its app is not
revoked (the repository's lookups check all three). Calls with unknown credentials
are throttled per peer address (``FailedAuthThrottle``): past a burst of failures a
peer's calls are refused before any lookup, so guessing costs the server nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..reasons import Reason
from .credentials import hash_secret
from .errors import Refusal, Refused, game_not_found, malformed, rate_limited
from .limits import RateLimiter
from .origins import Origins, check_origin, origin_not_allowed
from .ports import AppRecord, SeatGame, SessionRecord, TokenRecord

# An access token of a player session starts so (services/sessions.py); a seat's
# token with "tp_". Both travel as "authorization: Bearer".
SESSION_TOKEN_PREFIX = "ts_"


@dataclass(frozen=True)
class Caller:
    """Exactly one of the three is set."""

    app: AppRecord | None = None
    player: TokenRecord | None = None
    session: SessionRecord | None = None


@dataclass(frozen=True)
class Credentials:
    """What a call carried: an API key, a player token (either may be empty), and a
    way to learn the peer's address (asked only when it is needed)."""

    api_key: str = ""
    token: str = ""
    peer: Callable[[], str] = lambda: ""
    # The Origin of a web page on another site calling through the browser port
    # (services/origins.py); empty for native clients and the server's own page.
    origin: str = ""


# The headers a call's credentials travel in; the browser port hands a page's
# Origin on under a name of its own (api/context.py).
API_KEY_HEADER = "x-api-key"
AUTHORIZATION_HEADER = "authorization"
ORIGIN_HEADER = "origin"


def ambiguous_credentials(header: str) -> Refused:
    return Refused(
        Refusal.UNAUTHENTICATED,
        Reason.AMBIGUOUS_CREDENTIALS,
        f"the call carries {header} more than once: send each credential header once",
    )


def collected_credentials(
    api_keys: Sequence[str],
    authorizations: Sequence[str],
    origins: Sequence[str],
    peer: Callable[[], str],
) -> Credentials:
    """The credentials of a call from every value its transport found under each
    header (gRPC metadata and HTTP headers are lists: a header may come twice).

    A credential header comes at most once: a call with two ``x-api-key``, two
    ``authorization`` or two origins is refused (AMBIGUOUS_CREDENTIALS), even if
    both say the same, rather than one of them taken. Which one a transport,
    proxy or library would hand on first is not something a client can rely on,
    and a gateway that adds its own header to the client's must not have it
    silently ignored, or used in its stead. An ``authorization`` value other than
    ``Bearer <token>`` is no credential of this server (as if it were not sent),
    but it still counts as the header's one value."""
    if len(api_keys) > 1:
        raise ambiguous_credentials(API_KEY_HEADER)
    if len(authorizations) > 1:
        raise ambiguous_credentials(AUTHORIZATION_HEADER)
    if len(origins) > 1:
        raise ambiguous_credentials(ORIGIN_HEADER)
    token = ""
    if authorizations and authorizations[0][:7].lower() == "bearer ":
        token = authorizations[0][7:].strip()
    return Credentials(
        api_keys[0] if api_keys else "",
        token,
        peer,
        origins[0] if origins else "",
    )


class Seen(Protocol):
    """Where a player's call is recorded as a sighting of them
    (``services/player_presence.py``'s ``Sightings``)."""

    async def seen(self, app_id: str, player_id: str, *, batched: bool = False) -> None: ...


class CredentialRepository(Protocol):
    async def token(self, token: str) -> TokenRecord | None:
        """A working player token's seat (not revoked, not expired, its app live)."""
        ...

    async def seat_game(self, token: str) -> SeatGame | None:
        """The same, with the seat's game as it is now, in one read."""
        ...

    async def app_by_key(self, key: str) -> AppRecord | None:
        """The app of a working API key."""
        ...

    async def session(self, access_hash: str, now: int) -> SessionRecord | None:
        """The live session of an access token (by its hash): not revoked, not
        expired, its app live."""
        ...


def bad_token() -> Refused:
    return Refused(Refusal.UNAUTHENTICATED, Reason.BAD_TOKEN, "unknown, expired or revoked token")


def bad_session() -> Refused:
    return Refused(
        Refusal.UNAUTHENTICATED,
        Reason.BAD_SESSION,
        "unknown, expired or revoked session token: refresh it (RefreshSession) or sign in",
    )


def bad_api_key() -> Refused:
    return Refused(Refusal.UNAUTHENTICATED, Reason.BAD_API_KEY, "unknown or revoked API key")


def no_credentials() -> Refused:
    return Refused(
        Refusal.UNAUTHENTICATED,
        Reason.NO_CREDENTIALS,
        "send an x-api-key or an authorization: Bearer <player token> header",
    )


class FailedAuthThrottle:
    """Failed authentications per peer address: ``burst`` of them, refilling at
    ``rate`` a second; past that, the peer's calls are refused with RATE_LIMITED (and
    a ``retry_after_ms``) before any lookup, until the bucket refills.

    A call carrying a credential this process accepted within ``remember_seconds``
    still goes through: players behind the same address as a guesser (a carrier's
    NAT, or every client behind a balancer, whose address the server sees) keep
    playing. Like the rate limits, per process."""

    def __init__(
        self,
        rate: float = 5.0,
        burst: float = 20.0,
        remember_seconds: float = 3600.0,
        max_entries: int = 100_000,
    ) -> None:
        self._failures = RateLimiter(rate, burst, max_keys=max_entries)
        self._blocked: dict[str, float] = {}  # peer -> until (monotonic seconds)
        self._accepted: dict[str, float] = {}  # credential hash -> when (monotonic)
        self._remember = remember_seconds
        self._max_entries = max_entries
        self.enabled = rate > 0

    def check(self, peer: Callable[[], str], secret: str) -> None:
        """Refuse the call if its peer is blocked and ``secret`` was not accepted
        lately. Costs one test while no peer is blocked."""
        if not self._blocked:
            return
        address = peer()
        until = self._blocked.get(address)
        if until is None:
            return
        now = time.monotonic()
        if now >= until:
            del self._blocked[address]
            return
        seen = self._accepted.get(hash_secret(secret))
        if seen is not None and now - seen < self._remember:
            return
        raise rate_limited(until - now)

    def failed(self, address: str) -> None:
        """One failed authentication from ``address``."""
        if not self.enabled:
            return
        wait = self._failures.take(address)
        if wait:
            if len(self._blocked) >= self._max_entries:
                now = time.monotonic()
                self._blocked = {a: u for a, u in self._blocked.items() if u > now}
            self._blocked[address] = time.monotonic() + wait

    def accepted(self, credential_hash: str) -> None:
        """A credential that worked (kept for ``remember_seconds``)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if len(self._accepted) >= self._max_entries and credential_hash not in self._accepted:
            fresh = now - self._remember
            self._accepted = {h: t for h, t in self._accepted.items() if t > fresh}
            if len(self._accepted) >= self._max_entries:
                self._accepted.clear()
        self._accepted[credential_hash] = now


class Access:
    """The lookups of a call's credentials, throttled when they fail, and the rate
    limits of the credentials that work (a bucket per player token, by its hash, and
    one per app)."""

    def __init__(
        self,
        repo: CredentialRepository,
        throttle: FailedAuthThrottle | None = None,
        token_limiter: RateLimiter | None = None,
        app_limiter: RateLimiter | None = None,
        clock: Callable[[], int] | None = None,
        origins: Origins | None = None,
    ) -> None:
        self.repo = repo
        # The apps' allow-lists of web pages; without it, a call from a page on
        # another site is refused whenever its app is known only by its key.
        self.origins = origins
        # Now in epoch ms, to which sessions' expiries compare (tests move it).
        self.clock = clock or (lambda: int(time.time() * 1000))
        self.throttle = throttle or FailedAuthThrottle()
        self.token_limiter = token_limiter or RateLimiter(100, 200)
        self.app_limiter = app_limiter or RateLimiter(2000, 4000)
        # Players' presence: a call with a player's session or seat token sees them
        # (set by the wiring; None records nothing).
        self.sightings: Seen | None = None

    def _refused(self, credentials: Credentials, error: Refused) -> Refused:
        self.throttle.failed(credentials.peer())
        return error

    @staticmethod
    def _limited(wait: float) -> None:
        if wait:
            raise rate_limited(wait)

    def limit_player(self, player: TokenRecord) -> None:
        self._limited(self.token_limiter.take(player.token_hash))

    def limit_app(self, app: AppRecord) -> None:
        self._limited(self.app_limiter.take(app.id))

    async def identify(self, credentials: Credentials) -> Caller:
        """Who is calling (a player token first, then an API key), within the rate
        limit of their token or app."""
        caller = await self.authenticate(credentials)
        if caller.player is not None:
            self.limit_player(caller.player)
        elif caller.session is not None:
            self._limited(self.token_limiter.take(caller.session.token_hash))
        else:
            assert caller.app is not None
            self.limit_app(caller.app)
        return caller

    async def authenticate(self, credentials: Credentials) -> Caller:
        """Who is calling, without counting the call against a rate limit."""
        if credentials.token.startswith(SESSION_TOKEN_PREFIX):
            self.throttle.check(credentials.peer, credentials.token)
            session_hash = hash_secret(credentials.token)
            session = await self.repo.session(session_hash, self.clock())
            if session is None:
                raise self._refused(credentials, bad_session())
            self.throttle.accepted(session_hash)
            check_origin(session.policy, credentials.origin)
            if self.sightings is not None:
                await self.sightings.seen(session.app_id, session.player_id)
            return Caller(session=session)
        if credentials.token:
            self.throttle.check(credentials.peer, credentials.token)
            record = await self.repo.token(credentials.token)
            if record is None:
                raise self._refused(credentials, bad_token())
            self.throttle.accepted(record.token_hash)
            return Caller(player=record)
        if credentials.api_key:
            self.throttle.check(credentials.peer, credentials.api_key)
            app = await self.repo.app_by_key(credentials.api_key)
            if app is None:
                raise self._refused(credentials, bad_api_key())
            self.throttle.accepted(hash_secret(credentials.api_key))
            if credentials.origin:
                if self.origins is None:
                    raise origin_not_allowed(credentials.origin)
                await self.origins.check_app(app.id, credentials.origin)
            return Caller(app=app)
        raise no_credentials()

    async def calling_app(self, credentials: Credentials) -> AppRecord:
        """The calling app (an API key only), within its rate limit."""
        return require_app(await self.identify(credentials))

    async def seat_game(self, credentials: Credentials) -> SeatGame | None:
        """For a call with a player token: its seat and game in one read (the move
        path's only read), within the token's rate limit. None for a call without one."""
        if not credentials.token or credentials.token.startswith(SESSION_TOKEN_PREFIX):
            return None
        self.throttle.check(credentials.peer, credentials.token)
        loaded = await self.repo.seat_game(credentials.token)
        if loaded is None:
            raise self._refused(credentials, bad_token())
        self.throttle.accepted(loaded.player.token_hash)
        self.limit_player(loaded.player)
        seat = loaded.player.seat
        if self.sightings is not None and 0 <= seat < len(loaded.state.seats):
            player_id = loaded.state.seats[seat].player_id
            await self.sightings.seen(loaded.app_id, player_id, batched=True)
        return loaded


def require_app(caller: Caller) -> AppRecord:
    if caller.app is None:
        raise Refused(Refusal.FORBIDDEN, Reason.APP_KEY_REQUIRED, "this call needs an API key")
    return caller.app


def require_player(caller: Caller, game_id: str) -> TokenRecord:
    p = caller.player
    if p is None:
        if caller.session is not None:
            raise seat_token_required()
        raise Refused(
            Refusal.FORBIDDEN, Reason.PLAYER_TOKEN_REQUIRED, "this call needs a player token"
        )
    if p.game_id != game_id:
        raise Refused(Refusal.FORBIDDEN, Reason.WRONG_GAME, "the token is for another game")
    if p.seat < 0:
        raise Refused(Refusal.FORBIDDEN, Reason.SPECTATOR, "spectators cannot act")
    return p


def seat_token_required() -> Refused:
    """A session token where a seat's token is needed: a session acts at a table
    through the seat token JoinGame gave it."""
    return Refused(
        Refusal.FORBIDDEN,
        Reason.SEAT_TOKEN_REQUIRED,
        "a session token joins tables; play with the seat token JoinGame returned",
    )


def same_game(loaded: SeatGame, game_id: str) -> None:
    """A token of another game sees no game of this id."""
    if not game_id:
        raise malformed("game_id is required")
    if loaded.player.game_id != game_id:
        raise game_not_found()
