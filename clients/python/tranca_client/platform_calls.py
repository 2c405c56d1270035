"""The app's calls on players and tournaments (``PlayerService`` and
``TournamentService``, with the API key) for ``AsyncTrancaClient``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

import grpc

from ._auth import APP
from .errors import NotFound
from .v1 import platform_pb2 as ppb
from .v1 import platform_pb2_grpc as ppb_grpc

Req = TypeVar("Req")
Resp = TypeVar("Resp")

_APP = APP


class AsyncPlatformCalls:
    """The player and tournament calls of ``AsyncTrancaClient``."""

    if TYPE_CHECKING:
        _players: ppb_grpc.PlayerServiceAsyncStub
        _tournaments: ppb_grpc.TournamentServiceAsyncStub

        async def _unary(
            self,
            method: grpc.aio.UnaryUnaryMultiCallable[Req, Resp],
            request: Req,
            auth: str,
            *,
            retry: bool,
            conflicts: bool = False,
        ) -> Resp: ...

    # ----- players (PlayerService; API key) --------------------------------------------

    async def get_player(self, player_id: str) -> ppb.GetPlayerResponse:
        """A player's rating, chips and ranking points."""
        return await self._unary(
            self._players.GetPlayer, ppb.GetPlayerRequest(player_id=player_id), _APP, retry=True
        )

    async def leaderboard(
        self,
        kind: ppb.LeaderboardKind.ValueType = ppb.LEADERBOARD_KIND_RANKING_POINTS,
        period: ppb.Period.ValueType = ppb.PERIOD_ALL_TIME,
        *,
        limit: int = 50,
    ) -> list[ppb.LeaderboardEntry]:
        """The app's players ranked by ranking points over ``period``, or by rating."""
        request = ppb.GetLeaderboardRequest(kind=kind, period=period, limit=limit)
        out = await self._unary(self._players.GetLeaderboard, request, _APP, retry=True)
        return list(out.entries)

    async def grant_chips(self, player_id: str, amount: int, grant_id: str) -> int:
        """Grant chips; idempotent by ``grant_id`` (so retried). Returns the balance."""
        request = ppb.GrantChipsRequest(player_id=player_id, amount=amount, grant_id=grant_id)
        out = await self._unary(self._players.GrantChips, request, _APP, retry=True)
        return out.chips

    async def chip_entries(
        self, player_id: str, *, page_size: int = 50, page_token: str = ""
    ) -> ppb.ListChipEntriesResponse:
        """One page of a player's chip entries, newest first."""
        request = ppb.ListChipEntriesRequest(
            player_id=player_id, page_size=page_size, page_token=page_token
        )
        return await self._unary(self._players.ListChipEntries, request, _APP, retry=True)

    # ----- tournaments (TournamentService; API key) ------------------------------------

    async def create_tournament(self, request: ppb.CreateTournamentRequest) -> ppb.Tournament:
        """Register a tournament. Not retried (a lost answer may have made it)."""
        out = await self._unary(self._tournaments.CreateTournament, request, _APP, retry=False)
        return out.tournament

    async def get_tournament(self, tournament_id: str) -> ppb.Tournament:
        """A tournament's rounds, tables, results and standings."""
        request = ppb.GetTournamentRequest(tournament_id=tournament_id)
        out = await self._unary(self._tournaments.GetTournament, request, _APP, retry=True)
        return out.tournament

    async def start_round(
        self,
        tournament_id: str,
        round_number: int,
        *,
        pairings: Sequence[tuple[str, str] | ppb.TablePairing] = (),
        byes: Sequence[str] = (),
    ) -> ppb.TournamentRound:
        """Pair and start round ``round_number``; its seats' tokens are in the answer.

        ``pairings`` (``(entrant_a, entrant_b)`` pairs or ``TablePairing`` messages)
        and ``byes``: the organiser's pairing of a Swiss round instead of the server's,
        every entrant still in exactly once (``InvalidRequest`` BAD_PAIRING
        otherwise; ``RuleRejected`` PAIRING_NOT_ALLOWED for a round robin, a knockout
        or a play-off round). Retried: a retry for the round already started answers
        it again with fresh tokens (earlier ones stay valid; a given pairing is then
        ignored), and a retry for an earlier round answers it without tokens."""
        request = ppb.StartRoundRequest(
            tournament_id=tournament_id,
            round=round_number,
            pairings=[
                p
                if isinstance(p, ppb.TablePairing)
                else ppb.TablePairing(entrant_a=p[0], entrant_b=p[1])
                for p in pairings
            ],
            byes=list(byes),
        )
        out = await self._unary(
            self._tournaments.StartRound, request, _APP, retry=True, conflicts=True
        )
        return out.round

    async def record_forfeit(
        self,
        tournament_id: str,
        round_number: int,
        table: int,
        outcome: ppb.TableOutcome.ValueType,
    ) -> ppb.Tournament:
        """Record a forfeit or a no-show at a table of the current round
        (``TABLE_OUTCOME_A_FORFEITS``, ``_B_FORFEITS`` or ``_DOUBLE_NO_SHOW``).
        Retried: a repeat of the table's recorded forfeit changes nothing."""
        request = ppb.RecordForfeitRequest(
            tournament_id=tournament_id, round=round_number, table=table, outcome=outcome
        )
        out = await self._unary(
            self._tournaments.RecordForfeit, request, _APP, retry=True, conflicts=True
        )
        return out.tournament

    async def withdraw_entrant(self, tournament_id: str, entrant: str) -> ppb.Tournament:
        """Take an entrant out of later rounds (its results stay); before an open
        tournament's start, the entrant leaves the field. Retried: a repeat changes
        nothing; a retry refused with ENTRANT_NOT_FOUND after an attempt that got no
        answer (which may have taken a registration out of the field) returns the
        tournament as it is, without the entrant."""
        request = ppb.WithdrawEntrantRequest(tournament_id=tournament_id, entrant=entrant)
        try:
            out = await self._unary(
                self._tournaments.WithdrawEntrant, request, _APP, retry=True, conflicts=True
            )
        except NotFound as exc:
            if exc.reason == "ENTRANT_NOT_FOUND" and exc.unanswered:
                return await self.get_tournament(tournament_id)
            raise
        return out.tournament

    async def register_entrant(
        self,
        tournament_id: str,
        entrant: str | ppb.Entrant,
        player_ids: Sequence[str] = (),
    ) -> ppb.Tournament:
        """Register an entrant in an open tournament (``registration_open``), last in
        seed order: ``entrant`` is its id, with ``player_ids`` its players (one, or a
        pair at 4-player tables; default: the entrant's id, a player of its own), or
        an ``Entrant`` message as it is (``player_ids`` then unused). Retried: a
        retry of the same registration changes nothing. Raises ``RuleRejected``
        (REGISTRATION_CLOSED, TOURNAMENT_FULL), ``AlreadyExists`` (ENTRANT_EXISTS: the
        id, or a player, is in the field already)."""
        if not isinstance(entrant, ppb.Entrant):
            entrant = ppb.Entrant(id=entrant, player_ids=list(player_ids) or [entrant])
        request = ppb.RegisterEntrantRequest(tournament_id=tournament_id, entrant=entrant)
        out = await self._unary(
            self._tournaments.RegisterEntrant, request, _APP, retry=True, conflicts=True
        )
        return out.tournament

    async def check_in_entrant(self, tournament_id: str, entrant: str) -> ppb.Tournament:
        """Check an entrant in (a scheduled tournament with ``check_in_seconds``,
        within its window); those not checked in are dropped when round 1 starts.
        Retried: a repeat changes nothing. Raises ``RuleRejected`` (NO_CHECK_IN,
        CHECK_IN_CLOSED)."""
        request = ppb.CheckInEntrantRequest(tournament_id=tournament_id, entrant=entrant)
        out = await self._unary(
            self._tournaments.CheckInEntrant, request, _APP, retry=True, conflicts=True
        )
        return out.tournament

    async def list_tournaments(
        self,
        status: ppb.TournamentStatus.ValueType = ppb.TOURNAMENT_STATUS_UNSPECIFIED,
        *,
        preset: str = "",
        starts_after_ms: int = 0,
        starts_before_ms: int = 0,
        page_size: int = 0,
        page_token: str = "",
    ) -> ppb.ListTournamentsResponse:
        """One page of the app's tournaments (``.tournaments``, summaries), by start
        time then creation; ``.next_page_token`` for the next page (empty after the
        last). Filters (unset: any): ``status``, ``preset``, and a scheduled start at
        or after ``starts_after_ms`` and before ``starts_before_ms`` (epoch ms).
        ``page_size`` 0 is the server's 50 (at most 200)."""
        request = ppb.ListTournamentsRequest(
            status=status,
            preset=preset,
            starts_after_ms=starts_after_ms,
            starts_before_ms=starts_before_ms,
            page_size=page_size,
            page_token=page_token,
        )
        return await self._unary(self._tournaments.ListTournaments, request, _APP, retry=True)

    async def cancel_tournament(self, tournament_id: str, reason: str = "") -> ppb.Tournament:
        """Cancel a tournament (status ``CANCELLED``): no round starts again and the
        games still going at its tables are ended (they count for no one, stakes go
        back); ``reason`` is kept with it. Retried: a repeat changes nothing (and
        ends any game left going). Raises ``RuleRejected`` TOURNAMENT_OVER for a
        finished tournament."""
        request = ppb.CancelTournamentRequest(tournament_id=tournament_id, reason=reason)
        out = await self._unary(
            self._tournaments.CancelTournament, request, _APP, retry=True, conflicts=True
        )
        return out.tournament

    async def correct_result(
        self,
        tournament_id: str,
        round_number: int,
        table: int,
        outcome: ppb.TableOutcome.ValueType,
        reason: str,
    ) -> ppb.Tournament:
        """Correct a table's recorded result (an organiser's ruling) to ``outcome``,
        with its ``reason`` (required): kept in the tournament's ``corrections``, the
        standings recomputed. Retried: a repeat of the same correction changes
        nothing. Raises ``RuleRejected`` (ROUND_NOT_PLAYED, NO_RESULT_YET,
        RESULT_FIXED), ``InvalidRequest`` (no reason, no such table)."""
        request = ppb.CorrectResultRequest(
            tournament_id=tournament_id,
            round=round_number,
            table=table,
            outcome=outcome,
            reason=reason,
        )
        out = await self._unary(
            self._tournaments.CorrectResult, request, _APP, retry=True, conflicts=True
        )
        return out.tournament

    async def export_tournament(
        self,
        tournament_id: str,
        content: ppb.ExportContent.ValueType = ppb.EXPORT_CONTENT_STANDINGS,
        format: ppb.ExportFormat.ValueType = ppb.EXPORT_FORMAT_CSV,
        *,
        round_number: int = 0,
    ) -> ppb.ExportTournamentResponse:
        """The standings (``EXPORT_CONTENT_STANDINGS``) or the pairings and results
        (``EXPORT_CONTENT_ROUNDS``, of round ``round_number``; 0: of every round), as
        CSV or JSON: ``.content`` (the document) and ``.content_type``
        (``text/csv`` or ``application/json``). A read: retried."""
        request = ppb.ExportTournamentRequest(
            tournament_id=tournament_id, content=content, format=format, round=round_number
        )
        return await self._unary(self._tournaments.ExportTournament, request, _APP, retry=True)
