"""Ranking points ("Clasificación por puntos" in 003) and the leaderboards by period.

003: "Puntuación: Partida a puntos / Exprés — 2 jug. o por parejas: 40 puntos /
20 puntos", "Los jugadores que pierden una partida, suman 5 puntos", "No se puntúa si
2 jugadores de la mesa comparten la misma IP", and "Para ganar puntos, las partidas
han de ser competitivas". An annulled match "no cuenta en la clasificación": the
caller does not pass it here.

``match_awards`` turns one finished match into dated ``Award`` rows; ``leaderboard``
adds up the awards of a day, a week, a month or all time.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from enum import StrEnum

from . import DRAWN, PlayerId, winners_of


class GameType(StrEnum):
    POINTS = "points"  # "Partida a puntos": played to a points limit (2000, 3000)
    EXPRESS = "express"  # "Exprés": a single game, "sin límite de puntos"


WIN_POINTS = {GameType.POINTS: 40, GameType.EXPRESS: 20}
LOSS_POINTS = 5


def game_type(target_score: int) -> GameType:
    """The game type of a match played to ``target_score`` (0: a single deal, express)."""
    return GameType.POINTS if target_score > 0 else GameType.EXPRESS


@dataclass(frozen=True)
class SeatEntry:
    """Who sat in a seat and the network address they played from."""

    player: PlayerId
    address: str


@dataclass(frozen=True)
class Award:
    match_id: str
    player: PlayerId
    points: int
    won: bool
    at: datetime  # when the match ended; timezone-aware


def normalize_address(address: str) -> str:
    """One spelling per address: an IPv4-mapped IPv6 address is its IPv4 address, and
    IPv6 is compressed; text that is no IP address is compared as it is, trimmed and
    lower-cased."""
    text = address.strip()
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return text.lower()
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def shared_address(addresses: Iterable[str]) -> bool:
    """True when two seats of the table share a network address."""
    seen = [normalize_address(a) for a in addresses]
    return len(set(seen)) != len(seen)


def match_awards(
    match_id: str,
    seats: Sequence[SeatEntry],
    winner: int,
    kind: GameType,
    at: datetime,
    *,
    competitive: bool = True,
    stake_percent: int = 100,
) -> list[Award]:
    """The ranking points of one finished match, one award per seat in seat order.

    ``winner`` is the winning side (``tranca.platform.sides``) or ``DRAWN``. Every
    player of the winning side (both partners in a pairs game) gets the win points of
    ``kind``; every other player gets the loss points. A drawn match gives every player
    the loss points. No awards at all for a practice match. When two seats share an
    address nobody scores: every award is worth 0 points, but is still there, so that
    the match counts among the players' matches and wins on the leaderboards as it
    does in their rating (one definition of a player's matches: the rated ones).

    ``stake_percent`` weighs the win points by the match's stake ("Los puntos ganados
    dependen del tipo de juego y la apuesta inicial": ``progression.stake_percent``,
    100 at stake 0); the loss points stay 5 ("suman 5 puntos")."""
    if at.tzinfo is None or at.utcoffset() is None:
        raise ValueError("the award time must be timezone-aware")
    players = [s.player for s in seats]
    if len(set(players)) != len(players):
        raise ValueError("a player sits in one seat only")
    winners = set(winners_of(players, winner)) if winner != DRAWN else set()
    if not competitive:
        return []
    scored = not shared_address(s.address for s in seats)
    return [
        Award(
            match_id,
            p,
            (WIN_POINTS[kind] * stake_percent // 100 if p in winners else LOSS_POINTS)
            if scored
            else 0,
            p in winners,
            at,
        )
        for p in players
    ]


class Period(StrEnum):
    DAY = "day"
    WEEK = "week"  # ISO weeks: Monday to Sunday
    MONTH = "month"
    ALL_TIME = "all_time"


def period_bounds(period: Period, now: datetime, tz: tzinfo = UTC) -> tuple[datetime, datetime]:
    """The calendar day, week or month (in ``tz``) that contains ``now``, as UTC times
    [start, end). All time has no bounds: (datetime.min, datetime.max) in UTC."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware")
    if period == Period.ALL_TIME:
        return datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)
    local = now.astimezone(tz)
    day = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == Period.DAY:
        start, end = day, day + timedelta(days=1)
    elif period == Period.WEEK:
        start = day - timedelta(days=local.weekday())
        end = start + timedelta(days=7)
    else:
        start = day.replace(day=1)
        after = (start.year + 1, 1) if start.month == 12 else (start.year, start.month + 1)
        end = start.replace(year=after[0], month=after[1])
    # Wall-clock arithmetic in ``tz``, then UTC instants: a zoneinfo zone gives each
    # bound its own offset on either side of a daylight-saving change.
    return start.astimezone(UTC), end.astimezone(UTC)


def shared_ranks(scores: Sequence[object]) -> list[int]:
    """Ranks from 1 for ``scores`` sorted best first: equal scores share a rank and
    the next score's rank skips past them (1, 2, 2, 4)."""
    ranks: list[int] = []
    for i, score in enumerate(scores):
        ranks.append(ranks[-1] if i and scores[i - 1] == score else i + 1)
    return ranks


@dataclass(frozen=True)
class Standing:
    rank: int  # 1 for the most points; equal points share a rank
    player: PlayerId
    points: int
    wins: int
    games: int


def leaderboard(
    awards: Iterable[Award],
    period: Period,
    now: datetime,
    *,
    tz: tzinfo = UTC,
    limit: int | None = None,
) -> list[Standing]:
    """Points per player over the period that contains ``now``, most first (equal
    points share a rank and are listed by player id).

    The same award passed twice counts once; two different awards for the same player
    and match are refused (ValueError)."""
    start, end = period_bounds(period, now, tz)
    seen: dict[tuple[str, PlayerId], Award] = {}
    for award in awards:
        key = (award.match_id, award.player)
        earlier = seen.get(key)
        if earlier is not None and earlier != award:
            raise ValueError(f"two different awards for {award.player} in {award.match_id}")
        seen[key] = award
    totals: dict[PlayerId, list[int]] = {}
    for award in seen.values():
        if start <= award.at.astimezone(UTC) < end:
            t = totals.setdefault(award.player, [0, 0, 0])
            t[0] += award.points
            t[1] += award.won
            t[2] += 1
    rows = sorted(totals.items(), key=lambda pt: (-pt[1][0], pt[0]))
    board: list[Standing] = []
    ranks = shared_ranks([points for _, (points, _, _) in rows])
    for rank, (player, (points, wins, games)) in zip(ranks, rows, strict=True):
        board.append(Standing(rank, player, points, wins, games))
        if limit is not None and len(board) >= limit:
            break
    return board
