"""Every refusal reason the server can send: the stable code of a google.rpc.ErrorInfo
(and of the browser port's refusals), which apps switch on and the catalogue
(``api/localized.py``) words in each language. The values are the codes on the wire
and in the database: never renamed once released.

The rules engine keeps its own reasons (``tranca_rules.errors.Reason``), since it is
a distribution of its own that imports nothing of the server; they are listed here
too, with the same values (tests/server/test_localized.py checks that they agree).

This module imports nothing of tranca, so that every layer may use it.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """A refusal's stable code. Each member's comment says what the refusal means."""

    # ----- the rules (the same as tranca_rules.errors.Reason) ---------------------
    # The move cannot be read: its syntax, an unknown kind, a card that does not exist.
    MALFORMED_MOVE = "MALFORMED_MOVE"
    # The deal is over: no move is played until the next one.
    DEAL_OVER = "DEAL_OVER"
    # Another seat is to play (particular: ``seat``).
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    # A turn starts with a draw from the stock or the discard pile.
    MUST_DRAW_FIRST = "MUST_DRAW_FIRST"
    # The seat already drew this turn.
    ALREADY_DREW = "ALREADY_DREW"
    # There is no card left in the stock.
    STOCK_EMPTY = "STOCK_EMPTY"
    # There is no card in the discard pile to take.
    DISCARD_PILE_EMPTY = "DISCARD_PILE_EMPTY"
    # A black three on top locks the discard pile.
    DISCARD_PILE_LOCKED = "DISCARD_PILE_LOCKED"
    # The frozen pile's top card may only go onto a natural set of its rank.
    DISCARD_PILE_FROZEN = "DISCARD_PILE_FROZEN"
    # The top card taken from the discard pile must be melded at once.
    TOP_CARD_NOT_USED = "TOP_CARD_NOT_USED"
    # The card is not in the player's hand (particular: ``card``).
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    # There is no meld of that id (particular: ``meld``).
    UNKNOWN_MELD = "UNKNOWN_MELD"
    # The meld belongs to the other side (particular: ``meld``).
    NOT_YOUR_MELD = "NOT_YOUR_MELD"
    # The cards make no meld.
    INVALID_MELD = "INVALID_MELD"
    # More wild cards in one meld than the rules allow.
    TOO_MANY_WILDS = "TOO_MANY_WILDS"
    # The meld has fewer natural cards than the rules ask for.
    TOO_FEW_NATURALS = "TOO_FEW_NATURALS"
    # The rules do not allow this kind of meld (a run or a set).
    MELD_KIND_NOT_ALLOWED = "MELD_KIND_NOT_ALLOWED"
    # Threes are never melded under these rules.
    THREES_CANNOT_BE_MELDED = "THREES_CANNOT_BE_MELDED"
    # Black threes are melded only when going out.
    BLACK_THREES_ONLY_WHEN_GOING_OUT = "BLACK_THREES_ONLY_WHEN_GOING_OUT"
    # The card does not fit the meld it is added to.
    CARD_DOES_NOT_FIT = "CARD_DOES_NOT_FIT"
    # The rules do not let a natural card take a wild card's place.
    WILD_REPLACEMENT_NOT_ALLOWED = "WILD_REPLACEMENT_NOT_ALLOWED"
    # The card replaces no wild card: it is added to the meld instead.
    NOT_A_WILD_REPLACEMENT = "NOT_A_WILD_REPLACEMENT"
    # Going out needs a clean canastra under these rules.
    CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA = "CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA"
    # Going out needs a canastra.
    CANNOT_GO_OUT_WITHOUT_CANASTRA = "CANNOT_GO_OUT_WITHOUT_CANASTRA"
    # The move would leave no card to discard while the seat may not go out.
    MUST_KEEP_A_CARD_TO_DISCARD = "MUST_KEEP_A_CARD_TO_DISCARD"
    # The seat already laid its one new meld of the turn (knob one_meld_per_turn).
    ONE_MELD_PER_TURN = "ONE_MELD_PER_TURN"

    # ----- requests and credentials -----------------------------------------------
    # A request field out of its shape (particulars: the server's ``detail``, or a
    # string's ``field``, ``max_chars`` and ``problem``).
    MALFORMED_REQUEST = "MALFORMED_REQUEST"
    # The table's rules cannot be played (an unknown preset or incoherent knobs).
    INVALID_RULES = "INVALID_RULES"
    # The call carries no credentials.
    NO_CREDENTIALS = "NO_CREDENTIALS"
    # The call carries more than one credential.
    AMBIGUOUS_CREDENTIALS = "AMBIGUOUS_CREDENTIALS"
    # The API key is unknown or revoked.
    BAD_API_KEY = "BAD_API_KEY"
    # The seat token is unknown, expired or revoked.
    BAD_TOKEN = "BAD_TOKEN"
    # The player session token is unknown, expired or revoked.
    BAD_SESSION = "BAD_SESSION"
    # The refresh token is unknown, expired or revoked.
    BAD_REFRESH_TOKEN = "BAD_REFRESH_TOKEN"
    # A refresh token was used twice: the session is ended, as it may be stolen.
    REFRESH_TOKEN_REUSED = "REFRESH_TOKEN_REUSED"
    # The call needs the app's API key.
    APP_KEY_REQUIRED = "APP_KEY_REQUIRED"
    # The call needs a player's token.
    PLAYER_TOKEN_REQUIRED = "PLAYER_TOKEN_REQUIRED"
    # The call needs a player session token.
    SESSION_TOKEN_REQUIRED = "SESSION_TOKEN_REQUIRED"
    # The call needs a seat's token.
    SEAT_TOKEN_REQUIRED = "SEAT_TOKEN_REQUIRED"
    # The token is for another game.
    WRONG_GAME = "WRONG_GAME"
    # A spectator's token cannot act.
    SPECTATOR = "SPECTATOR"
    # The game has no spectators.
    NO_SPECTATORS = "NO_SPECTATORS"
    # The app may not choose the order of the cards.
    FIXED_DECK_NOT_ALLOWED = "FIXED_DECK_NOT_ALLOWED"
    # No such game, or none the caller may see.
    GAME_NOT_FOUND = "GAME_NOT_FOUND"
    # The table has no free seat.
    GAME_FULL = "GAME_FULL"
    # The table is private: joining it needs its invitation.
    INVITE_REQUIRED = "INVITE_REQUIRED"
    # The request id was already used for another action.
    REQUEST_ID_REUSED = "REQUEST_ID_REUSED"
    # The game is no longer at the expected version (particular: ``current_version``).
    VERSION_CONFLICT = "VERSION_CONFLICT"
    # Too many calls: the caller waits ``retry_after_ms`` before retrying.
    RATE_LIMITED = "RATE_LIMITED"
    # Too many open watch streams for the credential.
    TOO_MANY_WATCHES = "TOO_MANY_WATCHES"
    # The database cannot be reached or answered too slowly.
    DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE"
    # A bug: the server logged an incident and answers without details.
    INTERNAL = "INTERNAL"

    # ----- the game's state ---------------------------------------------------------
    # The seat is taken (gRPC ALREADY_EXISTS).
    SEAT_TAKEN = "SEAT_TAKEN"
    # The game cannot start: some seats are free.
    SEATS_FREE = "SEATS_FREE"
    # The game has started: the change is only for a waiting table.
    GAME_STARTED = "GAME_STARTED"
    # The game has not started yet.
    GAME_NOT_STARTED = "GAME_NOT_STARTED"
    # The game is over.
    GAME_OVER = "GAME_OVER"
    # The table has no seat of that number.
    NO_SUCH_SEAT = "NO_SUCH_SEAT"
    # The player already holds a seat at this table.
    PLAYER_SEATED = "PLAYER_SEATED"
    # A staked table needs every seat's player id.
    PLAYER_ID_REQUIRED = "PLAYER_ID_REQUIRED"
    # A robot holds the seat: its player takes it back first.
    ROBOT_SEATED = "ROBOT_SEATED"
    # No robot plays the seat.
    NOT_A_ROBOT_SEAT = "NOT_A_ROBOT_SEAT"
    # The table has no robots.
    NO_ROBOTS = "NO_ROBOTS"
    # The server's robots do not play at the level asked for.
    ROBOT_LEVEL_NOT_ALLOWED = "ROBOT_LEVEL_NOT_ALLOWED"
    # Robots sit only at practice tables, not rated ones.
    COMPETITIVE_TABLE = "COMPETITIVE_TABLE"
    # No robot holds the seat its player would take back.
    SEAT_NOT_HELD = "SEAT_NOT_HELD"
    # The seat the app would remove a player from is free.
    SEAT_FREE = "SEAT_FREE"
    # The app removed the player from this game: they cannot return.
    REMOVED_FROM_GAME = "REMOVED_FROM_GAME"
    # The table does not allow annulling the game.
    ANNULMENT_NOT_ALLOWED = "ANNULMENT_NOT_ALLOWED"
    # The seat has already voted to annul the game.
    ALREADY_VOTED = "ALREADY_VOTED"
    # The table's deals are not verifiable: it takes no entropy.
    NOT_VERIFIABLE = "NOT_VERIFIABLE"
    # The entropy string is out of its size.
    BAD_ENTROPY = "BAD_ENTROPY"
    # The table holds as many entropy strings as it takes.
    TOO_MUCH_ENTROPY = "TOO_MUCH_ENTROPY"
    # A player cannot cover the stake or the entry fee.
    INSUFFICIENT_CHIPS = "INSUFFICIENT_CHIPS"
    # Table options and player ids wait until every replica runs this release.
    PLATFORM_NOT_ENABLED = "PLATFORM_NOT_ENABLED"

    # ----- players, sessions, the lobby and quick play ----------------------------
    # No such app.
    APP_NOT_FOUND = "APP_NOT_FOUND"
    # The app does not let devices sign in.
    DEVICE_SIGN_IN_DISABLED = "DEVICE_SIGN_IN_DISABLED"
    # The app does not let guests sign in.
    GUEST_SIGN_IN_DISABLED = "GUEST_SIGN_IN_DISABLED"
    # The app accepts no identity (no identity provider, no custom token key).
    IDENTITY_SIGN_IN_DISABLED = "IDENTITY_SIGN_IN_DISABLED"
    # The app's policy names no identity provider of that name.
    IDENTITY_PROVIDER_UNKNOWN = "IDENTITY_PROVIDER_UNKNOWN"
    # The identity token does not hold (its signature, issuer, audience, times,
    # algorithm or nonce: the message says which).
    ID_TOKEN_INVALID = "ID_TOKEN_INVALID"
    # The identity token already opened a session: each opens one.
    ID_TOKEN_REPLAYED = "ID_TOKEN_REPLAYED"
    # The identity provider's keys cannot be fetched now and none are kept: retry.
    IDENTITY_KEYS_UNAVAILABLE = "IDENTITY_KEYS_UNAVAILABLE"
    # The identity is linked to another player (never moved or merged silently).
    IDENTITY_ALREADY_LINKED = "IDENTITY_ALREADY_LINKED"
    # The player has no such identity.
    IDENTITY_NOT_LINKED = "IDENTITY_NOT_LINKED"
    # The player's last identity, its only way to sign in, is kept.
    LAST_IDENTITY = "LAST_IDENTITY"
    # Another player of the app has that display name (the app asks for unique names).
    DISPLAY_NAME_TAKEN = "DISPLAY_NAME_TAKEN"
    # The app does not allow avatars from that host.
    AVATAR_HOST_NOT_ALLOWED = "AVATAR_HOST_NOT_ALLOWED"
    # The avatar sent is not a picture this server takes (format, size, pixels).
    AVATAR_INVALID = "AVATAR_INVALID"
    # The player has set no profile.
    PROFILE_NOT_FOUND = "PROFILE_NOT_FOUND"
    # A session asked for another player's data.
    NOT_YOUR_DATA = "NOT_YOUR_DATA"
    # The app does not let players' sessions export their data themselves.
    DATA_RIGHTS_DISABLED = "DATA_RIGHTS_DISABLED"
    # The player still sits at an unfinished game, is entered in an unfinished
    # tournament or waits in quick play: erasure waits until they are out.
    PLAYER_STILL_PLAYING = "PLAYER_STILL_PLAYING"
    # Two accounts to merge sat at one table or entered one tournament: merged, one
    # player would hold two seats of it.
    ACCOUNTS_SHARED_A_TABLE = "ACCOUNTS_SHARED_A_TABLE"
    # Friends (services/friends.py): no player of the app has that id.
    PLAYER_NOT_FOUND = "PLAYER_NOT_FOUND"
    # The caller blocked that player: unblock them first.
    PLAYER_BLOCKED = "PLAYER_BLOCKED"
    # The player does not take the caller's friend requests.
    FRIEND_REQUEST_REFUSED = "FRIEND_REQUEST_REFUSED"
    # No friend request to accept, decline or cancel.
    NO_FRIEND_REQUEST = "NO_FRIEND_REQUEST"
    # The player is not the caller's friend.
    NOT_FRIENDS = "NOT_FRIENDS"
    # A player's friends, requests waiting or blocks are at their limit.
    FRIEND_LIMIT_REACHED = "FRIEND_LIMIT_REACHED"
    # Chat (services/chat.py): the caller may not write (or read) in that room, or
    # the table's chat is off.
    CHAT_NOT_ALLOWED = "CHAT_NOT_ALLOWED"
    # The table chats in quick phrases only.
    CHAT_PHRASES_ONLY = "CHAT_PHRASES_ONLY"
    # No lobby room of that name in the app.
    CHAT_ROOM_NOT_FOUND = "CHAT_ROOM_NOT_FOUND"
    # At a rated table the players read the spectators' chat once the match is over.
    SPECTATOR_CHAT_HELD = "SPECTATOR_CHAT_HELD"
    # No such message in that room.
    MESSAGE_NOT_FOUND = "MESSAGE_NOT_FOUND"
    # Only a message's author edits or deletes it.
    NOT_YOUR_MESSAGE = "NOT_YOUR_MESSAGE"
    # The message is older than the time its author has to edit or delete it.
    EDIT_WINDOW_PASSED = "EDIT_WINDOW_PASSED"
    # The player's chat is muted, or banned, by the app's moderators (metadata
    # until_ms, note).
    CHAT_MUTED = "CHAT_MUTED"
    CHAT_BANNED = "CHAT_BANNED"
    # No such chat report; or it was resolved already.
    REPORT_NOT_FOUND = "REPORT_NOT_FOUND"
    REPORT_RESOLVED = "REPORT_RESOLVED"
    # A player mutes at most so many players.
    MUTE_LIMIT_REACHED = "MUTE_LIMIT_REACHED"
    # ----- invitations to a table (services/invitations.py) --------------------------
    # Only a player seated at the table, or its owner, invites to it.
    NOT_AT_TABLE = "NOT_AT_TABLE"
    # The player does not take the caller's invitations (they blocked the caller).
    INVITATION_REFUSED = "INVITATION_REFUSED"
    # No such invitation, or not the caller's to answer.
    INVITATION_NOT_FOUND = "INVITATION_NOT_FOUND"
    # The invitation expired: its time ran out, or its table started or ended.
    INVITATION_EXPIRED = "INVITATION_EXPIRED"
    # The invitation was accepted, declined or cancelled already.
    INVITATION_ANSWERED = "INVITATION_ANSWERED"
    # Too many invitations wait for an answer (from the inviter, or to the invitee).
    INVITATION_LIMIT_REACHED = "INVITATION_LIMIT_REACHED"
    # ----- the end of the invitations' block ------------------------------------------
    # The app's web origin is not among those it allows.
    ORIGIN_NOT_ALLOWED = "ORIGIN_NOT_ALLOWED"
    # The app's policy does not let players create tables.
    PLAYERS_MAY_NOT_CREATE_TABLES = "PLAYERS_MAY_NOT_CREATE_TABLES"
    # The app's policy does not offer these rules.
    PRESET_NOT_ALLOWED = "PRESET_NOT_ALLOWED"
    # The app's policy does not offer rated tables.
    COMPETITIVE_NOT_ALLOWED = "COMPETITIVE_NOT_ALLOWED"
    # The stake is above the app's policy's limit.
    STAKE_NOT_ALLOWED = "STAKE_NOT_ALLOWED"
    # A player session acts only for its own player.
    NOT_YOUR_PLAYER = "NOT_YOUR_PLAYER"
    # No such quick play ticket.
    TICKET_NOT_FOUND = "TICKET_NOT_FOUND"
    # The player already waits in quick play.
    ALREADY_WAITING = "ALREADY_WAITING"
    # The party invitation is no longer open.
    PARTY_NOT_FORMING = "PARTY_NOT_FORMING"
    # The chip grant id was used for another grant.
    GRANT_ID_REUSED = "GRANT_ID_REUSED"
    # No such kind of event.
    UNKNOWN_EVENT_KIND = "UNKNOWN_EVENT_KIND"
    # The webhook URL is missing, too long or not a URL.
    BAD_WEBHOOK_URL = "BAD_WEBHOOK_URL"
    # The webhook URL points into a private network.
    WEBHOOK_URL_FORBIDDEN = "WEBHOOK_URL_FORBIDDEN"
    # The webhook URL's host name does not resolve.
    WEBHOOK_URL_UNRESOLVED = "WEBHOOK_URL_UNRESOLVED"
    # The app has no webhook (to show, change or remove).
    WEBHOOK_NOT_FOUND = "WEBHOOK_NOT_FOUND"
    # The app has no webhook to deliver to.
    NO_WEBHOOK = "NO_WEBHOOK"
    # No such webhook delivery.
    DELIVERY_NOT_FOUND = "DELIVERY_NOT_FOUND"
    # Only a failed delivery is sent again.
    DELIVERY_NOT_FAILED = "DELIVERY_NOT_FAILED"

    # ----- tournaments --------------------------------------------------------------
    # The tournament's configuration cannot be set up.
    BAD_TOURNAMENT = "BAD_TOURNAMENT"
    # No such tournament.
    TOURNAMENT_NOT_FOUND = "TOURNAMENT_NOT_FOUND"
    # The tournament is over (finished or cancelled).
    TOURNAMENT_OVER = "TOURNAMENT_OVER"
    # The tournament kept changing under the change: the caller may retry.
    TOURNAMENT_CONFLICT = "TOURNAMENT_CONFLICT"
    # Registration is closed: outside its window, after the start or over.
    REGISTRATION_CLOSED = "REGISTRATION_CLOSED"
    # The tournament's field is full.
    TOURNAMENT_FULL = "TOURNAMENT_FULL"
    # The tournament has no check-in.
    NO_CHECK_IN = "NO_CHECK_IN"
    # The check-in window is not open.
    CHECK_IN_CLOSED = "CHECK_IN_CLOSED"
    # The entrant is already registered, with other players.
    ENTRANT_EXISTS = "ENTRANT_EXISTS"
    # No such entrant.
    ENTRANT_NOT_FOUND = "ENTRANT_NOT_FOUND"
    # Too few entrants still in for a round.
    NOT_ENOUGH_ENTRANTS = "NOT_ENOUGH_ENTRANTS"
    # The organiser's pairing does not seat every entrant still in exactly once.
    BAD_PAIRING = "BAD_PAIRING"
    # Only a Swiss round takes the organiser's pairing.
    PAIRING_NOT_ALLOWED = "PAIRING_NOT_ALLOWED"
    # The last round still has tables without a result.
    ROUND_NOT_COMPLETE = "ROUND_NOT_COMPLETE"
    # The round is not the current one.
    ROUND_NOT_CURRENT = "ROUND_NOT_CURRENT"
    # The round has not been played.
    ROUND_NOT_PLAYED = "ROUND_NOT_PLAYED"
    # Rounds start in order.
    ROUND_OUT_OF_ORDER = "ROUND_OUT_OF_ORDER"
    # The table already has its game's result: a forfeit no longer changes it.
    TABLE_DECIDED = "TABLE_DECIDED"
    # The table has no result to correct yet.
    NO_RESULT_YET = "NO_RESULT_YET"
    # A knockout result cannot be corrected so (no winner, or the next round paired).
    RESULT_FIXED = "RESULT_FIXED"
    # The prizes are paid: the results are final.
    PRIZES_PAID = "PRIZES_PAID"
    # ----- automatic mode and abandonment (003) ---------------------------------
    # The seat is in automatic mode already (SetAutomatic on twice).
    AUTOMATIC_ALREADY_ON = "AUTOMATIC_ALREADY_ON"
    # The seat is not in automatic mode (SetAutomatic off while the player plays).
    AUTOMATIC_NOT_ON = "AUTOMATIC_NOT_ON"
    # The player abandoned a rated match lately: quick play gives them no rated ticket
    # until the cooldown ends (particulars: ``retry_after_ms``, ``cooldown_until_ms``,
    # ``detail`` the minutes left as "N min").
    ABANDONMENT_COOLDOWN = "ABANDONMENT_COOLDOWN"

    # ----- tables that outlive their match (services/rematch.py) -------------------
    # A rematch is asked of a match that is not over yet.
    MATCH_NOT_OVER = "MATCH_NOT_OVER"
    # The seat has already confirmed the rematch.
    REMATCH_CONFIRMED = "REMATCH_CONFIRMED"
    # A tournament's table plays the match its round gives it, with the organiser's
    # options: no rematch there, and its head changes none of them.
    TOURNAMENT_TABLE = "TOURNAMENT_TABLE"
    # The seat is held for the player who sat there in the table's last match.
    SEAT_HELD = "SEAT_HELD"
    # Only the table head (the first player seated, 003's "jefe de mesa") changes the
    # table's options.
    NOT_TABLE_HEAD = "NOT_TABLE_HEAD"
    # That table option stays as the table was created (robots, verifiable deals,
    # annulment): the head changes only 003's "Opciones de mesa" and the chat.
    OPTION_FIXED = "OPTION_FIXED"
    # A seated player has not agreed to the table's stake or rated play since the head
    # changed them: the match cannot start yet (ConsentToOptions).
    CONSENT_PENDING = "CONSENT_PENDING"
    # The seat has nothing to agree to: no change of stake or rated play awaits it.
    NO_CONSENT_PENDING = "NO_CONSENT_PENDING"


__all__ = ["Reason"]
