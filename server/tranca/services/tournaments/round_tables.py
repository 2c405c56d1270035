"""A round's tables as new games: each table set up (``table_setup``: the round's
duplicate deck, or a fresh seed), its game created and every seat joined, each seat
with its token and its entrant's "round ready" event (``seated_table``).
``seated_round_tables`` is every table of a round, written with the round in one
transaction (``TournamentRepository.write_round``).
"""

from __future__ import annotations

import secrets
import uuid

from ...app.action_kinds import ActionKind
from ...app.deadlines import turn_deadline
from ...app.fairness import new_server_secret
from ...app.game import Action, GameState, Setup, TableOptions, apply_action, new_game
from ...app.notifications import Event as PlayerEvent
from ...app.notifications import EventKind
from ...platform.duplicate import DuplicateRound
from ...platform.tournaments import Round, Table, Tournament
from ...rules.presets import Rules
from ..credentials import new_seat_token
from ..moves import now_ms
from ..ports import GameChange, NewGame
from .ports import TableGame, TokensBySeat, TournamentRow


def table_setup(
    rules: Rules,
    players: int,
    table: TableOptions,
    dup: DuplicateRound | None,
    spectators: bool = False,
) -> Setup:
    """A table's setup: with duplicate deals the round's deck and match seed (so the
    first dealer and every later deal match too), otherwise a fresh seed; spectators
    where the organiser allows them."""
    if dup is not None:
        return Setup(rules, players, dup.match_seed, list(dup.deck), False, table)
    secret = new_server_secret() if table.verifiable else None
    return Setup(rules, players, secrets.randbits(63), None, spectators, table, secret)


def seated_round_tables(
    row: TournamentRow, t: Tournament, rnd: Round, expires_at: int
) -> tuple[list[TableGame], TokensBySeat]:
    """Each table's new game with every seat joined, and the seats' tokens (valid
    until ``expires_at``, epoch ms)."""
    config = row.config
    rules = config.game_rules(t.is_knockout_round(rnd.number))
    table = TableOptions.from_dict(config.table)
    dup = config.duplicate_round(rnd.number)
    start_deadline = turn_deadline(now_ms() + config.start_deadline_seconds * 1000)
    games: list[TableGame] = []
    tokens: TokensBySeat = {}
    for tb in rnd.tables:
        setup = table_setup(rules, config.table_size, table, dup, config.spectators)
        game, seat_tokens = seated_table(
            row, rnd.number, tb, config.seats(t, tb), setup, start_deadline, expires_at
        )
        games.append(game)
        for seat, token in enumerate(seat_tokens):
            tokens[(rnd.number, tb.number, seat)] = token
    return games, tokens


def seated_table(
    row: TournamentRow,
    round_no: int,
    tb: Table,
    seats: tuple[str, ...],
    setup: Setup,
    start_deadline: int,
    expires_at: int,
) -> tuple[TableGame, list[str]]:
    """One table's new game (``setup``) with the players of ``seats`` joined in seat
    order, and each seat's token (valid until ``expires_at``, epoch ms)."""
    game_id = uuid.uuid4().hex
    label = f"tournament {row.id} round {round_no} table {tb.number}"
    new = NewGame(row.app_id, setup, new_game(setup), label, None, game_id)
    state = new_game(setup)
    joins: list[GameChange] = []
    tokens: list[str] = []
    for seat, player_id in enumerate(seats):
        join = Action(ActionKind.JOIN, seat, name=player_id, player_id=player_id)
        apply_action(state, join, seat + 1)
        token, seat_token = new_seat_token(seat, player_id, player_id, expires_at=expires_at)
        tokens.append(token)
        # Each change keeps the game as that join left it (a state of its own).
        after = GameState.from_dict(state.to_dict(with_setup=False), setup)
        # The entrant's "round ready", written with its seat (and so with the
        # round): no round without its events, no event without its round.
        ready = PlayerEvent(
            player_id,
            EventKind.TOURNAMENT_ROUND_READY,
            game_id,
            {
                "tournament_id": row.id,
                "round": round_no,
                "table": tb.number,
                "seat": seat,
                "game_id": game_id,
            },
        )
        # The last join sets the table's start deadline: a game still waiting
        # then is closed by whichever replica's sweeper claims it (a no-show;
        # its start replaces the deadline with the first turn's, or the sweeper
        # clears it).
        last = seat == len(seats) - 1
        joins.append(
            GameChange(
                game_id,
                seat,
                after,
                join,
                new_token=seat_token,
                deadline_set=last,
                deadline_at=start_deadline if last else None,
                events=(ready,),
            )
        )
    return TableGame(round_no, tb.number, new, joins), tokens
