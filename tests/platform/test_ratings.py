"""Ratings (``tranca.platform.ratings``): openskill ratings that understand partnerships.

Each test rests on a passage of the rule document 003_9ae53d0671553559.txt ("003") quoted in
its docstring, or on the game's own side convention (``tranca.table.game``).
"""

from __future__ import annotations

from itertools import pairwise

import pytest

from tranca.platform import DRAWN, sides, winners_of
from tranca.platform.ratings import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    Rating,
    RatingBook,
    leaderboard,
    rate_match,
    win_probability,
)
from tranca.table.game import Action, Setup, apply_action, new_game
from tranca_rules.presets import make_rules

SEATS = ["ana", "bruno", "carla", "davi"]  # seats 0..3: ana and carla against bruno and davi


def test_sides_follow_the_game_seats_0_and_2_against_1_and_3() -> None:
    """003: "La Tranca es un juego de cartas para 2 jugadores o por parejas"; in the
    game, seats 0 and 2 are one partnership and seats 1 and 3 the other."""
    assert sides(SEATS) == [["ana", "carla"], ["bruno", "davi"]]
    assert sides(["ana", "bruno"]) == [["ana"], ["bruno"]]
    assert winners_of(SEATS, 1) == ["bruno", "davi"]
    assert winners_of(SEATS, DRAWN) == SEATS
    with pytest.raises(ValueError):
        winners_of(SEATS, 2)


def test_a_newcomer_has_the_default_rating() -> None:
    book = RatingBook()
    assert book["ana"] == Rating(DEFAULT_MU, DEFAULT_SIGMA, 0)
    assert "ana" not in book and len(book) == 0
    assert book["ana"].ordinal == pytest.approx(DEFAULT_MU - 3 * DEFAULT_SIGMA)


def test_a_two_player_win_lifts_the_winner_and_lowers_the_loser() -> None:
    """003: "El objetivo es ... conseguir más puntos que los contrarios": the side that
    wins the match is the better one for this match."""
    book = rate_match(RatingBook(), [["ana"], ["bruno"]], 0)
    assert book["ana"].mu > DEFAULT_MU > book["bruno"].mu
    assert book["ana"].games == book["bruno"].games == 1
    assert book["ana"].ordinal > book["bruno"].ordinal


def test_partners_rise_and_fall_together() -> None:
    """003: "para 2 jugadores o por parejas": a pair wins or loses as one; both partners
    of the winning pair gain, both of the losing pair lose."""
    book = rate_match(RatingBook(), sides(SEATS), 1)
    assert book["bruno"].mu == pytest.approx(book["davi"].mu)
    assert book["ana"].mu == pytest.approx(book["carla"].mu)
    assert book["bruno"].mu > DEFAULT_MU > book["ana"].mu
    assert all(book[p].games == 1 for p in SEATS)


def test_a_stronger_partner_does_not_change_the_team_result_sign() -> None:
    """Partnerships: a strong player paired with a new one still gains from a win, and
    gains less than the unproven partner, whose rating is less certain."""
    book = RatingBook({"ana": Rating(35.0, 2.0, 50)})
    after = rate_match(book, sides(SEATS), 0)
    assert after["ana"].mu > 35.0
    assert after["carla"].mu - DEFAULT_MU > after["ana"].mu - 35.0


def test_an_upset_moves_ratings_more_than_an_expected_result() -> None:
    strong, weak = Rating(35.0, 3.0, 40), Rating(15.0, 3.0, 40)
    book = RatingBook({"ana": strong, "bruno": weak})
    expected = rate_match(book, [["ana"], ["bruno"]], 0)
    upset = rate_match(book, [["ana"], ["bruno"]], 1)
    assert upset["bruno"].mu - 15.0 > expected["ana"].mu - 35.0
    p_ana, p_bruno = win_probability(book, [["ana"], ["bruno"]])
    assert p_ana > 0.9 and p_ana + p_bruno == pytest.approx(1.0)


def test_a_draw_between_equals_keeps_their_mu() -> None:
    """The match logic can end ``drawn`` (= -2) under a DRAW tie-break or when a
    three-player game loses a player; 003 itself breaks ties ("En caso de empate, gana
    el jugador o la pareja que haya empezado la partida")."""
    book = rate_match(RatingBook(), sides(SEATS), DRAWN)
    for p in SEATS:
        assert book[p].mu == pytest.approx(DEFAULT_MU)
        assert book[p].sigma < DEFAULT_SIGMA
        assert book[p].games == 1


def test_rating_is_pure() -> None:
    before = RatingBook({"ana": Rating(30.0, 5.0, 3)})
    snapshot = before.to_dict()
    after = rate_match(before, [["ana"], ["bruno"]], 1)
    assert before.to_dict() == snapshot
    assert after is not before
    with pytest.raises(TypeError):
        # A write the read-only mapping's type forbids, made on purpose.
        before.ratings["x"] = Rating()  # type: ignore[index]


def test_rate_match_refuses_malformed_matches() -> None:
    with pytest.raises(ValueError):
        rate_match(RatingBook(), [["ana"]], 0)
    with pytest.raises(ValueError):
        rate_match(RatingBook(), [["ana"], []], 0)
    with pytest.raises(ValueError):
        rate_match(RatingBook(), [["ana"], ["ana"]], 0)
    with pytest.raises(ValueError):
        rate_match(RatingBook(), [["ana"], ["bruno"]], 2)
    with pytest.raises(ValueError):
        rate_match(RatingBook(), [["ana"], ["bruno"]], -1)


def test_three_sides_every_loser_shares_second_place() -> None:
    book = rate_match(RatingBook(), [["ana"], ["bruno"], ["carla"]], 2)
    assert book["carla"].mu > DEFAULT_MU
    assert book["ana"].mu == pytest.approx(book["bruno"].mu)
    assert book["ana"].mu < DEFAULT_MU


def test_leaderboard_sorts_by_ordinal_and_filters() -> None:
    book = RatingBook()
    book = rate_match(book, [["ana"], ["bruno"]], 0)
    book = rate_match(book, [["ana"], ["carla"]], 0)
    book = rate_match(book, sides(SEATS), 0)
    board = leaderboard(book)
    assert board[0].player == "ana" and board[0].rank == 1
    assert all(a.ordinal >= b.ordinal for a, b in pairwise(board))
    assert [s.player for s in leaderboard(book, min_games=2)] == ["ana", "carla", "bruno"]
    assert [s.player for s in leaderboard(book, limit=2)] == [s.player for s in board[:2]]
    assert [s.player for s in leaderboard(book, players=["carla", "zoe"])] == ["carla"]


def test_equal_ordinals_share_a_rank() -> None:
    book = rate_match(RatingBook(), sides(SEATS), 0)
    board = leaderboard(book)
    assert [(s.rank, s.player) for s in board] == [
        (1, "ana"),
        (1, "carla"),
        (3, "bruno"),
        (3, "davi"),
    ]


def test_book_round_trips_through_a_dict() -> None:
    book = rate_match(RatingBook(mu=30.0, sigma=9.0), sides(SEATS), 1)
    again = RatingBook.from_dict(book.to_dict())
    assert again.to_dict() == book.to_dict()
    assert again["zoe"] == Rating(30.0, 9.0, 0)


def test_a_resigned_pairs_game_rates_the_standing_partnership() -> None:
    """End to end with the game: in a four-seat game of preset tranca-003 the player
    in seat 1 resigns, so side 0 (seats 0 and 2) wins, and both its players gain."""
    g = new_game(Setup(make_rules("tranca-003"), 4, seed=7))
    version = 0
    for seat, name in enumerate(SEATS):
        version += 1
        apply_action(g, Action("join", seat, name=name), version)
    apply_action(g, Action("start"), version + 1)
    apply_action(g, Action("resign", 1), version + 2)
    assert g.winner == 0
    book = rate_match(RatingBook(), sides([s.name for s in g.seats]), g.winner)
    assert book["ana"].mu > DEFAULT_MU and book["carla"].mu > DEFAULT_MU
    assert book["bruno"].mu < DEFAULT_MU and book["davi"].mu < DEFAULT_MU
