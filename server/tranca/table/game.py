"""A game as the service keeps it: seats, the match, and the actions that change it.

Everything that changes a game is an ``Action`` (a player joins, the game starts, a
move, a resignation), logged in order; the game's state is the fold of its log
from its setup, which is how the tests rebuild every stored snapshot. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Final

from tranca_rules.engine import apply
from tranca_rules.errors import InvalidMove
from tranca_rules.match import DRAWN, Match
from tranca_rules.moves import Move
from tranca_rules.scoring import score_deal
from tranca_rules.state import DealState

from ..reasons import Reason
from . import automatic, fairness
from .action_kinds import ActionKind
from .errors import GameError as GameError  # re-exported: callers import it from here
from .head import (
    CHANGEABLE_OPTIONS,
    TERMS,
    TableChange,
    parse_options,
    seen_terms,
    target_score_for,
)

# Re-exported: callers import them from here.
from .head import join_text as join_text
from .head import options_text as options_text
from .setup import NO_OPTIONS as NO_OPTIONS
from .setup import Setup as Setup
from .setup import TableOptions as TableOptions


class GameStatus(StrEnum):
    """A game's status; the values are the stored ones (the snapshot's and the
    ``games.status`` column's)."""

    WAITING = "waiting"  # seats are being taken
    PLAYING = "playing"  # the match is under way
    FINISHED = "finished"  # won, drawn, resigned or annulled


# The names callers have always used (Final: mypyc loads them as constants).
WAITING: Final = GameStatus.WAITING
PLAYING: Final = GameStatus.PLAYING
FINISHED: Final = GameStatus.FINISHED
_STATUSES: dict[str, GameStatus] = {s.value: s for s in GameStatus}


def status_of(value: str) -> GameStatus:
    """The status stored as ``value``; ``ValueError`` for anything else."""
    status = _STATUSES.get(value)
    return GameStatus(value) if status is None else status


# 2: the rules are stored once, in the setup (1 also repeated them in the match and
# in the deal; such snapshots still load, the copies being ignored). A store may
# keep the setup apart from the snapshot (``to_dict(with_setup=False)``) and pass it
# back to ``from_dict``: it never changes after the game is created.
GAME_SCHEMA_VERSION = 2
# 3: a game that uses the platform (table options, player ids, robots, annulment
# votes, entropy). Releases that read only 1 and 2 refuse it instead of loading it
# without what they do not know and writing it back without it (a stake left in its
# pot, a robot's seat handed back, a timer never reset). Plain games stay at 2.
PLATFORM_SCHEMA_VERSION = 3
READABLE_SCHEMAS: tuple[int, ...] = (1, 2, 3)


@dataclass
class Seat:
    name: str = ""
    taken: bool = False
    resigned: bool = False
    player_id: str = ""  # the app's id for the player, where it gave one


@dataclass
class GameState:
    setup: Setup
    seats: list[Seat]
    status: GameStatus = WAITING
    match: Match | None = None
    last_deal: dict[str, Any] | None = None  # result of the last finished deal
    # The last finished deal's final table, from its end to the next deal's first
    # move (the match going on): what ``deal_board`` shows between two deals.
    last_board: DealState | None = None
    winner: int = -1  # winning side, -2 drawn, -1 none yet
    result_reason: str = ""
    deal_starts: list[int] = field(default_factory=list)  # version of each deal's start
    robots: set[int] = field(default_factory=set)  # seats a robot plays for now
    annul_votes: set[int] = field(default_factory=set)  # seats that voted to annul
    entropy: list[str] = field(default_factory=list)  # a verifiable table's, in order
    # The app's removals (AdminService.RemoveSeat, a "leave", "robot" or "resign" by
    # BY_APP): the players it removed, by their player id, never seated here again;
    # and the seats it handed to a robot during the match, never taken back.
    removed_players: set[str] = field(default_factory=set)
    removed_seats: set[int] = field(default_factory=set)
    # A rematch's next match (services/rematch.py): in the next match's game, the
    # seats still held for the last match's players (the setup's, less those taken
    # or freed); in a finished match's, the seats that confirmed the rematch, the
    # next match's game id and when its held seats are freed (epoch ms).
    held: set[int] = field(default_factory=set)
    rematch_seats: set[int] = field(default_factory=set)
    next_game_id: str = ""
    rematch_until: int = 0
    # Automatic mode (a "robot" by BY_AUTO: the seat's own player asked the server to
    # play for them): the seats in it now, each with the most expensive robot level
    # the app lets it play ("" for the table's own), and every seat that was in it at
    # any time of the match (the app's policy says whether such a match is rated).
    automatic: dict[int, str] = field(default_factory=dict)
    were_automatic: set[int] = field(default_factory=set)
    # The seats of players (not robots' from the start) in the order they joined: the
    # first is the table head (003: "el primer jugador que se ha sentado en la mesa").
    joins: list[int] = field(default_factory=list)
    # The head's last change of the options (None: as created), and the setup as
    # created, which ``setup`` then replaces (``TableChange.setups``).
    table_change: TableChange | None = None
    created_setup: Setup | None = None
    # Seated players who have not agreed to the stake and rated play as they are now.
    unconsented: set[int] = field(default_factory=set)

    @property
    def created(self) -> Setup:
        """The setup the game was created with (its log folds from it)."""
        return self.setup if self.created_setup is None else self.created_setup

    @property
    def head(self) -> int:
        """The table head's seat: the earliest join still seated; -1 with none."""
        return self.joins[0] if self.joins else -1

    @property
    def options_version(self) -> int:
        """The version of the head's last change of the options (0: none)."""
        return 0 if self.table_change is None else self.table_change.version

    @property
    def uses_platform(self) -> bool:
        """Whether the game uses anything of the platform (see PLATFORM_SCHEMA_VERSION)."""
        setup = self.setup
        return bool(
            setup.table != NO_OPTIONS
            or setup.server_secret is not None
            or self.robots
            or self.annul_votes
            or self.entropy
            or self.removed_players
            or self.removed_seats
            or setup.table_id
            or self.held
            or self.next_game_id
            or self.were_automatic
            or self.table_change is not None
            or self.unconsented
            or any(s.player_id for s in self.seats)
        )

    def humans(self) -> list[int]:
        """Seats played by their own player (not resigned, not held by a robot)."""
        return [
            i
            for i, s in enumerate(self.seats)
            if s.taken and not s.resigned and i not in self.robots
        ]

    @property
    def deal(self) -> DealState | None:
        return self.match.deal if self.match is not None else None

    @property
    def deal_number(self) -> int:
        return len(self.deal_starts)

    def deal_board(self) -> tuple[int, DealState] | None:
        """The deal whose whole table everyone may see now, with its number: the
        deal that ended last, until the next deal's first move; once the match is
        over, its last deal, as it ended or as it stood when a resignation, an
        annulment or the app stopped the match. None while a deal is played (its
        hidden cards stay hidden) and before the start."""
        if self.last_board is not None:
            return self.deal_number - 1, self.last_board
        if self.status == FINISHED and self.match is not None:
            return self.deal_number, self.match.deal
        return None

    def to_dict(self, with_setup: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"setup": self.created.to_dict()} if with_setup else {}
        out.update(
            {
                "schema": PLATFORM_SCHEMA_VERSION if self.uses_platform else GAME_SCHEMA_VERSION,
                "seats": [[s.name, s.taken, s.resigned] for s in self.seats],
                "status": self.status,
                "match": None if self.match is None else self.match.to_dict(with_rules=False),
                "last_deal": self.last_deal,
                "winner": self.winner,
                "result_reason": self.result_reason,
                "deal_starts": list(self.deal_starts),
            }
        )
        # The platform's additions, only when non-empty: a snapshot without them reads
        # the same in releases that predate them (they ignore keys they do not know).
        ids = {str(i): s.player_id for i, s in enumerate(self.seats) if s.player_id}
        if ids:
            out["player_ids"] = ids
        if self.robots:
            out["robots"] = sorted(self.robots)
        if self.annul_votes:
            out["annul_votes"] = sorted(self.annul_votes)
        if self.entropy:
            out["entropy"] = list(self.entropy)
        if self.removed_players:
            out["removed_players"] = sorted(self.removed_players)
        if self.removed_seats:
            out["removed_seats"] = sorted(self.removed_seats)
        if self.held:
            out["held"] = sorted(self.held)
        if self.next_game_id:
            out["rematch"] = {
                "next_game_id": self.next_game_id,
                "seats": sorted(self.rematch_seats),
                "until": self.rematch_until,
            }
        if self.automatic:
            out["automatic"] = {str(s): level for s, level in sorted(self.automatic.items())}
        if self.were_automatic:
            out["were_automatic"] = sorted(self.were_automatic)
        if self.joins != _seat_order(self.seats, self.robots):
            # Only where the order of joins is not the seats' (most tables fill in
            # order). Not a platform key: a release that predates it shows no head.
            out["joins"] = list(self.joins)
        if self.table_change is not None:
            out["table_change"] = self.table_change.to_dict()
        if self.unconsented:
            out["unconsented"] = sorted(self.unconsented)
        if self.last_board is not None:
            # Only between a deal's end and the next deal's first move. Releases that
            # predate it ignore it, and show no final table then.
            out["last_board"] = self.last_board.to_dict(with_rules=False)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any], setup: Setup | None = None) -> GameState:
        """``setup``: the game's, when the caller keeps it apart from the snapshot."""
        schema = d.get("schema")
        if schema not in READABLE_SCHEMAS:
            raise ValueError(f"unknown game snapshot schema {schema!r}")
        if setup is None:
            setup = Setup.from_dict(d["setup"])
        created = setup
        change = None if d.get("table_change") is None else TableChange.from_dict(d["table_change"])
        if change is not None:
            created, setup = change.setups(setup)
        ids = d.get("player_ids", {})
        rematch = d.get("rematch") or {}
        g = cls(
            setup=setup,
            seats=[
                Seat(str(n), bool(t), bool(r), str(ids.get(str(i), "")))
                for i, (n, t, r) in enumerate(d["seats"])
            ],
            status=status_of(d["status"]),
            # The setup's rules are the match's and the deal's: decoded once per load.
            match=None if d["match"] is None else Match.from_dict(d["match"], setup.rules),
            last_deal=d["last_deal"],
            winner=int(d["winner"]),
            result_reason=str(d["result_reason"]),
            deal_starts=[int(v) for v in d["deal_starts"]],
            robots={int(s) for s in d.get("robots", ())},
            annul_votes={int(s) for s in d.get("annul_votes", ())},
            entropy=[str(e) for e in d.get("entropy", ())],
            removed_players={str(p) for p in d.get("removed_players", ())},
            removed_seats={int(s) for s in d.get("removed_seats", ())},
            held={int(s) for s in d.get("held", ())},
            rematch_seats={int(s) for s in rematch.get("seats", ())},
            next_game_id=str(rematch.get("next_game_id", "")),
            rematch_until=int(rematch.get("until", 0)),
            automatic={int(s): str(v) for s, v in d.get("automatic", {}).items()},
            were_automatic={int(s) for s in d.get("were_automatic", ())},
            last_board=(
                None
                if d.get("last_board") is None
                else DealState.from_dict(d["last_board"], setup.rules)
            ),
            table_change=change,
            created_setup=None if change is None else created,
            unconsented={int(s) for s in d.get("unconsented", ())},
        )
        joins = d.get("joins")
        g.joins = _seat_order(g.seats, g.robots) if joins is None else [int(s) for s in joins]
        return g


def _seat_order(seats: list[Seat], robots: set[int]) -> list[int]:
    """The order of joins a snapshot that does not write it stands for."""
    return [i for i, s in enumerate(seats) if s.taken and i not in robots]


def new_game(setup: Setup) -> GameState:
    if setup.players not in setup.rules.player_counts:
        allowed = ", ".join(str(n) for n in setup.rules.player_counts)
        raise ValueError(f"{setup.rules.name} is played by {allowed} players")
    return GameState(
        setup=setup, seats=[Seat() for _ in range(setup.players)], held=set(setup.held)
    )


# ----- actions ----------------------------------------------------------------------


# Who made a change, when not the seat's own player (``Action.by``; the log's actor).
BY_PLAYER, BY_TIMEOUT, BY_ROBOT, BY_APP = "", "timeout", "robot", "app"
# A join's ``text`` when the rematch seats a confirming player at the seat held for
# them (services/rematch.py checked who they are): only such a join takes a held seat.
REMATCH_CLAIM = "rematch"
# A "robot" action by the seat's own player: automatic mode (GameService.SetAutomatic).
BY_AUTO = "auto"
MAX_ENTROPY_BYTES = 256
MAX_ENTROPY_STRINGS = 64


@dataclass(frozen=True)
class Action:
    """One logged change. ``kind`` is join (``by`` BY_ROBOT: a robot's seat from the
    start), leave, start, move, resign, robot (a robot takes the seat), return (its
    player takes it back), annul_vote, entropy, end (the app ends the game),
    no_show (a tournament table's game closed before it started), erase (the
    seat's player was erased: ``name`` and ``player_id`` are the pseudonym) or merge
    (the seat's player's account was merged into ``player_id``'s). A leave, robot or
    resign ``by`` BY_APP is the app removing the seat's player
    (AdminService.RemoveSeat): the removal sticks. Its stored form (the move in the
    text notation) is the store's codec's (``store/codec.py``)."""

    kind: str
    seat: int = -1
    move: Move | None = None  # for kind "move"
    name: str = ""  # the player's name, for kinds "join" and "erase"
    player_id: str = ""  # the app's id for the player, for kinds "join" and "erase"
    # For kind "move": BY_TIMEOUT or BY_ROBOT when the server played; for kind "join":
    # BY_ROBOT when the seat is a robot's from the start; for kinds "leave", "robot"
    # and "resign": BY_APP when the app removed the seat's player; for kind "robot":
    # BY_AUTO when the seat's own player switched automatic mode on.
    by: str = BY_PLAYER
    # The entropy string, for kind "entropy"; for a "robot" by BY_AUTO, the most
    # expensive robot level the app lets automatic mode play ("": the table's).
    text: str = ""

    @property
    def actor(self) -> str:
        """The move log's actor column: "player", "timeout", "robot" or "app" (automatic
        mode, asked by the seat's player, is the player's)."""
        return "player" if self.by == BY_AUTO else self.by or "player"


def play_action(seat: int, move: Move, by: str = BY_PLAYER) -> Action:
    return Action(ActionKind.MOVE, seat, move=move, by=by)


def apply_action(g: GameState, action: Action, version: int) -> None:
    """Apply ``action`` as the change that makes ``version``; raise ``GameError``,
    ``InvalidMove`` or ``RuleViolation`` (and change nothing) if it is refused."""
    kind = action.kind
    if kind == ActionKind.JOIN:
        _check_status(g, WAITING)
        seat = _seat(g, action.seat)
        if action.by:
            _check_robot_seat(g, action)
        if g.seats[seat].taken:
            raise GameError(Reason.SEAT_TAKEN, f"seat {seat} is taken")
        claim = action.text == REMATCH_CLAIM
        if seat in g.held and not claim:
            raise GameError(Reason.SEAT_HELD, f"seat {seat} is held for its last player")
        if action.player_id in g.removed_players:
            raise removed_from_game()
        if action.player_id and any(s.player_id == action.player_id for s in g.seats):
            raise GameError(Reason.PLAYER_SEATED, "the player already holds a seat at this table")
        # A rematch's claim was confirmed on the last match's terms: where the head has
        # changed the stake or rated play of this one since, the player agrees anew.
        seen = 0 if claim else seen_terms(action.text)
        g.seats[seat] = Seat(action.name, True, False, action.player_id)
        g.held.discard(seat)
        if action.by:
            g.robots.add(seat)  # a robot's seat from the start: it plays every turn of it
        else:
            if claim:
                _rejoin_in_table_order(g, seat)
            else:
                g.joins.append(seat)
            change = g.table_change
            if change is not None and seen < change.terms_version:
                # Asked for before the head changed the stake or rated play: not agreed.
                g.unconsented.add(seat)
    elif kind == ActionKind.LEAVE:
        _check_status(g, WAITING)
        seat = _seat(g, action.seat)
        if seat in g.robots:
            raise GameError(Reason.ROBOT_SEATED, f"a robot holds seat {seat} until the match ends")
        if action.by == BY_APP:
            _remove_player(g, seat)
        g.seats[seat] = Seat()
        if seat in g.joins:
            g.joins.remove(seat)  # the head's role passes to the next join still seated
        g.unconsented.discard(seat)
    elif kind == ActionKind.START:
        _check_status(g, WAITING)
        free = [i for i, s in enumerate(g.seats) if not s.taken]
        if free:
            raise GameError(Reason.SEATS_FREE, f"seats {free} are not taken yet")
        if g.unconsented:
            waiting = sorted(g.unconsented)
            raise GameError(
                Reason.CONSENT_PENDING, f"seats {waiting} have not agreed to the table's stake"
            )
        setup = g.setup
        # A verifiable table deals from its committed seeds, with the entropy given
        # before this start (none can be added later); other tables as they always did.
        first_deck = setup.deck if setup.server_secret is None else verifiable_deck(g, 1)
        match = Match(setup.rules, setup.players, setup.seed, first_deck=first_deck)
        g.match = match
        g.status = PLAYING
        g.deal_starts.append(version)
    elif kind == ActionKind.MOVE:
        _check_status(g, PLAYING)
        assert g.match is not None
        robot_seat = action.seat in g.robots
        if action.by == BY_ROBOT and not robot_seat:
            raise GameError(Reason.NOT_A_ROBOT_SEAT, f"no robot plays seat {action.seat}")
        if action.by != BY_ROBOT and robot_seat:
            raise GameError(Reason.ROBOT_SEATED, "a robot plays this seat: call ReclaimSeat first")
        move = action.move
        if move is None:
            raise InvalidMove("empty move")
        apply(g.match.deal, action.seat, move)
        g.last_board = None  # the next deal is under way: its table is what is shown
        if g.match.deal.is_over:
            _finish_deal(g, version)
    elif kind == ActionKind.RESIGN:
        _check_status(g, PLAYING)
        seat = _seat(g, action.seat)
        if seat in g.removed_seats:
            # The removed player's side plays on with the robot; it is not theirs to lose.
            raise removed_from_game()
        if action.by == BY_APP:
            _remove_player(g, seat)
        g.seats[seat].resigned = True
        n_sides = 2 if g.setup.players == 4 else g.setup.players
        loser = seat % n_sides
        standing = [side for side in range(n_sides) if side != loser]
        g.status = FINISHED
        g.winner = standing[0] if len(standing) == 1 else DRAWN
        g.result_reason = "resignation"
    elif kind == ActionKind.ROBOT and action.by == BY_AUTO:
        automatic.switch_on(g, _seat(g, action.seat), action.text)
        _maybe_annul(g)  # every other person had voted: the robot does not count
    elif kind == ActionKind.ROBOT:
        _check_status(g, PLAYING)
        seat = _seat(g, action.seat)
        if not g.setup.table.robot_grace_seconds:
            raise GameError(Reason.NO_ROBOTS, "this table has no robots")
        if action.by == BY_APP and seat in g.automatic:
            # The app removes a player in automatic mode: the robot keeps the seat.
            g.robots.discard(seat)
            automatic.switch_off(g, seat)
        if seat in g.robots or g.seats[seat].resigned:
            raise GameError(Reason.ROBOT_SEATED, f"seat {seat} is not its player's to lose")
        if action.by == BY_APP:
            _remove_player(g, seat)
            g.removed_seats.add(seat)  # the robot plays it to the end: no return
        g.robots.add(seat)
        g.annul_votes.discard(seat)  # 003: "El robot no se tiene en cuenta en las votaciones"
        _maybe_annul(g)
    elif kind == ActionKind.RETURN:
        _check_status(g, PLAYING)
        seat = _seat(g, action.seat)
        if seat in g.removed_seats:
            raise removed_from_game()
        if seat not in g.robots:
            raise GameError(Reason.SEAT_NOT_HELD, f"no robot plays seat {seat}")
        g.robots.discard(seat)
        automatic.switch_off(g, seat)  # the seat's player takes it back, whoever held it
    elif kind == ActionKind.ANNUL_VOTE:
        _check_status(g, PLAYING)
        seat = _seat(g, action.seat)
        if not g.setup.table.annulment_allowed:
            raise GameError(Reason.ANNULMENT_NOT_ALLOWED, "this table does not allow annulment")
        if seat in g.robots:
            raise GameError(Reason.ROBOT_SEATED, "a robot does not vote: call ReclaimSeat first")
        if seat in g.annul_votes:
            raise GameError(Reason.ALREADY_VOTED, f"seat {seat} has voted")
        g.annul_votes.add(seat)
        _maybe_annul(g)
    elif kind == ActionKind.END:
        # The app ends its game (an admin's call): no result, like an annulment, so
        # it counts for no one and every stake goes back.
        if g.status == FINISHED:
            raise GameError(Reason.GAME_OVER, "the game is over")
        g.status = FINISHED
        g.winner = -1
        g.result_reason = ENDED_BY_APP
    elif kind == ActionKind.NO_SHOW:
        # A tournament table whose game never started (a seat short of the chips for
        # its stake, say): the server closes it, so it can never be dealt later (its
        # cards may be a duplicate round's, shown once the round is over). No result,
        # like an annulment: it counts for no one and every stake goes back.
        _check_status(g, WAITING)
        g.status = FINISHED
        g.winner = -1
        g.result_reason = NOT_STARTED
    elif kind in (ActionKind.ERASE, ActionKind.MERGE):
        # The seat's player was erased (services/player_erasure.py: the seat keeps its
        # place under the pseudonym, ``name`` and ``player_id``) or their account
        # merged into another (services/account_merge.py: the seat's player id is the
        # other's, its name stays), whatever the game's status.
        # Seat -1: the player holds no seat (the app removed them before the start);
        # their id among the removed players was rewritten with the log, and this
        # change is the version the game is read at from then on.
        if not action.player_id:
            raise GameError(Reason.MALFORMED_REQUEST, "an erasure or a merge names the player")
        if action.seat != -1:
            seat = _seat(g, action.seat)
            held = g.seats[seat]
            if not held.taken:
                raise GameError(Reason.MALFORMED_REQUEST, f"seat {seat} holds no player")
            name = action.name if kind == ActionKind.ERASE else held.name
            g.seats[seat] = Seat(name, held.taken, held.resigned, action.player_id)
    elif kind == ActionKind.ENTROPY:
        _check_status(g, WAITING)
        if not g.setup.table.verifiable:
            raise GameError(Reason.NOT_VERIFIABLE, "this table's deals are not verifiable")
        if len(action.text.encode()) > MAX_ENTROPY_BYTES or not action.text:
            raise GameError(Reason.BAD_ENTROPY, f"entropy is 1 to {MAX_ENTROPY_BYTES} bytes")
        if len(g.entropy) >= MAX_ENTROPY_STRINGS:
            raise GameError(Reason.TOO_MUCH_ENTROPY, f"at most {MAX_ENTROPY_STRINGS} strings")
        g.entropy.append(action.text)
    elif kind == ActionKind.REMATCH:
        _confirm_rematch(g, action)
    elif kind == ActionKind.RELEASE:
        _check_status(g, WAITING)
        if not g.held:
            raise GameError(Reason.SEAT_FREE, "no seat is held")
        g.held.clear()
    elif kind == ActionKind.OPTIONS:
        _change_options(g, action, version)
    elif kind == ActionKind.CONSENT:
        _check_status(g, WAITING)
        seat = _seat(g, action.seat)
        if seat not in g.unconsented:
            raise GameError(Reason.NO_CONSENT_PENDING, f"seat {seat} has nothing to agree to")
        g.unconsented.discard(seat)
    else:
        raise InvalidMove(f"unknown action {kind!r}")


def rematch_text(next_game_id: str, hold_until: int) -> str:
    """A rematch confirmation's ``text``: the next match's game id and when its held
    seats are freed."""
    return f"{next_game_id} {hold_until}"


def _confirm_rematch(g: GameState, action: Action) -> None:
    """A seat of the finished match confirms the rematch at its table; every
    confirmation names the same next match."""
    if g.status != FINISHED:
        raise GameError(Reason.MATCH_NOT_OVER, "the match is not over: no rematch yet")
    seat = _seat(g, action.seat)
    if seat in g.removed_seats or not g.seats[seat].taken:
        raise removed_from_game()
    if seat in g.rematch_seats:
        raise GameError(Reason.REMATCH_CONFIRMED, f"seat {seat} has confirmed the rematch")
    next_id, _, until = action.text.partition(" ")
    if not next_id or not until.isdigit():
        raise GameError(Reason.MALFORMED_REQUEST, "a rematch names its next match")
    if g.next_game_id and g.next_game_id != next_id:
        raise GameError(Reason.MALFORMED_REQUEST, "the table's next match is another")
    g.next_game_id, g.rematch_until = next_id, int(until)
    g.rematch_seats.add(seat)


def _rejoin_in_table_order(g: GameState, seat: int) -> None:
    """A rematch's claim takes its place in the order the table's players sat down
    (the setup's held seats are in the last match's order), ahead of the players who
    sat down only for this match: the table head stays the first player seated at
    the table (003), whoever confirmed the rematch first."""
    order = g.setup.held
    rank = order.index(seat) if seat in order else len(order)
    later = (k for k, j in enumerate(g.joins) if j not in order or order.index(j) > rank)
    g.joins.insert(next(later, len(g.joins)), seat)


def _change_options(g: GameState, action: Action, version: int) -> None:
    """The head changes the table's options before the start (003: "se pueden cambiar
    antes de empezar la partida"); a change of stake or rated play asks every other
    seated player to agree again. The app's policy is the service's to check."""
    _check_status(g, WAITING)
    seat = _seat(g, action.seat)
    if seat != g.head:
        raise GameError(Reason.NOT_TABLE_HEAD, "only the table head changes the table's options")
    table, spectators = parse_options(action.text)
    now = g.setup.table
    fixed = [
        f.name
        for f in fields(TableOptions)
        if f.name not in CHANGEABLE_OPTIONS and getattr(table, f.name) != getattr(now, f.name)
    ]
    if fixed:
        raise GameError(Reason.OPTION_FIXED, f"{', '.join(fixed)} stay as the table was created")
    if table.competitive and g.robots:
        raise GameError(Reason.COMPETITIVE_TABLE, "robots sit here: the table stays practice")
    if table.competitive and any(s.taken and not s.player_id for s in g.seats):
        # As JoinGame refuses such a seat at a rated table: a rated match has someone
        # to rate and pay on every seat.
        raise GameError(Reason.PLAYER_ID_REQUIRED, "a seated player has no player id")
    before = g.table_change
    terms_version = 0 if before is None else before.terms_version
    if any(getattr(table, name) != getattr(now, name) for name in TERMS):
        terms_version = version
        g.unconsented = {i for i in g.joins if i != seat}
    c = g.created
    was = (c.table, c.spectators_allowed, c.rules.target_score)
    change = TableChange(
        (table, spectators, target_score_for(c, table)), was, version, terms_version
    )
    g.created_setup, g.setup = change.setups(c)
    g.table_change = change


def removed_from_game() -> GameError:
    """The refusal of whatever would bring back a player the app removed."""
    return GameError(Reason.REMOVED_FROM_GAME, "the app removed this player from this game")


def _remove_player(g: GameState, seat: int) -> None:
    """The app removes the seat's player: their player id (where the app gave one)
    may never be seated at this table again."""
    player_id = g.seats[seat].player_id
    if player_id:
        g.removed_players.add(player_id)


def _check_robot_seat(g: GameState, action: Action) -> None:
    """A join by a robot (``by`` BY_ROBOT): the server's robot, the greedy bot, plays
    the seat from the start to the end of the match. Only at a table with robots (the
    sweeper plays them) that is practice: a competitive match counts for ratings,
    ranking points and chips, which belong to players."""
    if action.by != BY_ROBOT or action.player_id:
        raise InvalidMove("a join is a player's, or a robot's without a player id")
    table = g.setup.table
    if not table.robot_grace_seconds:
        raise GameError(Reason.NO_ROBOTS, "this table has no robots (robot_grace_seconds is 0)")
    if table.competitive:
        raise GameError(Reason.COMPETITIVE_TABLE, "robots sit only at practice tables")


ANNULLED = "annulled"
ENDED_BY_APP = "ended_by_app"  # the app ended the game (AdminService.EndGame)
NOT_STARTED = "not_started"  # a tournament table's game closed before its start
# Results that count for no one: no rating, no points, every stake returned.
NO_RESULT = (ANNULLED, ENDED_BY_APP, NOT_STARTED)


def _maybe_annul(g: GameState) -> None:
    """003: the match is annulled when every player agrees ("Todos los jugadores deben
    estar de acuerdo"); robots do not vote. An annulled match has no winner."""
    humans = g.humans()
    if g.annul_votes and humans and set(humans) <= g.annul_votes:
        g.status = FINISHED
        g.winner = -1
        g.result_reason = ANNULLED


def _finish_deal(g: GameState, version: int) -> None:
    assert g.match is not None
    # A vote to annul stands for the deal it was cast in (decision in docs/PLATFORM.md).
    g.annul_votes.clear()
    deal = g.match.deal
    g.last_deal = {
        "deal_number": g.deal_number,
        "end_reason": deal.end_reason,
        "went_out": deal.went_out,
        "scores": [sc.to_dict() for sc in score_deal(deal)],
    }
    g.match.finish_deal(verifiable_deck(g, g.deal_number + 1))
    if not g.match.is_over:
        g.last_board = deal  # the match's deal is the next one now; this one is kept
    if g.match.is_over:
        g.status = FINISHED
        g.winner = g.match.winner
        rules = g.setup.rules
        totals = g.match.totals
        if not rules.target_score:
            g.result_reason = "single_deal"
        elif totals.count(max(totals)) > 1:
            g.result_reason = "tie_break"
        else:
            g.result_reason = "target_reached"
    else:
        g.deal_starts.append(version)


def verifiable_deck(g: GameState, deal_number: int) -> list[int] | None:
    """A verifiable table's deck for deal ``deal_number`` (from 1); None at other
    tables, whose deals are shuffled from the match seed."""
    secret = g.setup.server_secret
    if secret is None:
        return None
    return fairness.deal_deck(secret, deal_number, g.entropy, g.setup.rules.jokers)


def _check_status(g: GameState, wanted: GameStatus) -> None:
    if g.status == wanted:
        return
    if g.status == FINISHED:
        raise GameError(Reason.GAME_OVER, "the game is over")
    if wanted == WAITING:
        raise GameError(Reason.GAME_STARTED, f"the game is {g.status}")
    raise GameError(Reason.GAME_NOT_STARTED, f"the game is {g.status}")


def _seat(g: GameState, seat: int) -> int:
    if not 0 <= seat < len(g.seats):
        raise GameError(Reason.NO_SUCH_SEAT, f"there is no seat {seat}")
    return seat


def rebuild(setup: Setup, actions: list[Action]) -> GameState:
    """Fold a game's log from its setup (versions 1, 2, ... in order)."""
    g = new_game(setup)
    for version, action in enumerate(actions, start=1):
        apply_action(g, action, version)
    return g
