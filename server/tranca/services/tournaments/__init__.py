"""Tournaments whose tables are games: create one, read it, start its rounds, record
forfeits and withdrawals, and record a finished game's result in its tournament.

A tournament is kept as its configuration and its events (``platform.
tournament_events``); the pure ``platform.tournaments.Tournament`` rebuilt from them
on every call pairs the rounds and ranks the entrants. Every change is a
compare-and-swap on the tournament's version through the repository (the ports in
``ports.py``, ``store/tournament_store.py`` on a database), retried here when another
change won, so two concurrent changes never both apply to the same version.

StartRound pairs the next round and writes it with all its games, every seat
joined, in one transaction (``TournamentRepository.write_round``), then starts the
games (``Matches.start``, which takes a staked table's stakes); a retry of the round
starts a game left waiting and answers fresh seat tokens. A game's result reaches
its tournament through the settlement (``services/settlement.py``), which calls
``record_game_result`` inside its own transaction. See docs/platform/tournaments.md.

Nothing heavy runs on the event loop (``services/compute.py``): a Swiss round is
paired in a worker process, once, when it starts (a load takes the stored pairs);
the standings are computed by the change that moves them (a result, a round's byes,
a withdrawal; in a worker thread for a large event) and stored in its transaction,
so a read shows them as stored; and a read of a tournament this process has shown
at its current version answers it again without rebuilding it (``get``).

The modules, one idea each:

- ``ports.py``: the repository ports and what crosses them;
- ``dtos.py``: what the use cases take and give;
- ``validation.py``: a new tournament's configuration, an organiser's pairing;
- ``projection.py``: the tournament its events leave, what a change writes;
- ``prize_money.py``: the prize pool's movements;
- ``notices.py``: what the players are told;
- ``results.py``: a finished game's result recorded in its tournament;
- ``round_tables.py``: a round's tables as new games, every seat joined;
- ``views.py``: a tournament and its rounds as their organiser sees them (the
  views are in ``dtos.py``);
- ``vocabulary.py``: the domain's words a transport needs;
- ``core.py``, ``rounds.py``, ``schedule.py``, ``use_cases.py``: the use cases
  (``Tournaments``).
"""

from .core import CAS_ATTEMPTS, SHOWN_KEPT, TournamentCore
from .dtos import (
    CorrectionView,
    NewTournament,
    RoundShown,
    RoundView,
    SeatView,
    StandingView,
    TableView,
    TournamentShown,
    TournamentView,
)
from .errors import TournamentConflict, bad_config, busy, cannot_pay, not_found, refused
from .notices import RESULT_WORDS, notices
from .ports import (
    GamesByTable,
    TableGame,
    TableOfGame,
    TokensBySeat,
    TournamentQuery,
    TournamentRepository,
    TournamentResults,
    TournamentRow,
    TournamentSummary,
    Written,
)
from .prize_money import count_chips, money_moved, shown_money
from .projection import deck_shown, rebuilt, standings_of, written
from .results import (
    FROM_CLOCK,
    FROM_FORFEIT,
    FROM_GAME,
    GameResult,
    decided_by_forfeit,
    game_result,
    record_game_result,
    write_game_result,
)
from .round_tables import seated_round_tables, seated_table, table_setup
from .rounds import CONCURRENT_STARTS, RoundStarts
from .schedule import SCHEDULE_BATCH, ScheduledRuns
from .use_cases import DEFAULT_PAGE, FORFEIT_OUTCOMES, MAX_PAGE, Tournaments
from .validation import (
    MAX_ENTRANTS,
    MAX_PLAYER_ID,
    MAX_ROUND_BREAK_SECONDS,
    MAX_ROUND_TIME_LIMIT_SECONDS,
    MAX_SWISS_ROUNDS,
    PairingOverride,
    overridden,
    tournament_config,
)
from .views import round_shown_view, round_view, tournament_view, view_of
from .vocabulary import (
    CANCELLED,
    FINISHED,
    REGISTERED,
    RUNNING,
    Entrant,
    Format,
    KnockoutTie,
    Outcome,
    Points,
    RoundTimeout,
    TieBreaker,
)

__all__ = [
    "CANCELLED",
    "CAS_ATTEMPTS",
    "CONCURRENT_STARTS",
    "DEFAULT_PAGE",
    "FINISHED",
    "FORFEIT_OUTCOMES",
    "FROM_CLOCK",
    "FROM_FORFEIT",
    "FROM_GAME",
    "MAX_ENTRANTS",
    "MAX_PAGE",
    "MAX_PLAYER_ID",
    "MAX_ROUND_BREAK_SECONDS",
    "MAX_ROUND_TIME_LIMIT_SECONDS",
    "MAX_SWISS_ROUNDS",
    "REGISTERED",
    "RESULT_WORDS",
    "RUNNING",
    "SCHEDULE_BATCH",
    "SHOWN_KEPT",
    "CorrectionView",
    "Entrant",
    "Format",
    "GameResult",
    "GamesByTable",
    "KnockoutTie",
    "NewTournament",
    "Outcome",
    "PairingOverride",
    "Points",
    "RoundShown",
    "RoundStarts",
    "RoundTimeout",
    "RoundView",
    "ScheduledRuns",
    "SeatView",
    "StandingView",
    "TableGame",
    "TableOfGame",
    "TableView",
    "TieBreaker",
    "TokensBySeat",
    "TournamentConflict",
    "TournamentCore",
    "TournamentQuery",
    "TournamentRepository",
    "TournamentResults",
    "TournamentRow",
    "TournamentShown",
    "TournamentSummary",
    "TournamentView",
    "Tournaments",
    "Written",
    "bad_config",
    "busy",
    "cannot_pay",
    "count_chips",
    "decided_by_forfeit",
    "deck_shown",
    "game_result",
    "money_moved",
    "not_found",
    "notices",
    "overridden",
    "rebuilt",
    "record_game_result",
    "refused",
    "round_shown_view",
    "round_view",
    "seated_round_tables",
    "seated_table",
    "shown_money",
    "standings_of",
    "table_setup",
    "tournament_config",
    "tournament_view",
    "view_of",
    "write_game_result",
    "written",
]
