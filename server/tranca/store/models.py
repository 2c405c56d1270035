"""Tables: apps and their API keys, games with their snapshots, seats with their
player tokens, and the append-only move log."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    func,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Stable constraint names, so that migrations can name what they change.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class App(Base):
    """A third-party app. Its API key is stored as a SHA-256 hash only."""

    __tablename__ = "apps"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    permissions: Mapped[str] = mapped_column(String(500), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)
    # JSON: what the app lets its players' sessions do (services/sessions.py, AppPolicy).
    policy: Mapped[str] = mapped_column(Text, default="{}", server_default="{}")


class Game(Base):
    """A game's current snapshot. ``version`` counts the changes and is the
    compare-and-swap guard of every write."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), index=True)
    status: Mapped[str] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(BigInteger)
    preset: Mapped[str] = mapped_column(String(64))
    players: Mapped[int] = mapped_column(Integer)
    label: Mapped[str] = mapped_column(String(200), default="")
    setup: Mapped[str] = mapped_column(Text)  # JSON: what the game was created with
    snapshot: Mapped[str] = mapped_column(Text)  # JSON: the game state at ``version``
    snapshot_schema: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    # When the sweeper must look at the game next (milliseconds since the epoch): the
    # turn's time running out, a silent player's grace period ending, or a robot's
    # turn. NULL: nothing to do (no time limit, no robots, or the game is over).
    deadline_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # False while a finished game's ratings, ranking points, chips and tournament
    # result are still to be settled (by the sweeper, exactly once).
    settled: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    # SHA-256 of a private table's invite code; NULL for a public table.
    invite_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # The app's id for the table's owner (services/invitations.py): the player whose
    # session created it, or the one the app named; NULL: no owner.
    owner_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    # Until when some replica has watch streams open on the game (PostgreSQL; the
    # database's clock). A move's write sends its NOTIFY hint only while this lies
    # ahead: a notifying commit takes a server-wide lock, and many games have no
    # watcher (store/watch_leases.py). NULL: never watched.
    watched_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (
        Index("ix_games_app_created", "app_id", "created_at"),
        Index("ix_games_deadline", "deadline_at"),
        Index("ix_games_unsettled", "status", "settled"),
    )


class PlayerToken(Base):
    """A seat's (or a spectator's) token, stored as a SHA-256 hash only."""

    __tablename__ = "player_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)  # -1 for a spectator
    player_name: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)
    # The app's id for the player (ratings, ranking points and chips are its), and
    # the network address it played from (003: no ranking points between seats that
    # share one).
    player_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    address: Mapped[str] = mapped_column(String(64), default="", server_default="")
    # When the token stops being valid (milliseconds since the epoch): every token is
    # issued with a lifetime (JoinGameRequest.token_lifetime_seconds).
    expires_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # The player session the token was issued to (JoinGame with a session token):
    # signing out or revoking the player revokes it in the same transaction.
    session_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)

    __table_args__ = (Index("ix_player_tokens_player_id", "player_id"),)


class PlayerSession(Base):
    """An end user's session with an app: the access token (short-lived) and the
    refresh token (rotated at every refresh), stored as SHA-256 hashes only. Every
    refresh token of a session carries its family (``family_hash``): one of the family
    that is not the current token is a spent one, and revokes the session (someone
    holds a copy). ``previous_refresh_hash`` does the same for the last spent token of
    a session opened before families (services/sessions.py)."""

    __tablename__ = "player_sessions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"))
    player_id: Mapped[str] = mapped_column(String(128))
    display_name: Mapped[str] = mapped_column(String(200), server_default="")
    kind: Mapped[str] = mapped_column(String(16))  # "server", "device" or "guest"
    access_hash: Mapped[str] = mapped_column(String(64), unique=True)
    access_expires_at: Mapped[int] = mapped_column(BigInteger)  # epoch ms
    refresh_hash: Mapped[str] = mapped_column(String(64), unique=True)
    refresh_expires_at: Mapped[int] = mapped_column(BigInteger)  # epoch ms
    previous_refresh_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    # NULL for a session opened before families until its next refresh (0010).
    family_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    refreshed: Mapped[int] = mapped_column(Integer, server_default="0")
    revoked: Mapped[bool] = mapped_column(Boolean, server_default=false())
    address: Mapped[str] = mapped_column(String(64), server_default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    # Epoch ms by the server's clock when it opened: ListPlayerSessions' order and
    # page tokens (an integer reads the same on every database; 0010 filled it in
    # from created_at for the sessions before it).
    created_ms: Mapped[int] = mapped_column(BigInteger)
    last_used_at: Mapped[int] = mapped_column(BigInteger)  # epoch ms: issued or refreshed

    __table_args__ = (
        Index("ix_player_sessions_player", "app_id", "player_id"),
        Index("ix_player_sessions_family_hash", "family_hash", unique=True),
        Index("ix_player_sessions_app_created", "app_id", "created_ms", "id"),
    )


class MoveLog(Base):
    """The append-only log: one row per version of a game."""

    __tablename__ = "move_log"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    version: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)  # JSON of table.game.Action
    request_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    actor: Mapped[str] = mapped_column(String(16), default="player")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    __table_args__ = (UniqueConstraint("game_id", "request_id", name="uq_move_log_request"),)


class SeatPresence(Base):
    """When a seat's player last showed they were there (a heartbeat or an open
    watch stream), in milliseconds since the epoch; a seat silent for longer than
    the table's grace period is played by a robot."""

    __tablename__ = "seat_presence"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    last_seen_ms: Mapped[int] = mapped_column(BigInteger)


class PlayerRating(Base):
    """An app's player's rating (OpenSkill) and match record."""

    __tablename__ = "player_ratings"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class RankingAward(Base):
    """Ranking points one player earned in one competitive match (003)."""

    __tablename__ = "ranking_awards"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    points: Mapped[int] = mapped_column(Integer)
    won: Mapped[bool] = mapped_column(Boolean)
    awarded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_ranking_awards_app_time", "app_id", "awarded_at"),)


class ChipAccount(Base):
    """A chip account's balance: a player's ("player:<id>"), the house's, a match's
    pot ("pot:<game id>") or the mint's. The sum of the entries is the balance; the
    row makes the never-negative check one conditional update."""

    __tablename__ = "chip_accounts"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    account: Mapped[str] = mapped_column(String(200), primary_key=True)
    balance: Mapped[int] = mapped_column(BigInteger)


class ChipEntry(Base):
    """One side of a chip transfer: every transfer is two entries with the same
    ``txn``, summing to zero (double entry). Append-only."""

    __tablename__ = "chip_entries"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"))
    txn: Mapped[str] = mapped_column(String(64))
    account: Mapped[str] = mapped_column(String(200))
    amount: Mapped[int] = mapped_column(BigInteger)
    purpose: Mapped[str] = mapped_column(String(16))
    reference: Mapped[str] = mapped_column(String(128))  # the game or the grant
    balance_after: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    __table_args__ = (
        Index("ix_chip_entries_account", "app_id", "account", "id"),
        Index("ix_chip_entries_reference", "app_id", "reference"),
    )


class ChipOperation(Base):
    """One ledger operation (a grant, a match's stakes, its settlement or refund),
    by its idempotency key: a repeat finds it here and posts nothing."""

    __tablename__ = "chip_operations"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    key: Mapped[str] = mapped_column(String(200), primary_key=True)  # "grant:<id>", ...
    detail: Mapped[str] = mapped_column(Text)  # JSON: what was done
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class TournamentRecord(Base):
    """A tournament: what it was created with and every change since (pairings,
    results, withdrawals), from which ``platform.tournaments`` rebuilds it."""

    __tablename__ = "tournaments"
    __table_args__ = (Index("ix_tournaments_app_id_status", "app_id", "status"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), index=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    status: Mapped[str] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(BigInteger)
    config: Mapped[str] = mapped_column(Text)  # JSON
    events: Mapped[str] = mapped_column(Text)  # JSON list
    # The standings as the latest change left them (JSON list of Standing.to_dict,
    # best first), written in that change's transaction; NULL before migration 0009.
    standings: Mapped[str | None] = mapped_column(Text, nullable=True)
    # When a scheduled tournament needs a sweeper next (epoch ms; NULL: never by
    # itself), written with every change; a sweeper's claim moves it to a lease.
    due_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    # What ListTournaments filters and shows (NULL for a tournament stored before).
    preset: Mapped[str | None] = mapped_column(String(64), nullable=True)
    format: Mapped[str | None] = mapped_column(String(32), nullable=True)
    start_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    entrants: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class TournamentGame(Base):
    """The game of one tournament table."""

    __tablename__ = "tournament_games"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    table_no: Mapped[int] = mapped_column(Integer)

    __table_args__ = (
        UniqueConstraint("tournament_id", "round", "table_no", name="uq_tournament_games_table"),
    )


class TableMatch(Base):
    """A match played at a table after its first (services/rematch.py): the table's id
    (its first match's game id), the match's number there (from 2) and its game. The
    primary key lets exactly one rematch create a table's next match."""

    __tablename__ = "table_matches"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    match_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), unique=True)


class MatchTicket(Base):
    """A quick-play ticket: one player, or two partners, waiting for a table of one
    kind (``status`` "waiting"), then matched at ``game_id`` (``seats``: each player's
    seat, in the order of ``player_ids``) or cancelled (``reason``)."""

    __tablename__ = "match_tickets"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), index=True)
    player_ids: Mapped[str] = mapped_column(Text)  # JSON list
    display_names: Mapped[str] = mapped_column(Text)  # JSON list, as player_ids
    preset: Mapped[str] = mapped_column(String(64))
    players: Mapped[int] = mapped_column(Integer)
    competitive: Mapped[bool] = mapped_column(Boolean)
    stake: Mapped[int] = mapped_column(BigInteger)
    rating: Mapped[float] = mapped_column(Float)  # the party's mean mu when it asked
    # How long the ticket waits before robots may fill its table (the app's policy
    # when it asked); 0: no robots.
    robots_after_ms: Mapped[int] = mapped_column(BigInteger)
    turn_seconds: Mapped[int] = mapped_column(Integer)  # the table's turn timer
    status: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(String(32), server_default="")
    created_ms: Mapped[int] = mapped_column(BigInteger)
    ended_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    game_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    seats: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON list
    # The asking request's id: a retry gets the same ticket back.
    request_id: Mapped[str | None] = mapped_column(String(64), nullable=True)

    __table_args__ = (
        Index("ix_match_tickets_waiting", "status", "created_ms"),
        UniqueConstraint("app_id", "request_id", name="uq_match_tickets_request"),
    )


class TicketPlayer(Base):
    """A player's one waiting ticket: the key keeps a player from waiting twice."""

    __tablename__ = "ticket_players"

    app_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    ticket_id: Mapped[str] = mapped_column(ForeignKey("match_tickets.id"), index=True)


class PlayerTicket(Base):
    """Every ticket a player is or was in, one row per player of each ticket (the
    partner of a forming party too), with the ticket's ``created_ms``: a player's
    tickets newest first (ListQuickPlayTickets) without reading any other player's."""

    __tablename__ = "player_tickets"

    app_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    ticket_id: Mapped[str] = mapped_column(ForeignKey("match_tickets.id"), primary_key=True)
    created_ms: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        Index("ix_player_tickets_newest", "app_id", "player_id", "created_ms", "ticket_id"),
    )


class PlayerEvent(Base):
    """One event for one player of an app (``app.notifications``): written in the
    transaction of the change it comes from, read by the player's stream, and sent
    to the app's webhook through ``webhook_deliveries``. Append-only; pruned after
    the retention period."""

    __tablename__ = "player_events"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"))
    player_id: Mapped[str] = mapped_column(String(128))
    kind: Mapped[str] = mapped_column(String(32))
    game_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    payload: Mapped[str] = mapped_column(Text)  # JSON object
    created_at: Mapped[int] = mapped_column(BigInteger)  # epoch ms

    __table_args__ = (Index("ix_player_events_player", "app_id", "player_id", "id"),)


class AppWebhook(Base):
    """An app's webhook: where its players' events are POSTed, signed.

    The signing secret is stored as it is, not hashed (unlike API keys and tokens):
    the server must compute an HMAC with it for every delivery, and a hash cannot
    sign. It is shown to the app once, when set (SetWebhook), and never again."""

    __tablename__ = "app_webhooks"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    url: Mapped[str] = mapped_column(String(2048))
    secret: Mapped[str] = mapped_column(String(128))
    enabled: Mapped[bool] = mapped_column(Boolean, server_default=true())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class WebhookDelivery(Base):
    """The outbox: one row per event of an app with a webhook, written with the event.
    Any replica's sweeper claims the due rows (``next_attempt_at``, moved to the claim's
    lease while a replica POSTs, so a replica that dies mid-delivery leaves the row to
    come due again), and records each attempt's outcome."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    event_id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), ForeignKey("player_events.id"), unique=True
    )
    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"))
    status: Mapped[str] = mapped_column(String(16))  # "pending", "delivered" or "failed"
    attempts: Mapped[int] = mapped_column(Integer, server_default="0")
    next_attempt_at: Mapped[int] = mapped_column(BigInteger)  # epoch ms
    lease_until: Mapped[int | None] = mapped_column(BigInteger, nullable=True)  # epoch ms
    last_status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(200), nullable=True)
    delivered_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)  # epoch ms

    __table_args__ = (
        Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
        Index("ix_webhook_deliveries_app", "app_id", "id"),
    )


class PlayerIdentity(Base):
    """An identity a player signs in with (SignInWithIdentity): an OpenID Connect
    issuer and the subject it names, or ``custom`` and the app's own player id,
    linked to one player of the app. The identity is the key: two first sign-ins of
    one identity at once link it once (services/identity_sign_in.py)."""

    __tablename__ = "player_identities"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    issuer: Mapped[str] = mapped_column(String(200), primary_key=True)
    subject: Mapped[str] = mapped_column(String(255), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128))
    linked_ms: Mapped[int] = mapped_column(BigInteger)  # epoch ms

    __table_args__ = (Index("ix_player_identities_player", "app_id", "player_id"),)


class SpentIdentityToken(Base):
    """An identity token that opened a session, kept (as its SHA-256 hash) until it
    expires, so that it opens no other: a replay is refused."""

    __tablename__ = "spent_identity_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[int] = mapped_column(BigInteger, index=True)  # epoch ms


class PlayerProfile(Base):
    """A player's profile (services/profiles.py). ``name_key`` is the folded display
    name where the app asks for unique names (NULL otherwise): unique in the app, so
    that two players taking one name at once cannot both have it."""

    __tablename__ = "player_profiles"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(200))
    name_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    avatar_url: Mapped[str] = mapped_column(String(500), server_default="")
    locale: Mapped[str] = mapped_column(String(16), server_default="")
    country: Mapped[str] = mapped_column(String(2), server_default="")
    updated_ms: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (Index("ux_player_profiles_name", "app_id", "name_key", unique=True),)


class AuditRecord(Base):
    """One entry of an app's audit log (services/audit.py): an erasure or a merge of
    accounts, written in the action's own transaction."""

    __tablename__ = "audit_entries"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"))
    action: Mapped[str] = mapped_column(String(32))
    actor: Mapped[str] = mapped_column(String(16))  # "app" or "player"
    subject: Mapped[str] = mapped_column(String(200))
    detail: Mapped[str] = mapped_column(Text)  # JSON object
    created_ms: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (Index("ix_audit_entries_app", "app_id", "id"),)


class AvatarImage(Base):
    """A player's uploaded avatar, as kept (services/avatars.py): a small WebP and the
    digest of its bytes, which the profile's ``avatar_url`` names. One a player; a
    picture two players sent is kept for each (either may replace theirs)."""

    __tablename__ = "avatar_images"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), index=True)
    image: Mapped[bytes] = mapped_column(LargeBinary)
    created_ms: Mapped[int] = mapped_column(BigInteger)


class PlayerRelation(Base):
    """One side of a pair of players (services/friends.py): ``player_id``'s relation to
    ``other_id`` ("friend", "request_sent", "request_received", "blocked"), since
    ``since_ms``. A pair with no relation has no rows; both sides are written together,
    under a lock on the pair."""

    __tablename__ = "player_relations"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    other_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    relation: Mapped[str] = mapped_column(String(24))
    since_ms: Mapped[int] = mapped_column(BigInteger)


class ChatRoomRecord(Base):
    """A chat room's last message number (services/chat.py). A message takes the
    next number under the row's lock, so numbers are given in the order messages
    commit: a reader following a room after the last number it saw never skips a
    message that committed late."""

    __tablename__ = "chat_rooms"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    room: Mapped[str] = mapped_column(String(300), primary_key=True)
    last_seq: Mapped[int] = mapped_column(BigInteger)


class ChatMessageRecord(Base):
    """A chat message, or an amendment of one (kind "edit" or "delete", naming
    ``target_seq``), numbered in its room. ``author_key`` is who wrote it (a player
    id, or a seat's for a seat without one) and ``client_id`` the author's id for
    it: unique together in the room, so a message sent twice is kept once."""

    __tablename__ = "chat_messages"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    room: Mapped[str] = mapped_column(String(300), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    author_key: Mapped[str] = mapped_column(String(200))
    author_id: Mapped[str] = mapped_column(String(128))
    author_name: Mapped[str] = mapped_column(String(200))
    seat: Mapped[int] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)
    phrase: Mapped[str] = mapped_column(String(32))
    filtered: Mapped[bool] = mapped_column(Boolean)
    deleted: Mapped[bool] = mapped_column(Boolean)
    target_seq: Mapped[int] = mapped_column(BigInteger)
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_ms: Mapped[int] = mapped_column(BigInteger)
    edited_ms: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        Index("ux_chat_messages_client", "app_id", "room", "author_key", "client_id", unique=True),
        Index("ix_chat_messages_author", "app_id", "author_id"),
        Index("ix_chat_messages_created", "created_ms"),
    )


class ChatMute(Base):
    """A player's mute of another (services/chat_moderation.py): the muted player's
    messages hidden from them in every room."""

    __tablename__ = "chat_mutes"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    muted_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    created_ms: Mapped[int] = mapped_column(BigInteger)


class ChatReportRecord(Base):
    """A player's report of a message, with the messages around it as they were
    (``evidence``, JSON) and the game it was said at; resolved once by the app."""

    __tablename__ = "chat_reports"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"))
    reporter_id: Mapped[str] = mapped_column(String(128))
    reported_id: Mapped[str] = mapped_column(String(128))
    room: Mapped[str] = mapped_column(String(300))
    message_seq: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(Text)
    evidence: Mapped[str] = mapped_column(Text)  # JSON list of messages
    game_id: Mapped[str] = mapped_column(String(32))
    game_version: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16))
    resolution: Mapped[str] = mapped_column(String(16))
    note: Mapped[str] = mapped_column(Text)
    until_ms: Mapped[int] = mapped_column(BigInteger)
    created_ms: Mapped[int] = mapped_column(BigInteger)
    resolved_ms: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        Index("ux_chat_reports_once", "app_id", "reporter_id", "room", "message_seq", unique=True),
        Index("ix_chat_reports_queue", "app_id", "status", "id"),
    )


class PlayerReport(Base):
    """A report in the app's one queue: ``kind`` is "player", "game", "message" (a
    chat message: ``room`` and ``message_seq``) or "signal" (a finding of the
    fair-play signals' job: ``reporter_id`` is empty, ``reported_id`` and
    ``other_id`` the pair it names, ``category`` the signal). ``evidence`` is a JSON
    object (the chat around a message, the game's log position, a signal's games,
    moves and figures). ``dedupe_key`` (unique per app when set) makes a report once.
    ``status`` is "open" or "resolved"; ``resolution`` "dismiss", "warn", "mute" or
    "ban", by ``resolved_by``, until ``until_ms`` (0: none or no end)."""

    __tablename__ = "player_reports"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"))
    kind: Mapped[str] = mapped_column(String(16))
    reporter_id: Mapped[str] = mapped_column(String(128))
    reported_id: Mapped[str] = mapped_column(String(128))
    other_id: Mapped[str] = mapped_column(String(128))
    game_id: Mapped[str] = mapped_column(String(32))
    game_version: Mapped[int] = mapped_column(BigInteger)
    room: Mapped[str] = mapped_column(String(300))
    message_seq: Mapped[int] = mapped_column(BigInteger)
    category: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(Text)
    evidence: Mapped[str] = mapped_column(Text)  # a JSON object
    dedupe_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    resolution: Mapped[str] = mapped_column(String(16))
    note: Mapped[str] = mapped_column(Text)
    resolved_by: Mapped[str] = mapped_column(String(128))
    until_ms: Mapped[int] = mapped_column(BigInteger)
    created_ms: Mapped[int] = mapped_column(BigInteger)
    resolved_ms: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        Index("ux_player_reports_once", "app_id", "dedupe_key", unique=True),
        Index("ix_player_reports_queue", "app_id", "status", "id"),
        Index("ix_player_reports_reported", "app_id", "reported_id"),
    )


class ChatSanction(Base):
    """The sanction a player's chat is under (the latest resolution's): "mute" or
    "ban", until ``until_ms`` (0: no end)."""

    __tablename__ = "chat_sanctions"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    until_ms: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(Text)
    created_ms: Mapped[int] = mapped_column(BigInteger)


class TableInvitation(Base):
    """An invitation to a table (services/invitations.py): ``inviter_id`` invited
    ``invitee_id`` to a seat or to watch ``game_id``; its status as stored
    ("pending", "accepted", "declined", "cancelled": expired is read from
    ``expires_ms`` and the table). Written under a lock on (game, invitee), with its
    events."""

    __tablename__ = "table_invitations"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"))
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    inviter_id: Mapped[str] = mapped_column(String(128))
    invitee_id: Mapped[str] = mapped_column(String(128))
    kind: Mapped[str] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(16))
    created_ms: Mapped[int] = mapped_column(BigInteger)
    expires_ms: Mapped[int] = mapped_column(BigInteger)
    answered_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)

    __table_args__ = (
        Index("ix_table_invitations_invitee", "app_id", "invitee_id", "created_ms"),
        Index("ix_table_invitations_inviter", "app_id", "inviter_id", "created_ms"),
        Index("ix_table_invitations_game", "game_id", "invitee_id"),
    )


class PlayerPresenceRow(Base):
    """A player's presence (services/player_presence.py): when they were last seen
    (epoch ms; written at most every few seconds per process), whether they said they
    are away, and who may see it ("friends", "everyone", "nobody")."""

    __tablename__ = "player_presence"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    last_seen_ms: Mapped[int] = mapped_column(BigInteger)
    away: Mapped[bool] = mapped_column(Boolean)
    visibility: Mapped[str] = mapped_column(String(16))


class PlayerAbandonment(Base):
    """A player's abandonment of a rated match (platform/abandonment.py), written by
    the match's settlement: how ("left" or "away"), when the match ended, and until
    when quick play refuses them a ticket. A player's count is the number of rows."""

    __tablename__ = "player_abandonments"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    how: Mapped[str] = mapped_column(String(8))
    abandoned_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    cooldown_until: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PlayerProgressRow(Base):
    """A player's experience in an app (services/progression.py): XP, level and the
    counters achievements are set on (JSON: ``platform.progression.COUNTERS``)."""

    __tablename__ = "player_progress"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    xp: Mapped[int] = mapped_column(BigInteger)
    level: Mapped[int] = mapped_column(Integer)
    counters: Mapped[str] = mapped_column(Text)
    updated_ms: Mapped[int] = mapped_column(BigInteger)


class PlayerAchievementRow(Base):
    """An achievement a player unlocked: one row per app, player and achievement, so
    that a grant cannot be made twice."""

    __tablename__ = "player_achievements"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    achievement_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(32))  # the match that unlocked it
    unlocked_ms: Mapped[int] = mapped_column(BigInteger)


class ProgressionMatchRow(Base):
    """A match counted in a player's progress: one row per app, match and player, so
    that a match is counted once whatever settles it how often."""

    __tablename__ = "progression_matches"

    app_id: Mapped[str] = mapped_column(ForeignKey("apps.id"), primary_key=True)
    # The match counted, or a tournament won (its id: counted once too).
    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    xp: Mapped[int] = mapped_column(BigInteger)
    counted_ms: Mapped[int] = mapped_column(BigInteger)
