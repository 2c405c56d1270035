"""Games and moves, as callers use them: create a table, take a seat, start, read a
seat's view and legal moves, move, leave, list an app's tables, replay a game, and
watch it change. Each use case checks who is calling (``Access``), reads what it
needs, and changes a game only through ``Moves``; nothing about a game is kept
between calls. The transports translate their requests into these calls and the
results into their answers. What a table may be is services/table_policy.py's; the
watch streams are services/watch.py's; what the use cases take and give is
services/game_values.py's (each importable from here too).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any, Protocol

import structlog

from tranca_rules.cards import shuffled_deck
from tranca_rules.engine import legal_moves
from tranca_rules.match import deal_seed
from tranca_rules.moves import KIND_NAMES, Move
from tranca_rules.state import DealState

from .. import metrics
from ..reasons import Reason
from ..table.action_kinds import ActionKind
from ..table.fairness import deal_reveal, new_server_secret
from ..table.game import (
    FINISHED,
    PLAYING,
    WAITING,
    Action,
    GameState,
    Setup,
    join_text,
    new_game,
    play_action,
    removed_from_game,
)
from .access import (
    Access,
    Caller,
    Credentials,
    require_app,
    require_player,
    same_game,
    seat_token_required,
)
from .boards import board_hidden, fold
from .credentials import hash_secret, new_seat_token
from .errors import Refusal, Refused, game_not_found, malformed
from .game_values import (
    DealReplay,
    Joining,
    Listed,
    LoggedChange,
    Moved,
    NewTable,
    Replay,
    Seated,
    Shown,
    WatchUpdate,
)
from .limits import MAX_TOKEN_LIFETIME, MIN_TOKEN_LIFETIME, WatchCounts
from .matches import Matches
from .move_values import ChosenMove, ChosenTurn, MoveValue, move_values
from .moves import Moves
from .paging import offset_token, parse_offset
from .player_rewrite import refuse_pseudonym
from .ports import (
    GameRecord,
    GameRepository,
    SeatGame,
    SeatToken,
    SessionRecord,
    TokenRecord,
)
from .presence import Presence
from .robots import EXPERT
from .table_builder import SeatPlan, build_table, join_action
from .table_policy import (
    FIXED_DECK,
    MAX_POINT_LIMIT,
    MAX_STAKE,
    MAX_TURN_SECONDS,
    Refuse,
    as_session,
    check_table_options,
    fixed_deck,
    preset_not_allowed,
    robot_level_allowed,
    rules_and_table,
    within_policy,
)
from .watch import Hints, Leases, WatchStreams

log = structlog.get_logger("tranca.games")

# A turn submitted in one request (SubmitTurn): at most this many moves, and a request
# id short enough that its rows' ids (``<id>#k``, moves.turn_request_ids) fit the log.
MAX_TURN_MOVES = 64
MAX_TURN_REQUEST_ID = 124


class GamesRepository(GameRepository, Protocol):
    """The reads and writes of games beyond a change (``GameRepository``)."""

    async def invite_hash(self, game_id: str) -> str | None: ...

    async def add_token(self, game_id: str, token: SeatToken) -> None: ...

    async def list_games(
        self, app_id: str, status: str | None, limit: int, offset: int, open_only: bool = False
    ) -> list[GameRecord]: ...

    async def deadline_of(self, game_id: str) -> tuple[int, int | None]: ...

    async def duplicate_round_in_play(self, game_id: str) -> bool:
        """Whether the game is a table of a duplicate tournament round some table of
        which still plays (its cards are then the others' hidden cards)."""
        ...


class PrivateTableGuests(Protocol):
    """Who a private table admits without its invite code (services/invitations.py,
    003: "sólo podrán sentarse jugadores que hayas invitado o amigos")."""

    async def admitted(self, app_id: str, game_id: str, player_id: str, spectator: bool) -> bool:
        """Whether the player is invited to the table (a pending or accepted
        invitation that admits to a seat, or to watch where ``spectator``), or is its
        owner or a friend of its owner."""
        ...


def legal_moves_of(state: GameState, seat: int) -> list[MoveValue]:
    """``seat``'s legal moves now, in canonical order; none when it is not its turn."""
    deal = state.deal
    if state.status == PLAYING and deal is not None and deal.turn == seat:
        return move_values(legal_moves(deal))
    return []


def no_spectators() -> Refused:
    return Refused(Refusal.FORBIDDEN, Reason.NO_SPECTATORS, "this game has no spectators")


# ----- the use cases ---------------------------------------------------------------------


class Games:
    def __init__(
        self,
        repo: GamesRepository,
        access: Access,
        moves: Moves,
        matches: Matches,
        presence: Presence,
        watches: WatchCounts,
        hints: Hints,
        leases: Leases,
        token_lifetime_seconds: int,
        *,
        robot_level: str = "greedy",
        robot_max_level: str = EXPERT,
        guests: PrivateTableGuests | None = None,
    ) -> None:
        self.repo = repo
        # Who a private table admits without its code (none: the code alone).
        self.guests = guests
        self.access = access
        self.moves = moves
        # The operator's robot level (a table's that asks for none), and the most
        # expensive level a table may ask for.
        self.robot_level = robot_level
        self.robot_max_level = robot_max_level
        self.matches = matches
        self.presence = presence
        self.watches = watches
        self.hints = hints
        self.leases = leases
        self.token_lifetime_seconds = token_lifetime_seconds
        self.streams = WatchStreams(repo, presence, watches, hints, leases, self.shown)

    # ----- who may see what --------------------------------------------------------

    async def game_for(self, caller: Caller, game_id: str) -> GameRecord:
        """The game, if the caller may see it; NOT_FOUND otherwise (other apps' games
        are invisible, not forbidden)."""
        if not game_id:
            raise malformed("game_id is required")
        if caller.session is not None:
            raise seat_token_required()
        game = await self.repo.game(game_id)
        if caller.app is not None and game.app_id != caller.app.id:
            raise game_not_found()
        if caller.player is not None and caller.player.game_id != game_id:
            raise game_not_found()
        return game

    async def session_game(self, session: SessionRecord, game_id: str) -> GameRecord:
        """A table a player's session may join: its app's, of a preset, rated play and
        stake its app's policy allows (other apps' games are invisible)."""
        if not game_id:
            raise malformed("game_id is required")
        game = await self.repo.game(game_id)
        if game.app_id != session.app_id:
            raise game_not_found()
        setup = game.state.setup
        if not session.policy.allows_preset(setup.rules.name):
            raise preset_not_allowed(setup.rules.name)
        within_policy(session.policy, setup.table.competitive, setup.table.stake)
        return game

    @staticmethod
    def viewer_seat(caller: Caller, game: GameRecord) -> int:
        if caller.player is not None:
            if caller.player.seat < 0 and not game.state.setup.spectators_allowed:
                raise no_spectators()
            return caller.player.seat
        return -1

    async def seat_of(self, credentials: Credentials, game_id: str) -> SeatGame:
        """The caller's seat (not a spectator's) and its game, in the move path's one
        read; without a player token, the refusal its credentials call for."""
        loaded = await self.access.seat_game(credentials)
        if loaded is None:
            caller = await self.access.identify(credentials)
            await self.game_for(caller, game_id)
            require_player(caller, game_id)
            raise AssertionError("require_player refuses a caller without a player token")
        same_game(loaded, game_id)
        require_player(Caller(player=loaded.player), game_id)
        return loaded

    # ----- tables and seats --------------------------------------------------------

    async def create(self, credentials: Credentials, new: NewTable) -> tuple[GameRecord, str]:
        """A new game waiting for players, and a private table's invite code: by the
        app, or by a player's session where the app's policy lets its players create
        tables (within its presets, rated play and stakes)."""
        caller = await self.access.identify(credentials)
        owner = new.owner_id.strip()
        if caller.session is not None:
            if owner and owner != caller.session.player_id:
                raise Refused(
                    Refusal.FORBIDDEN,
                    Reason.NOT_YOUR_PLAYER,
                    "a session's table is its own player's (leave owner_player_id empty)",
                )
            owner = caller.session.player_id
            app_id, permissions = caller.session.app_id, frozenset[str]()
            policy = caller.session.policy
            if not policy.players_create_tables:
                raise Refused(
                    Refusal.FORBIDDEN,
                    Reason.PLAYERS_MAY_NOT_CREATE_TABLES,
                    "this app's players may not create tables (its policy)",
                )
            if not policy.allows_preset(new.preset):
                raise preset_not_allowed(new.preset)
            within_policy(policy, new.table.competitive, new.table.stake)
        else:
            app = require_app(caller)
            app_id, permissions = app.id, app.permissions
        rules = rules_and_table(new.preset, new.overrides, new.players, new.table, malformed)
        robot_level_allowed(new.table, self.robot_max_level)
        table = new.table
        deck = None
        if new.deck:
            deck = fixed_deck(
                permissions,
                new.deck,
                rules.jokers,
                malformed,
                field="deck",
                wrong_cards="deck must hold exactly the cards of the preset's deck",
            )
        if table.verifiable and deck is not None:
            raise malformed("a verifiable table shuffles its own deck: give no deck")
        seed = new.seed or secrets.randbits(63)
        secret = new_server_secret() if table.verifiable else None
        setup = Setup(rules, new.players, seed, deck, new.spectators_allowed, table, secret)
        invite = "ti_" + secrets.token_urlsafe(12) if table.private else ""
        # A table waiting for players; its seats are joined and its deal dealt through
        # ``Moves`` (join, start), with the table builder's actions.
        if owner:
            refuse_pseudonym(owner, "owner_player_id")
            if len(owner) > 128:
                raise malformed("owner_player_id is at most 128 characters")
        built = build_table(
            app_id,
            setup,
            label=new.label,
            invite_hash=hash_secret(invite) if invite else None,
            owner_id=owner or None,
        )
        game_id = await self.repo.create_game(built.new)
        return await self.repo.game(game_id), invite

    async def join(self, credentials: Credentials, game_id: str, wanted: Joining) -> Seated:
        """A seat (or a spectator's place, or a robot's seat) at a table: the app seats
        whom it names; a player's session seats its own player (its player id and
        display name), at a table of its app its policy allows. A player the app
        removed from the table is refused (REMOVED_FROM_GAME), whoever asks."""
        caller = await self.access.identify(credentials)
        session = caller.session
        if session is None:
            require_app(caller)
            game = await self.game_for(caller, game_id)
        else:
            game = await self.session_game(session, game_id)
            wanted = as_session(session, wanted)
        name = wanted.player_name.strip()
        lifetime = wanted.token_lifetime_seconds or self.token_lifetime_seconds
        if not MIN_TOKEN_LIFETIME <= lifetime <= MAX_TOKEN_LIFETIME:
            raise malformed(
                f"token_lifetime_seconds is {MIN_TOKEN_LIFETIME} to {MAX_TOKEN_LIFETIME}"
                " (0: the server's default)"
            )
        expires_at = self.moves.clock() + lifetime * 1000
        if session is not None:
            # No seat token outlives the session it was given to.
            expires_at = min(expires_at, session.refresh_expires_at)
        session_id = None if session is None else session.session_id
        state = game.state
        if session is not None and session.player_id in state.removed_players:
            # The app removed this player (AdminService.RemoveSeat): no seat, no new
            # token for the one they held, not even a spectator's place.
            raise removed_from_game()
        table = state.setup.table
        if table.private:
            # Spectators of a private table need the invitation too.
            who = session.player_id if session is not None else wanted.player_id.strip()
            await self._admit_private(game, wanted, who)
        player_id = wanted.player_id.strip()
        refuse_pseudonym(player_id)
        if wanted.robot and (wanted.spectator or player_id):
            raise malformed("a robot's seat is no spectator's and has no player_id")
        if wanted.spectator:
            if not state.setup.spectators_allowed:
                raise no_spectators()
            token, spectator = new_seat_token(
                -1, name, expires_at=expires_at, session_id=session_id
            )
            await self.repo.add_token(game.id, spectator)
            return Seated(-1, token, expires_at)
        if session is not None and not wanted.robot:
            held = [i for i, s in enumerate(state.seats) if s.player_id == session.player_id]
            if held:
                # The session's player already holds a seat here (from another device,
                # or before signing out): a new token for that seat, not a second seat.
                token, again = new_seat_token(
                    held[0],
                    state.seats[held[0]].name,
                    session.player_id,
                    credentials.peer(),
                    expires_at=expires_at,
                    session_id=session_id,
                )
                await self.repo.add_token(game.id, again)
                return Seated(held[0], token, expires_at)
        seat = wanted.seat
        if seat == -1:
            # A seat a rematch holds for its last player is not free (services/rematch.py).
            free = [i for i, s in enumerate(state.seats) if not s.taken and i not in state.held]
            if not free or state.status != WAITING:
                raise Refused(Refusal.PRECONDITION, Reason.GAME_FULL, "no free seat")
            seat = free[0]
        elif not 0 <= seat < state.setup.players:
            raise malformed(f"seat must be -1 or 0..{state.setup.players - 1}")
        if wanted.robot:
            # The server's robot plays the seat (services/timers.py); the game refuses
            # it at a table without robots or a competitive one. No token.
            await self.moves.apply(game.id, join_action(seat, SeatPlan(name=name, robot=True)))
            return Seated(seat)
        if table.competitive and not player_id:
            raise malformed("a competitive table needs every seat's player_id")
        await self.matches.check_can_cover(game.app_id, player_id, table.stake)
        address = wanted.address.strip() or credentials.peer()
        token, seat_token = new_seat_token(
            seat, name, player_id or None, address, expires_at=expires_at, session_id=session_id
        )
        # The stake and rated play the player saw (a change by the head since, landing
        # first in the log, asks them to agree: ``GameState.unconsented``).
        seen = 0 if state.table_change is None else state.table_change.terms_version
        joining = join_action(seat, SeatPlan(player_id, name or f"player {seat}"))
        await self.moves.apply(
            game.id, replace(joining, text=join_text(seen)), new_token=seat_token
        )
        return Seated(seat, token, expires_at)

    async def _admit_private(self, game: GameRecord, wanted: Joining, player_id: str) -> None:
        """A private table admits whoever gives its invite code, and without it
        (003: "jugadores que hayas invitado o amigos") a player seated at it, invited
        to it, its owner or a friend of its owner; INVITE_REQUIRED anyone else."""
        expected = await self.repo.invite_hash(game.id)
        given = hash_secret(wanted.invite_code) if wanted.invite_code else ""
        if expected is not None and secrets.compare_digest(expected, given):
            return
        if player_id and not wanted.robot:
            if any(s.player_id == player_id for s in game.state.seats):
                return
            if self.guests is not None and await self.guests.admitted(
                game.app_id, game.id, player_id, wanted.spectator
            ):
                return
        raise Refused(
            Refusal.FORBIDDEN,
            Reason.INVITE_REQUIRED,
            "this table is private: JoinGame needs its invite code, an invitation"
            " (InvitationService) or the owner's friendship",
        )

    async def start(self, credentials: Credentials, game_id: str) -> Shown:
        """Deal the first deal (every seat taken): the app or a seated player."""
        caller = await self.access.identify(credentials)
        game = await self.game_for(caller, game_id)
        if caller.player is not None and caller.player.seat < 0:
            raise Refused(Refusal.FORBIDDEN, Reason.SPECTATOR, "spectators cannot act")
        done = await self.matches.start(game.id)
        seat = caller.player.seat if caller.player is not None else -1
        # The start set a timed table's first turn deadline: the view shows it, as
        # GetView would (a start never leaves an earlier deadline standing).
        deadline = done.deadline_at if done.deadline_set else None
        return await self.shown(game.id, done.version, done.state, seat, deadline)

    async def leave(self, credentials: Credentials, game_id: str, request_id: str) -> int:
        """Before the start the seat is freed (its tokens revoked); once the game is
        under way (or over, for a retried resignation) leaving resigns. The version."""
        caller = await self.access.identify(credentials)
        game = await self.game_for(caller, game_id)
        player = require_player(caller, game.id)
        # The game logic refuses a resignation from a finished game.
        kind = ActionKind.LEAVE if game.state.status == WAITING else ActionKind.RESIGN
        done = await self.moves.apply(
            game.id,
            Action(kind, player.seat),
            request_id=request_id or None,
            revoke_seat=player.seat if kind == ActionKind.LEAVE else None,
        )
        return done.version

    async def list(
        self,
        credentials: Credentials,
        status: str | None,
        page_size: int,
        page_token: str,
        open_only: bool,
    ) -> tuple[list[GameRecord], str]:
        """A page of the app's games, newest first, and the next page's token. A
        player's session sees only the public tables with a free seat."""
        caller = await self.access.identify(credentials)
        if caller.session is not None:
            app_id, open_only = caller.session.app_id, True
        else:
            app_id = require_app(caller).id
        size = page_size or 50
        if not 1 <= size <= 500:
            raise malformed("page_size is 1..500")
        offset = parse_offset(page_token)
        games = await self.repo.list_games(app_id, status, size + 1, offset, open_only=open_only)
        return games[:size], offset_token(offset + size) if len(games) > size else ""

    # ----- reading and moving ------------------------------------------------------

    async def shown(
        self,
        game_id: str,
        version: int,
        state: GameState,
        seat: int,
        deadline_at: int | None = None,
    ) -> Shown:
        """The game at ``version`` for ``seat``, its last deal's final table withheld
        where it must be (services/boards.py)."""
        hidden = await board_hidden(self.repo, game_id, state)
        return Shown(game_id, version, state, seat, deadline_at, hidden)

    async def view(self, credentials: Credentials, game_id: str) -> Shown:
        """The game as the caller may see it: a seat its own hand, an app or a
        spectator no hand. A seat's call shows that its player is there."""
        loaded = await self.access.seat_game(credentials)
        if loaded is not None:
            same_game(loaded, game_id)
            seat = loaded.player.seat
            if seat < 0 and not loaded.state.setup.spectators_allowed:
                raise no_spectators()
            await self.presence.touch(game_id, seat, loaded.state)
            return await self.shown(game_id, loaded.version, loaded.state, seat, loaded.deadline_at)
        caller = await self.access.identify(credentials)
        game = await self.game_for(caller, game_id)
        seat = self.viewer_seat(caller, game)
        return await self.shown(game.id, game.version, game.state, seat, game.deadline_at)

    async def legal_moves(self, credentials: Credentials, game_id: str) -> Listed:
        """The seat's game and its legal moves (none when it is not its turn)."""
        loaded = await self.seat_of(credentials, game_id)
        seat = loaded.player.seat
        await self.presence.touch(game_id, seat, loaded.state)
        return Listed(
            game_id,
            loaded.version,
            loaded.state,
            seat,
            loaded.deadline_at,
            legal=legal_moves_of(loaded.state, seat),
        )

    async def _mover(
        self, credentials: Credentials, game_id: str, request_id: str
    ) -> tuple[SeatGame, TokenRecord]:
        """The seat's game and its player, for a move or a turn: the caller holds a
        seat of ``game_id`` and the request carries its request id."""
        loaded = await self.access.seat_game(credentials)
        if not game_id:
            raise malformed("game_id is required")
        if loaded is None:
            caller = await self.access.identify(credentials)
            require_player(caller, game_id)
            raise AssertionError("require_player refuses a caller without a player token")
        player = require_player(Caller(player=loaded.player), game_id)
        if not request_id:
            raise malformed("request_id is required")
        return loaded, player

    async def move(
        self,
        credentials: Credentials,
        game_id: str,
        move: ChosenMove | Move,
        *,
        expected_version: int,
        request_id: str,
        with_legal_moves: bool = False,
    ) -> Moved:
        """The seat's move (read from the request, services/move_values.py: a move
        that could not be read is refused only once the caller is known, so that a
        malformed move from a caller without a seat is refused for the seat), and,
        ``with_legal_moves``, the seat's legal moves after it. A retry with the same
        request id gets the first answer."""
        loaded, player = await self._mover(credentials, game_id, request_id)
        chosen = move.get() if isinstance(move, ChosenMove) else move
        done = await self.moves.move(
            loaded,
            play_action(player.seat, chosen),
            expected_version=expected_version,
            request_id=request_id,
        )
        kind = KIND_NAMES[chosen.kind]
        if done.replayed:
            metrics.REPLAYS.inc()
        else:
            metrics.moves_applied(kind).inc()
        # Game id, version, seat and move kind only: never a secret, never a card. At
        # debug level: the move log holds every move, and at info a busy server would
        # write a line per move (`tranca serve --log-level debug` shows them).
        log.debug(
            "move",
            game_id=game_id,
            version=done.version,
            seat=player.seat,
            kind=kind,
            replayed=done.replayed,
        )
        # The move's own write set the deadline when it started a turn; else it stands.
        deadline = done.deadline_at if done.deadline_set else loaded.deadline_at
        shown = await self.shown(game_id, done.version, done.state, player.seat, deadline)
        legal = legal_moves_of(done.state, player.seat) if with_legal_moves else ()
        return Moved(shown, done.replayed, legal)

    async def turn(
        self,
        credentials: Credentials,
        game_id: str,
        moves: ChosenTurn | Sequence[Move],
        *,
        expected_version: int,
        request_id: str,
        with_legal_moves: bool = False,
    ) -> Moved:
        """A sequence of the seat's moves in one request (a turn: melds, adds and the
        discard after a draw), applied all or none in one write, each logged as its
        own move at its own version; the answer shows the game after the last.
        A move that could not be read is refused once the caller is known. The k-th
        move refused is a ``MoveRefused`` naming k, and nothing is written. A retry
        with the same request id gets the first answer."""
        loaded, player = await self._mover(credentials, game_id, request_id)
        if len(request_id) > MAX_TURN_REQUEST_ID:
            raise malformed(f"request_id is at most {MAX_TURN_REQUEST_ID} characters")
        chosen = moves.get() if isinstance(moves, ChosenTurn) else moves
        if not chosen:
            raise malformed("moves holds at least one move")
        if len(chosen) > MAX_TURN_MOVES:
            raise malformed(f"moves holds at most {MAX_TURN_MOVES} moves")
        done = await self.moves.turn(
            loaded,
            [play_action(player.seat, m) for m in chosen],
            expected_version=expected_version,
            request_id=request_id,
        )
        if done.replayed:
            metrics.REPLAYS.inc()
        else:
            for m in chosen:
                metrics.moves_applied(KIND_NAMES[m.kind]).inc()
        log.debug(
            "turn",
            game_id=game_id,
            version=done.version,
            seat=player.seat,
            moves=len(chosen),
            replayed=done.replayed,
        )
        deadline = done.deadline_at if done.deadline_set else loaded.deadline_at
        shown = await self.shown(game_id, done.version, done.state, player.seat, deadline)
        legal = legal_moves_of(done.state, player.seat) if with_legal_moves else ()
        return Moved(shown, done.replayed, legal)

    # ----- the past and the future -------------------------------------------------

    async def replay(self, credentials: Credentials, game_id: str) -> Replay:
        """The move log and, for every deal that is over, its cards as dealt (the deal
        under way keeps its hidden cards hidden)."""
        caller = await self.access.identify(credentials)
        game = await self.game_for(caller, game_id)
        self.viewer_seat(caller, game)
        # The setup as created: the log folds from it (the head's changes are in it).
        setup = game.state.created
        # A table of a duplicate tournament round shares its seed and decks with the
        # round's other tables: while one of them plays, they are its hidden cards, so
        # the seed and every deck (and proof) wait until every game of the round ends.
        cards_shown = not await self.repo.duplicate_round_in_play(game.id)
        rows = await self.repo.log(game.id)
        # Rebuild the game from its log to read every finished deal's result.
        state = new_game(setup)
        results: dict[int, dict[str, Any]] = {}
        finals: dict[int, DealState] = {}  # each finished deal as it ended
        moves: list[LoggedChange] = []
        for row in rows:
            ended = fold(state, row.action, row.version)
            if ended:
                assert state.last_deal is not None
                results[ended] = state.last_deal
                board = state.deal_board()
                assert board is not None
                finals[ended] = board[1]
            moves.append(LoggedChange(row, state.deal_number, ended))
        seed = setup.seed if game.state.status == FINISHED and cards_shown else None
        replay = Replay(game, seed, moves)
        match = state.match
        if match is None:
            return replay
        secret = setup.server_secret
        shown: list[int] = sorted(results)
        if secret is not None and state.status == FINISHED and state.deal_number not in results:
            # A verifiable match that ended inside a deal (a resignation, an annulment):
            # nothing of that deal is hidden any more, so its proof is shown too.
            shown.append(state.deal_number)
        for index in shown:
            dealer = match.dealer_of(index - 1)
            result = results.get(index)
            final = finals.get(index)
            if not cards_shown:
                replay.deals.append(DealReplay(index, dealer, result))  # no cards yet
            elif secret is not None:
                reveal = deal_reveal(secret, index, state.entropy, setup.rules.jokers)
                replay.deals.append(DealReplay(index, dealer, result, None, reveal, final))
            else:
                deck = (
                    list(setup.deck)
                    if index == 1 and setup.deck
                    else shuffled_deck(setup.rules.jokers, deal_seed(setup.seed, index - 1))
                )
                replay.deals.append(DealReplay(index, dealer, result, deck, None, final))
        return replay

    async def watch(
        self, credentials: Credentials, game_id: str, from_version: int
    ) -> AsyncIterator[WatchUpdate]:
        """Every version after ``from_version`` as the caller sees it, in order and
        without gaps, for as long as the caller reads (to the match's end). Open
        streams are capped per player token and per API key in this process
        (services/watch.py folds the state forward from the log, so nothing is
        skipped even if hints are lost)."""
        caller = await self.access.identify(credentials)
        game = await self.game_for(caller, game_id)
        seat = self.viewer_seat(caller, game)
        if caller.player is not None:
            key, cap = f"token:{caller.player.token_hash}", self.watches.per_token
        else:
            assert caller.app is not None
            key, cap = f"app:{caller.app.id}", self.watches.per_app
        # Nothing of the caller or of the record read first is kept while the stream
        # waits, for hours (docs/PERFORMANCE.md, "Memory per watch stream").
        updates = self.streams.stream(game, seat, from_version, key, cap)
        del caller, credentials, game
        async with contextlib.aclosing(updates):
            while True:  # no loop variable: the last update is not kept while it waits
                try:
                    yield await anext(updates)
                except StopAsyncIteration:
                    return


__all__ = [
    "FIXED_DECK",
    "MAX_POINT_LIMIT",
    "MAX_STAKE",
    "MAX_TURN_SECONDS",
    "DealReplay",
    "Games",
    "GamesRepository",
    "Hints",
    "Joining",
    "Leases",
    "Listed",
    "LoggedChange",
    "Moved",
    "NewTable",
    "Refuse",
    "Replay",
    "Seated",
    "Shown",
    "WatchUpdate",
    "as_session",
    "check_table_options",
    "fixed_deck",
    "preset_not_allowed",
    "robot_level_allowed",
    "rules_and_table",
    "within_policy",
]
