"""Ranking points (``tranca.platform.ranking``): 003's "Clasificación por puntos".

Each test rests on a passage of the rule document 003_9ae53d0671553559.txt ("003") quoted in
its docstring; where 003 is silent the docstring says what was decided.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pytest

from tranca.platform import DRAWN
from tranca.platform.ranking import (
    LOSS_POINTS,
    WIN_POINTS,
    Award,
    GameType,
    Period,
    SeatEntry,
    game_type,
    leaderboard,
    match_awards,
    normalize_address,
    period_bounds,
    shared_address,
)
from tranca_rules.presets import make_rules

T0 = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)  # a Monday

TWO = [SeatEntry("ana", "203.0.113.1"), SeatEntry("bruno", "198.51.100.7")]
FOUR = [
    SeatEntry("ana", "203.0.113.1"),
    SeatEntry("bruno", "198.51.100.7"),
    SeatEntry("carla", "2001:db8::1"),
    SeatEntry("davi", "192.0.2.44"),
]


def points(awards: list[Award]) -> dict[str, int]:
    return {a.player: a.points for a in awards}


def test_the_table_of_003() -> None:
    """003: "Puntuación — Partida a puntos: 40 puntos, Exprés: 20 puntos (2 jug. o por
    parejas)" and "Los jugadores que pierden una partida, suman 5 puntos"."""
    assert WIN_POINTS == {GameType.POINTS: 40, GameType.EXPRESS: 20}
    assert LOSS_POINTS == 5


def test_game_type_follows_the_points_limit() -> None:
    """003: "Exprés (Partidas rápidas) ... Se juega sin límite de puntos" and "Límite de
    puntos: Determina el final de la partida": a target score is a points game, none
    (a single deal) is express. Preset tranca-003 plays to 2000."""
    assert game_type(0) == GameType.EXPRESS
    assert game_type(2000) == GameType.POINTS
    assert game_type(make_rules("tranca-003").target_score) == GameType.POINTS


def test_two_players_points_game() -> None:
    """003: 40 points for the winner of a points game, 5 for the loser."""
    awards = match_awards("m1", TWO, 0, GameType.POINTS, T0)
    assert points(awards) == {"ana": 40, "bruno": 5}
    assert [a.won for a in awards] == [True, False]
    assert all(a.match_id == "m1" and a.at == T0 for a in awards)


def test_two_players_express_game() -> None:
    """003: 20 points for the winner of an express game, 5 for the loser."""
    awards = match_awards("m1", TWO, 1, GameType.EXPRESS, T0)
    assert points(awards) == {"ana": 5, "bruno": 20}


def test_pairs_both_partners_score() -> None:
    """003: the same 40 / 20 "2 jug. o por parejas"; decided: each partner of the
    winning pair gets the full win points and each loser 5 (seats 0 and 2 are side 0)."""
    awards = match_awards("m2", FOUR, 0, GameType.POINTS, T0)
    assert points(awards) == {"ana": 40, "carla": 40, "bruno": 5, "davi": 5}
    awards = match_awards("m3", FOUR, 1, GameType.EXPRESS, T0)
    assert points(awards) == {"ana": 5, "carla": 5, "bruno": 20, "davi": 20}


@pytest.mark.parametrize("pair", [(0, 1), (0, 2), (1, 3), (2, 3)])
def test_shared_address_gives_no_points_to_anyone(pair: tuple[int, int]) -> None:
    """003: "No se puntúa si 2 jugadores de la mesa comparten la misma IP": partners
    or opponents, nobody at the table scores."""
    seats = list(FOUR)
    a, b = pair
    seats[b] = SeatEntry(seats[b].player, seats[a].address)
    awards = match_awards("m4", seats, 0, GameType.POINTS, T0)
    assert points(awards) == {"ana": 0, "carla": 0, "bruno": 0, "davi": 0}
    # Still one award a player, so the match counts among their matches and wins as
    # it does in their rating (issue 27: the leaderboard's counts and GetPlayer's).
    assert {a.player for a in awards if a.won} == {"ana", "carla"}


def test_addresses_are_compared_by_value() -> None:
    """An IPv4 client seen through an IPv6 socket, or IPv6 written two ways, is the
    same address."""
    assert normalize_address("::ffff:203.0.113.1") == "203.0.113.1"
    assert normalize_address(" 2001:DB8:0:0::1 ") == "2001:db8::1"
    assert shared_address(["203.0.113.1", "::ffff:203.0.113.1"])
    assert shared_address(["2001:db8::1", "2001:0db8::0001"])
    assert not shared_address(["203.0.113.1", "203.0.113.2"])
    assert shared_address(["Relay-A", "relay-a"])  # not an IP: compared as text


def test_practice_games_score_nothing() -> None:
    """003: "Para ganar puntos, las partidas han de ser competitivas" and "Desactiva
    esta opción para practicar (no ganarás puntos ni fichas ...)"."""
    assert match_awards("m5", TWO, 0, GameType.POINTS, T0, competitive=False) == []


def test_a_draw_scores_the_loss_points_for_everyone() -> None:
    """003 has no drawn match (a tie goes to whoever started); decided: a drawn match
    of another preset has no winner, so every player scores the 5 of a match played."""
    awards = match_awards("m6", FOUR, DRAWN, GameType.POINTS, T0)
    assert points(awards) == dict.fromkeys(["ana", "bruno", "carla", "davi"], 5)
    assert not any(a.won for a in awards)


def test_malformed_input_is_refused() -> None:
    with pytest.raises(ValueError):
        match_awards("m7", TWO, 2, GameType.POINTS, T0)
    with pytest.raises(ValueError):
        match_awards("m7", TWO, 0, GameType.POINTS, datetime(2026, 1, 1))
    with pytest.raises(ValueError):
        match_awards("m7", [TWO[0], TWO[0]], 0, GameType.POINTS, T0)


def award(match: str, player: str, pts: int, at: datetime) -> Award:
    return Award(match, player, pts, pts > LOSS_POINTS, at)


def test_leaderboard_by_period() -> None:
    """The room's ranking by day, week, month and all time; decided: calendar periods
    (ISO weeks from Monday) in a time zone the caller picks, UTC by default."""
    now = datetime(2026, 11, 30, 21, 0, tzinfo=UTC)  # Monday 30 November
    awards = [
        award("today", "ana", 40, now - timedelta(hours=1)),
        award("today", "bruno", 5, now - timedelta(hours=1)),
        award("sunday", "bruno", 40, datetime(2026, 11, 29, 12, tzinfo=UTC)),
        award("sunday", "ana", 5, datetime(2026, 11, 29, 12, tzinfo=UTC)),
        award("early", "carla", 20, datetime(2026, 11, 2, tzinfo=UTC)),
        award("early", "ana", 5, datetime(2026, 11, 2, tzinfo=UTC)),
        award("last-year", "davi", 400, datetime(2025, 6, 1, tzinfo=UTC)),
    ]

    def table(period: Period) -> list[tuple[int, str, int]]:
        return [(s.rank, s.player, s.points) for s in leaderboard(awards, period, now)]

    assert table(Period.DAY) == [(1, "ana", 40), (2, "bruno", 5)]
    # the week began today (Monday): Sunday's match is last week's
    assert table(Period.WEEK) == table(Period.DAY)
    assert table(Period.MONTH) == [(1, "ana", 50), (2, "bruno", 45), (3, "carla", 20)]
    assert table(Period.ALL_TIME)[0] == (1, "davi", 400)
    ana = next(s for s in leaderboard(awards, Period.MONTH, now) if s.player == "ana")
    assert (ana.wins, ana.games) == (1, 3)
    assert len(leaderboard(awards, Period.ALL_TIME, now, limit=2)) == 2


def test_leaderboard_in_a_local_time_zone() -> None:
    """A room in Spain closes its day at midnight in Madrid, not in UTC."""
    try:
        madrid = ZoneInfo("Europe/Madrid")
    except ZoneInfoNotFoundError:  # pragma: no cover - a machine without tzdata
        pytest.skip("no time zone data")
    now = datetime(2026, 7, 1, 12, tzinfo=madrid)
    late = datetime(2026, 6, 30, 22, 30, tzinfo=UTC)  # 00:30 on 1 July in Madrid
    awards = [award("m", "ana", 40, late)]
    assert [s.player for s in leaderboard(awards, Period.DAY, now, tz=madrid)] == ["ana"]
    assert leaderboard(awards, Period.DAY, now) == []  # 30 June in UTC
    # 29 March 2026: the clocks go forward, that day is 23 hours long in Madrid
    start, end = period_bounds(Period.DAY, datetime(2026, 3, 29, 12, tzinfo=madrid), madrid)
    assert end - start == timedelta(hours=23)


def test_period_bounds_of_month_and_week() -> None:
    start, end = period_bounds(Period.MONTH, datetime(2026, 12, 31, 23, tzinfo=UTC))
    assert (start, end) == (datetime(2026, 12, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC))
    start, end = period_bounds(Period.WEEK, datetime(2026, 12, 6, 23, tzinfo=UTC))  # Sunday
    assert (start, end) == (datetime(2026, 11, 30, tzinfo=UTC), datetime(2026, 12, 7, tzinfo=UTC))
    with pytest.raises(ValueError):
        period_bounds(Period.DAY, datetime(2026, 12, 6))


def test_equal_points_share_a_rank() -> None:
    awards = [award("m", "bruno", 40, T0), award("n", "ana", 40, T0), award("n", "carla", 5, T0)]
    assert [(s.rank, s.player) for s in leaderboard(awards, Period.DAY, T0)] == [
        (1, "ana"),
        (1, "bruno"),
        (3, "carla"),
    ]


def test_an_award_passed_twice_counts_once() -> None:
    """A caller that reads the same match twice does not double the points; two
    different awards for one player and match are an error."""
    a = award("m", "ana", 40, T0)
    assert leaderboard([a, a], Period.DAY, T0)[0].points == 40
    with pytest.raises(ValueError):
        leaderboard([a, award("m", "ana", 5, T0)], Period.DAY, T0)


def test_match_awards_feed_the_leaderboard() -> None:
    awards = match_awards("m1", FOUR, 0, GameType.POINTS, T0)
    awards += match_awards("m2", TWO, 1, GameType.EXPRESS, T0 + timedelta(minutes=30))
    board = leaderboard(awards, Period.DAY, T0)
    assert [(s.player, s.points) for s in board] == [
        ("ana", 45),
        ("carla", 40),
        ("bruno", 25),
        ("davi", 5),
    ]
