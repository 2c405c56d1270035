"""Settling finished matches: ratings, ranking points, chips and tournament results,
exactly once per match (games.settled).

Each finished, unsettled game is settled in one transaction of its own: the game's
row is claimed (PostgreSQL: ``FOR UPDATE SKIP LOCKED``, so replicas sweeping at the
same time settle different games; SQLite: the process's one writer and the file's
write lock), everything is written, and ``settled`` is set with ``WHERE settled =
false``: a second settlement of the same game finds nothing to do, and a failed one
writes nothing and is tried again at the next sweep. Practice games outside
tournaments, for which settling writes nothing but the flag, are settled together
in one statement of the same kind.

What a match counts for (003):

- practice table: nothing ("Desactiva esta opción para practicar (no ganarás puntos
  ni fichas...)"); its tournament result is still recorded.
- annulled ("la partida se anula... los jugadores no suman ni restan puntos, y esa
  partida no cuenta en la clasificación ni en las estadísticas. Además, las fichas
  apostadas son devueltas"): the stakes go back, no rating, no ranking points, no
  match counted.
- otherwise (a win, including by resignation: the resigning side loses, or a
  draw): ratings (both partners of a pair move together), ranking points ("40
  puntos / 20 puntos" for a win by game type, "Los jugadores que pierden una
  partida, suman 5 puntos", none when "2 jugadores de la mesa comparten la misma
  IP"), and the pot to the winning side less the house's 25% (a draw splits it
  between every seat).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import structlog
from sqlalchemy import false, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..api import metrics  # a leaf module: the store uses nothing else of the API layer
from ..app.game import ANNULLED, FINISHED, GameState
from ..platform import DRAWN, PlayerId, chips, ranking, ratings, sides, winners_of
from . import ledger, tournament_store
from .codec import setup_from_text, state_from_text
from .database import insert_ignoring_duplicates
from .direct import utc_datetime
from .models import Game, MoveLog, PlayerRating, PlayerToken, RankingAward, TournamentGame
from .repository import Store, Unavailable

log = structlog.get_logger("tranca.settlement")

RATED, ANNULLED_OUTCOME, PRACTICE = "rated", "annulled", "practice"


@dataclass(frozen=True)
class Settled:
    game_id: str
    outcome: str  # RATED, ANNULLED_OUTCOME or PRACTICE
    entries: tuple[chips.Entry, ...]  # the chips it moved


async def settle_pending(store: Store, limit: int = 20) -> int:
    """Settle up to ``limit`` finished, unsettled games; returns how many.

    Practice games outside tournaments (most games) count for nothing: settling one
    only sets its flag, so they are settled together, in one statement, without
    their snapshots being read (``settle_practice``). Every other game gets a
    transaction of its own (``settle_game``). A game whose settlement fails (a bug:
    it is logged and counted) is left for the next sweep and does not hold up the
    others; a database outage ends the sweep."""
    async with store.reading() as conn:
        rows = (
            await conn.execute(
                select(Game.id, Game.setup, TournamentGame.game_id.label("tournament_game"))
                .outerjoin(TournamentGame, TournamentGame.game_id == Game.id)
                .where(Game.status == FINISHED, Game.settled == false())
                .order_by(Game.updated_at)
                .limit(limit)
            )
        ).all()
    practice: list[str] = []
    others: list[str] = []
    for r in rows:
        plain = r.tournament_game is None and not setup_from_text(r.setup).table.competitive
        (practice if plain else others).append(str(r.id))
    count = await settle_practice(store, practice) if practice else 0
    for game_id in others:
        try:
            done = await settle_game(store, game_id)
        except Unavailable:
            raise
        except Exception:
            metrics.SETTLEMENT_FAILURES.inc()
            log.exception("settlement_failed", game_id=game_id)
            continue
        if done is not None:
            count += 1
            metrics.MATCHES_SETTLED.labels(done.outcome).inc()
            for e in done.entries:
                if e.amount > 0:  # each transfer once: its receiving side
                    metrics.CHIPS_MOVED.labels(e.purpose.value).inc(e.amount)
    return count


async def settle_practice(store: Store, game_ids: list[str]) -> int:
    """Finished practice games outside tournaments, settled in one statement: their
    flag set and nothing else written, as ``settle_game`` would settle each. Only
    games still unsettled are taken (``settled = false``), so a game another replica
    settled since it was read is neither settled again nor counted again. Returns how
    many this call settled."""
    async with store.writing() as conn:
        settled = (
            await conn.execute(
                update(Game)
                .where(Game.id.in_(game_ids), Game.status == FINISHED, Game.settled == false())
                .values(settled=True)
                .returning(Game.id)
            )
        ).all()
    for (game_id,) in settled:
        log.info("match_settled", game_id=game_id, outcome=PRACTICE)
    metrics.MATCHES_SETTLED.labels(PRACTICE).inc(len(settled))
    return len(settled)


async def settle_game(store: Store, game_id: str) -> Settled | None:
    """Settle one finished game; None if it is not finished, is settled already, or
    another replica is settling it right now."""
    async with store.writing() as conn:
        claim = select(Game.app_id, Game.snapshot, Game.setup).where(
            Game.id == game_id, Game.status == FINISHED, Game.settled == false()
        )
        if store.is_postgres:
            claim = claim.with_for_update(skip_locked=True)
        row = (await conn.execute(claim)).first()
        if row is None:
            return None
        state = state_from_text(row.snapshot, row.setup)
        outcome, entries = await _settle(conn, str(row.app_id), game_id, state)
        await tournament_store.record_game_result(conn, game_id, state.winner, state.result_reason)
        marked = await conn.execute(
            update(Game).where(Game.id == game_id, Game.settled == false()).values(settled=True)
        )
        if marked.rowcount != 1:  # pragma: no cover - the row is claimed above
            raise RuntimeError(f"game {game_id} was settled meanwhile")
    log.info("match_settled", game_id=game_id, outcome=outcome)
    return Settled(game_id, outcome, entries)


async def _settle(
    conn: AsyncConnection, app_id: str, game_id: str, state: GameState
) -> tuple[str, tuple[chips.Entry, ...]]:
    table = state.setup.table
    if not table.competitive:
        return PRACTICE, ()
    if state.result_reason == ANNULLED:
        # No result (annulled by agreement): every stake goes back, nobody is rated.
        return ANNULLED_OUTCOME, await ledger.refund(conn, app_id, game_id)
    players = [s.player_id for s in state.seats]
    if not all(players) or len(set(players)) != len(players):
        # JoinGame refuses both at a competitive table; a game from before that rule
        # has nobody to rate or pay.
        log.warning("settlement_without_players", game_id=game_id)
        return PRACTICE, ()
    ended = await _ended_at(conn, game_id)
    await _rate(conn, app_id, players, state.winner)
    await _award(conn, app_id, game_id, state, players, ended)
    entries: tuple[chips.Entry, ...] = ()
    if table.stake:
        entries = await ledger.settle(conn, app_id, game_id, winners_of(players, state.winner))
    return RATED, entries


async def _ended_at(conn: AsyncConnection, game_id: str) -> datetime:
    """When the match ended: the time of its last logged action."""
    row = (
        await conn.execute(
            select(MoveLog.created_at)
            .where(MoveLog.game_id == game_id)
            .order_by(MoveLog.version.desc())
            .limit(1)
        )
    ).first()
    if row is None or row.created_at is None:  # pragma: no cover - a finished game has a log
        return datetime.now(UTC)
    return utc_datetime(row.created_at)


async def _rate(conn: AsyncConnection, app_id: str, players: list[PlayerId], winner: int) -> None:
    """Rate the match (each side a team, partners together) and count it."""
    ids = sorted(players)
    # Every player's row exists first, so that the rows can be locked (PostgreSQL):
    # two settlements that share a player rate one after the other, in id order.
    await conn.execute(
        insert_ignoring_duplicates(conn, PlayerRating),
        [
            {
                "app_id": app_id,
                "player_id": p,
                "mu": ratings.DEFAULT_MU,
                "sigma": ratings.DEFAULT_SIGMA,
                "games": 0,
                "wins": 0,
            }
            for p in ids
        ],
    )
    rows = (
        await conn.execute(
            select(PlayerRating)
            .where(PlayerRating.app_id == app_id, PlayerRating.player_id.in_(ids))
            .order_by(PlayerRating.player_id)
            .with_for_update()
        )
    ).all()
    before = {r.player_id: r for r in rows}
    book = ratings.RatingBook(
        {p: ratings.Rating(float(r.mu), float(r.sigma), int(r.games)) for p, r in before.items()}
    )
    after = ratings.rate_match(book, sides(players), winner)
    won = set(winners_of(players, winner)) if winner != DRAWN else set()
    now = datetime.now(UTC)
    for p in ids:
        new = after[p]
        await conn.execute(
            update(PlayerRating)
            .where(PlayerRating.app_id == app_id, PlayerRating.player_id == p)
            .values(
                mu=new.mu,
                sigma=new.sigma,
                games=new.games,
                wins=int(before[p].wins) + (1 if p in won else 0),
                updated_at=now,
            )
        )


async def _award(
    conn: AsyncConnection,
    app_id: str,
    game_id: str,
    state: GameState,
    players: list[PlayerId],
    ended: datetime,
) -> None:
    """The match's ranking points (none when two seats share a network address)."""
    addresses = await _seat_addresses(conn, game_id)
    seats = [
        # A seat with no address recorded shares it with nobody.
        ranking.SeatEntry(p, addresses.get(seat) or f"unknown seat {seat}")
        for seat, p in enumerate(players)
    ]
    kind = ranking.game_type(state.setup.rules.target_score)
    awards = ranking.match_awards(game_id, seats, state.winner, kind, ended)
    if awards:
        await conn.execute(
            insert(RankingAward),
            [
                {
                    "app_id": app_id,
                    "game_id": game_id,
                    "player_id": a.player,
                    "points": a.points,
                    "won": a.won,
                    "awarded_at": a.at,
                }
                for a in awards
            ],
        )


async def _seat_addresses(conn: AsyncConnection, game_id: str) -> dict[int, str]:
    """Each seat's network address: the one its player joined from (the seat's first
    token that is still valid; a seat left before the start has its token revoked)."""
    rows = (
        await conn.execute(
            select(PlayerToken.seat, PlayerToken.address)
            .where(
                PlayerToken.game_id == game_id,
                PlayerToken.seat >= 0,
                PlayerToken.revoked.is_(False),
            )
            .order_by(PlayerToken.created_at)
        )
    ).all()
    out: dict[int, str] = {}
    for r in rows:
        out.setdefault(int(r.seat), str(r.address or ""))
    return out
