"""The fakes are the ports they stand for: mypy checks each assignment below against
its Protocol, and each fake answers as an empty store does."""

from __future__ import annotations

from tranca.services.admin import AdminRepository
from tranca.services.players import PlayersRepository
from tranca.services.tournaments import TournamentQuery, TournamentRepository

from .fakes import InMemoryRepository, PlayersMemory, TournamentsMemory


async def test_an_empty_players_fake_has_no_chips_and_no_entries() -> None:
    players: PlayersRepository = PlayersMemory()
    assert (await players.player_totals("app", "ana")).chips == 0
    page = await players.chip_entries("app", "ana", 10, None)
    assert (page.entries, page.next_before) == ((), None)


async def test_an_empty_tournaments_fake_knows_no_tournament() -> None:
    tournaments: TournamentRepository = TournamentsMemory(InMemoryRepository())
    assert await tournaments.load_tournament("t", "app") is None
    assert await tournaments.tournament_version("t", "app") is None
    assert await tournaments.list_tournaments("app", TournamentQuery(), 0, 10) == []
    assert await tournaments.claim_due(10**13, 1000, 5) == []
    assert await tournaments.count_running() == 0


def test_the_games_fake_serves_the_admins_reads() -> None:
    # (what the assignment checks is mypy's: the games' fake is an AdminRepository)
    admin: AdminRepository = InMemoryRepository()
    assert isinstance(admin, InMemoryRepository)


def test_the_progression_fake_is_the_settlements_port() -> None:
    # (mypy checks the assignments: the fake is each port)
    from tranca.services.progression import ProgressionReads, ProgressionWork

    from .fakes.progression import ProgressionMatch, ProgressionMemory

    memory = ProgressionMemory()
    reads: ProgressionReads = memory
    work: ProgressionWork = memory.work("app", "g1")
    assert reads is memory and isinstance(work, ProgressionMatch)
