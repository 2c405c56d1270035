"""The table head and its options (003 "Opciones de mesa"): UpdateTableOptions and
ConsentToOptions.

003: "Las opciones de mesa son elegidas por el jefe de mesa (el primer jugador que se
ha sentado en la mesa ...). Las opciones de mesa se pueden cambiar antes de empezar la
partida o entre partida y partida." The head is the game's to know (``GameState.head``:
the earliest join still seated); a change is a logged ``options`` action and an
agreement a ``consent`` action, both written by ``Moves`` through the game's
compare-and-swap, so that a join racing a change of stake lands either before it
(and is asked to agree again) or after it (and, having asked for the seat on the old
terms, is asked to agree too). Here: who may call, the values against the app's
policy (the checks CreateGame makes, ``table_policy``), and the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..reasons import Reason
from ..table.action_kinds import ActionKind
from ..table.game import Action, TableOptions, options_text
from .access import Credentials, require_player
from .errors import Refusal, Refused
from .games import Games, Shown
from .policy import AppPolicies, AppPolicy
from .table_policy import check_table_options, robot_level_allowed, within_policy


@dataclass(frozen=True)
class NewOptions:
    """What the head asks for: the table's options whole, and its spectators."""

    table: TableOptions
    spectators_allowed: bool
    expected_version: int | None = None  # None: the game as it is now
    request_id: str = ""


class TournamentTables(Protocol):
    """Which games are a tournament's tables (the store's ``tournament_games``)."""

    async def in_tournament(self, game_id: str) -> bool:
        """Whether ``game_id`` is a table of a tournament's round."""
        ...


def not_head() -> Refused:
    return Refused(
        Refusal.FORBIDDEN,
        Reason.NOT_TABLE_HEAD,
        "only the table head (the first player seated) changes the table's options",
    )


class TableHead:
    """The use cases of the table head's options and the seats' agreement."""

    def __init__(self, games: Games, policies: AppPolicies, tournaments: TournamentTables) -> None:
        self.games = games
        self.moves = games.moves
        # The app's policy bounds what its players' tables may be (rated play, stakes).
        self.policies = policies
        # A tournament's tables play by the organiser's options, the same at every table.
        self.tournaments = tournaments

    async def update(self, credentials: Credentials, game_id: str, new: NewOptions) -> Shown:
        """The head's new options for its waiting table. Checked as CreateGame checks a
        table (coherent values, the app's policy, the server's robot level) before the
        game is read for the write; the game then refuses a non-head, a game under way
        and an option only CreateGame sets (nothing changed)."""
        caller = await self.games.access.identify(credentials)
        if caller.player is None and caller.session is None:
            raise not_head()  # an app's key: the options are the head's to choose
        game = await self.games.game_for(caller, game_id)
        player = require_player(caller, game.id)
        if player.seat != game.state.head:
            raise not_head()
        if await self.tournaments.in_tournament(game.id):
            raise Refused(
                Refusal.FORBIDDEN,
                Reason.TOURNAMENT_TABLE,
                "a tournament's table plays by the organiser's options",
            )
        check_table_options(new.table)
        policy = await self.policies.app_policy(game.app_id) or AppPolicy()
        within_policy(policy, new.table.competitive, new.table.stake)
        robot_level_allowed(new.table, self.games.robot_max_level)
        action = Action(
            ActionKind.OPTIONS, player.seat, text=options_text(new.table, new.spectators_allowed)
        )
        done = await self.moves.apply(
            game.id,
            action,
            expected_version=new.expected_version,
            request_id=new.request_id or None,
        )
        return await self.games.shown(game.id, done.version, done.state, player.seat)

    async def consent(self, credentials: Credentials, game_id: str, request_id: str) -> Shown:
        """The seat's player agrees to the table's stake and rated play as they are now."""
        caller = await self.games.access.identify(credentials)
        game = await self.games.game_for(caller, game_id)
        player = require_player(caller, game.id)
        done = await self.moves.apply(
            game.id, Action(ActionKind.CONSENT, player.seat), request_id=request_id or None
        )
        return await self.games.shown(game.id, done.version, done.state, player.seat)


__all__ = ["NewOptions", "TableHead", "TournamentTables", "not_head"]
