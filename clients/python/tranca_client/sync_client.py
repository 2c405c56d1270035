"""``TrancaClient``: the blocking client, an ``AsyncTrancaClient`` run on an event
loop of its own in a background thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator, Sequence
from typing import Any, TypeVar, cast

from .async_client import AsyncTrancaClient
from .chat import Chat
from .connection import DEFAULT_ADDRESS
from .invitations import Invitations
from .progression import Progression
from .quick_play import QuickPlay
from .sessions import Sessions
from .social import Social
from .tables import Tables
from .v1 import game_pb2 as pb
from .v1 import platform_pb2 as ppb

T = TypeVar("T")


class TrancaClient(QuickPlay, Sessions, Social, Chat, Invitations, Tables, Progression):
    """A blocking client with the same methods as ``AsyncTrancaClient`` (same
    arguments, same errors, same retries), for scripts and notebooks::

        with TrancaClient("127.0.0.1:50051", api_key=KEY) as app:
            game = app.create_game("tranca-000", players=2)
            me = app.join(game.game_id, 0, player_name="ana")
            for view in me.watch(game.game_id):
                ...

    It runs an ``AsyncTrancaClient`` on an event loop of its own in a background
    thread; each method blocks until its call is done. ``watch`` and
    ``watch_updates`` are plain iterators. Clients made by ``with_token`` or ``join``
    share the connection and the thread: closing the first client closes them all.
    """

    def __init__(self, address: str = DEFAULT_ADDRESS, **kwargs: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="tranca-client", daemon=True
        )
        self._thread.start()
        self._owner = True

        async def make() -> AsyncTrancaClient:
            return AsyncTrancaClient(address, **kwargs)

        self._aio = self._run(make())

    @classmethod
    def _sharing(cls, parent: TrancaClient, aio: AsyncTrancaClient) -> TrancaClient:
        child = cls.__new__(cls)
        child._loop, child._thread, child._owner, child._aio = (
            parent._loop,
            parent._thread,
            False,
            aio,
        )
        return child

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    @property
    def aio(self) -> AsyncTrancaClient:
        """The underlying ``AsyncTrancaClient`` (it lives on this client's loop)."""
        return self._aio

    @property
    def token(self) -> str | None:
        return self._aio.token

    @property
    def seat(self) -> int:
        return self._aio.seat

    def with_token(self, token: str) -> TrancaClient:
        """A client for the seat of ``token`` on the same connection."""
        return TrancaClient._sharing(self, self._aio.with_token(token))

    def close(self) -> None:
        """Close the connection and stop the background loop (first client only)."""
        if not self._owner or self._loop.is_closed():
            return
        self._run(self._aio.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def __enter__(self) -> TrancaClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_ready(self, timeout: float = 10.0) -> None:
        """See ``AsyncTrancaClient.wait_ready``."""
        self._run(self._aio.wait_ready(timeout))

    def list_presets(self) -> list[pb.Preset]:
        """See ``AsyncTrancaClient.list_presets``."""
        return self._run(self._aio.list_presets())

    def create_game(
        self, preset: str = "tranca-000", players: int = 4, **kwargs: Any
    ) -> pb.GameSummary:
        """See ``AsyncTrancaClient.create_game``."""
        return self._run(self._aio.create_game(preset, players, **kwargs))

    def join_game(self, game_id: str, seat: int = -1, **kwargs: Any) -> pb.JoinGameResponse:
        """See ``AsyncTrancaClient.join_game``."""
        return self._run(self._aio.join_game(game_id, seat, **kwargs))

    def create_table(
        self, preset: str = "tranca-000", players: int = 4, **kwargs: Any
    ) -> pb.CreateGameResponse:
        """See ``AsyncTrancaClient.create_table``."""
        return self._run(self._aio.create_table(preset, players, **kwargs))

    def join(
        self, game_id: str, seat: int = -1, *, player_name: str = "", **kwargs: Any
    ) -> TrancaClient:
        """See ``AsyncTrancaClient.join``."""
        aio = self._run(self._aio.join(game_id, seat, player_name=player_name, **kwargs))
        return TrancaClient._sharing(self, aio)

    def list_games(
        self, status: pb.GameStatus.ValueType = pb.GAME_STATUS_UNSPECIFIED, **kwargs: Any
    ) -> pb.ListGamesResponse:
        """See ``AsyncTrancaClient.list_games``."""
        return self._run(self._aio.list_games(status, **kwargs))

    def start_game(self, game_id: str) -> pb.GameView:
        """See ``AsyncTrancaClient.start_game``."""
        return self._run(self._aio.start_game(game_id))

    def get_view(self, game_id: str) -> pb.GameView:
        """See ``AsyncTrancaClient.get_view``."""
        return self._run(self._aio.get_view(game_id))

    def legal_moves(self, game_id: str) -> pb.ListLegalMovesResponse:
        """See ``AsyncTrancaClient.legal_moves``."""
        return self._run(self._aio.legal_moves(game_id))

    def submit_move(
        self,
        game_id: str,
        move: pb.Move | str,
        *,
        expected_version: int,
        request_id: str | None = None,
        include_legal_moves: bool = False,
    ) -> pb.SubmitMoveResponse:
        """See ``AsyncTrancaClient.submit_move``."""
        return self._run(
            self._aio.submit_move(
                game_id,
                move,
                expected_version=expected_version,
                request_id=request_id,
                include_legal_moves=include_legal_moves,
            )
        )

    def submit_turn(
        self,
        game_id: str,
        moves: Sequence[pb.Move | str],
        *,
        expected_version: int,
        request_id: str | None = None,
        include_legal_moves: bool = False,
    ) -> pb.SubmitTurnResponse:
        """See ``AsyncTrancaClient.submit_turn``."""
        return self._run(
            self._aio.submit_turn(
                game_id,
                moves,
                expected_version=expected_version,
                request_id=request_id,
                include_legal_moves=include_legal_moves,
            )
        )

    def play(
        self, view: pb.GameView, move: pb.Move | str, *, request_id: str | None = None
    ) -> pb.GameView:
        """See ``AsyncTrancaClient.play``."""
        return self._run(self._aio.play(view, move, request_id=request_id))

    def leave_game(self, game_id: str, *, request_id: str | None = None) -> int:
        """See ``AsyncTrancaClient.leave_game``."""
        return self._run(self._aio.leave_game(game_id, request_id=request_id))

    def get_replay(self, game_id: str) -> pb.GetReplayResponse:
        """See ``AsyncTrancaClient.get_replay``."""
        return self._run(self._aio.get_replay(game_id))

    def heartbeat(self, game_id: str) -> bool:
        """See ``AsyncTrancaClient.heartbeat``."""
        return self._run(self._aio.heartbeat(game_id))

    def reclaim_seat(self, game_id: str, **kwargs: Any) -> pb.GameView:
        """See ``AsyncTrancaClient.reclaim_seat``."""
        return self._run(self._aio.reclaim_seat(game_id, **kwargs))

    def set_automatic(self, game_id: str, on: bool, **kwargs: Any) -> pb.GameView:
        """See ``AsyncTrancaClient.set_automatic``."""
        return self._run(self._aio.set_automatic(game_id, on, **kwargs))

    def vote_annul(self, game_id: str, **kwargs: Any) -> pb.VoteAnnulResponse:
        """See ``AsyncTrancaClient.vote_annul``."""
        return self._run(self._aio.vote_annul(game_id, **kwargs))

    def add_entropy(self, game_id: str, entropy: str, **kwargs: Any) -> pb.DealCommitment:
        """See ``AsyncTrancaClient.add_entropy``."""
        return self._run(self._aio.add_entropy(game_id, entropy, **kwargs))

    def update_table_options(
        self, game_id: str, table: pb.TableOptions, **kwargs: Any
    ) -> pb.GameView:
        """See ``AsyncTrancaClient.update_table_options``."""
        return self._run(self._aio.update_table_options(game_id, table, **kwargs))

    def consent_to_options(self, game_id: str, **kwargs: Any) -> pb.GameView:
        """See ``AsyncTrancaClient.consent_to_options``."""
        return self._run(self._aio.consent_to_options(game_id, **kwargs))

    def get_player(self, player_id: str) -> ppb.GetPlayerResponse:
        """See ``AsyncTrancaClient.get_player``."""
        return self._run(self._aio.get_player(player_id))

    def leaderboard(self, *args: Any, **kwargs: Any) -> list[ppb.LeaderboardEntry]:
        """See ``AsyncTrancaClient.leaderboard``."""
        return self._run(self._aio.leaderboard(*args, **kwargs))

    def grant_chips(self, player_id: str, amount: int, grant_id: str) -> int:
        """See ``AsyncTrancaClient.grant_chips``."""
        return self._run(self._aio.grant_chips(player_id, amount, grant_id))

    def chip_entries(self, player_id: str, **kwargs: Any) -> ppb.ListChipEntriesResponse:
        """See ``AsyncTrancaClient.chip_entries``."""
        return self._run(self._aio.chip_entries(player_id, **kwargs))

    def create_tournament(self, request: ppb.CreateTournamentRequest) -> ppb.Tournament:
        """See ``AsyncTrancaClient.create_tournament``."""
        return self._run(self._aio.create_tournament(request))

    def get_tournament(self, tournament_id: str) -> ppb.Tournament:
        """See ``AsyncTrancaClient.get_tournament``."""
        return self._run(self._aio.get_tournament(tournament_id))

    def start_round(
        self,
        tournament_id: str,
        round_number: int,
        *,
        pairings: Sequence[tuple[str, str] | ppb.TablePairing] = (),
        byes: Sequence[str] = (),
    ) -> ppb.TournamentRound:
        """See ``AsyncTrancaClient.start_round``."""
        return self._run(
            self._aio.start_round(tournament_id, round_number, pairings=pairings, byes=byes)
        )

    def record_forfeit(
        self,
        tournament_id: str,
        round_number: int,
        table: int,
        outcome: ppb.TableOutcome.ValueType,
    ) -> ppb.Tournament:
        """See ``AsyncTrancaClient.record_forfeit``."""
        return self._run(self._aio.record_forfeit(tournament_id, round_number, table, outcome))

    def withdraw_entrant(self, tournament_id: str, entrant: str) -> ppb.Tournament:
        """See ``AsyncTrancaClient.withdraw_entrant``."""
        return self._run(self._aio.withdraw_entrant(tournament_id, entrant))

    def register_entrant(
        self,
        tournament_id: str,
        entrant: str | ppb.Entrant,
        player_ids: Sequence[str] = (),
    ) -> ppb.Tournament:
        """See ``AsyncTrancaClient.register_entrant``."""
        return self._run(self._aio.register_entrant(tournament_id, entrant, player_ids))

    def check_in_entrant(self, tournament_id: str, entrant: str) -> ppb.Tournament:
        """See ``AsyncTrancaClient.check_in_entrant``."""
        return self._run(self._aio.check_in_entrant(tournament_id, entrant))

    def list_tournaments(
        self,
        status: ppb.TournamentStatus.ValueType = ppb.TOURNAMENT_STATUS_UNSPECIFIED,
        **kwargs: Any,
    ) -> ppb.ListTournamentsResponse:
        """See ``AsyncTrancaClient.list_tournaments``."""
        return self._run(self._aio.list_tournaments(status, **kwargs))

    def cancel_tournament(self, tournament_id: str, reason: str = "") -> ppb.Tournament:
        """See ``AsyncTrancaClient.cancel_tournament``."""
        return self._run(self._aio.cancel_tournament(tournament_id, reason))

    def correct_result(
        self,
        tournament_id: str,
        round_number: int,
        table: int,
        outcome: ppb.TableOutcome.ValueType,
        reason: str,
    ) -> ppb.Tournament:
        """See ``AsyncTrancaClient.correct_result``."""
        return self._run(
            self._aio.correct_result(tournament_id, round_number, table, outcome, reason)
        )

    def export_tournament(
        self,
        tournament_id: str,
        content: ppb.ExportContent.ValueType = ppb.EXPORT_CONTENT_STANDINGS,
        format: ppb.ExportFormat.ValueType = ppb.EXPORT_FORMAT_CSV,
        *,
        round_number: int = 0,
    ) -> ppb.ExportTournamentResponse:
        """See ``AsyncTrancaClient.export_tournament``."""
        return self._run(
            self._aio.export_tournament(tournament_id, content, format, round_number=round_number)
        )

    def _iterate(self, agen: AsyncIterator[T]) -> Iterator[T]:
        done = object()

        async def step() -> T | object:
            try:
                return await agen.__anext__()
            except StopAsyncIteration:
                return done

        async def close() -> None:
            aclose = getattr(agen, "aclose", None)
            if aclose is not None:
                await aclose()

        try:
            while True:
                item = self._run(step())
                if item is done:
                    return
                yield cast(T, item)
        finally:
            if not self._loop.is_closed():
                self._run(close())

    def watch_updates(self, game_id: str, from_version: int = 0) -> Iterator[pb.WatchGameResponse]:
        """See ``AsyncTrancaClient.watch_updates``."""
        return self._iterate(self._aio.watch_updates(game_id, from_version))

    def watch(self, game_id: str, from_version: int = 0) -> Iterator[pb.GameView]:
        """See ``AsyncTrancaClient.watch``."""
        return self._iterate(self._aio.watch(game_id, from_version))
