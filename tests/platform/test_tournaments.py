"""Round robin, Swiss and single elimination: pairings, results and standings."""

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tranca.platform import sides
from tranca.platform.tournaments import (
    Entrant,
    Format,
    Outcome,
    Round,
    Table,
    Tournament,
    bracket_order,
    outcome_of_game,
)
from tranca_rules.match import DRAWN

ALL_OUTCOMES = list(Outcome)


def players(n: int) -> list[Entrant]:
    return [Entrant.player(f"p{i:02}") for i in range(1, n + 1)]


def pairs(n: int) -> list[Entrant]:
    return [Entrant.pair(f"pair{i}", f"n{i}", f"s{i}") for i in range(1, n + 1)]


def play_out(t: Tournament, rng: random.Random, outcomes: list[Outcome]) -> list[Round]:
    """Pair and record every round with random outcomes."""
    rounds = []
    while not t.is_over:
        rnd = t.pair_next_round()
        for table in rnd.tables:
            t.record(rnd.number, table.number, rng.choice(outcomes))
        rounds.append(rnd)
    return rounds


def check_round_shape(rnd: Round, expected: set[str]) -> None:
    """Everyone expected sits at exactly one table or has the bye."""
    seated = [e for tb in rnd.tables for e in (tb.a, tb.b)] + list(rnd.byes)
    assert Counter(seated) == Counter(expected)


def check_tie_breaks(t: Tournament) -> None:
    """The standings' Buchholz and Sonneborn-Berger match a plain recomputation, and the
    order is points, Buchholz, Sonneborn-Berger, lot."""
    table = {s.entrant: s for s in t.standings()}
    for e, s in table.items():
        bh = sb = 0.0
        for rnd in t.rounds:
            for tb in rnd.tables:
                if e not in (tb.a, tb.b):
                    continue
                opp = tb.b if tb.a == e else tb.a
                bh += table[opp].points
                outcome = t.result(tb)
                won = outcome in (
                    (Outcome.A_WINS, Outcome.B_FORFEITS)
                    if tb.a == e
                    else (Outcome.B_WINS, Outcome.A_FORFEITS)
                )
                sb += table[opp].points * (1.0 if won else 0.5 if outcome == Outcome.DRAW else 0)
        assert (s.buchholz, s.sonneborn_berger) == (bh, sb)
    keys = [(-s.points, -s.buchholz, -s.sonneborn_berger, s.lot) for s in t.standings()]
    assert keys == sorted(keys)
    assert [s.rank for s in t.standings()] == list(range(1, len(table) + 1))


# ----- Swiss ----------------------------------------------------------------------------


@given(seed=st.integers(0, 2**32))
def test_swiss_of_16_over_4_rounds_never_repeats_a_pairing(seed: int) -> None:
    rng = random.Random(seed)
    t = Tournament(Format.SWISS, players(16), seed=seed, rounds=4)
    rounds = play_out(t, rng, ALL_OUTCOMES)
    assert len(rounds) == 4
    met = Counter(frozenset((tb.a, tb.b)) for rnd in rounds for tb in rnd.tables)
    assert max(met.values()) == 1
    for rnd in rounds:
        assert not rnd.byes and len(rnd.tables) == 8
        check_round_shape(rnd, set(t.ids))
    check_tie_breaks(t)


@pytest.mark.parametrize("seed", range(6))
def test_swiss_pairs_equal_scores_together(seed: int) -> None:
    """With decisive results the score groups of 16 players stay even over 4 rounds, and
    the pairing keeps them together: no table pairs two different scores."""
    rng = random.Random(seed)
    t = Tournament(Format.SWISS, players(16), seed=seed, rounds=4)
    while not t.is_over:
        before = {s.entrant: s.points for s in t.standings()}
        rnd = t.pair_next_round()
        assert all(before[tb.a] == before[tb.b] for tb in rnd.tables)
        for tb in rnd.tables:
            t.record(rnd.number, tb.number, rng.choice([Outcome.A_WINS, Outcome.B_WINS]))


def test_swiss_round_one_pairs_the_top_half_against_the_bottom_half() -> None:
    t = Tournament(Format.SWISS, players(8), rounds=3)
    rnd = t.pair_next_round()
    assert {frozenset((tb.a, tb.b)) for tb in rnd.tables} == {
        frozenset((f"p{i:02}", f"p{i + 4:02}")) for i in range(1, 5)
    }


@pytest.mark.parametrize(("n", "rounds"), [(9, 5), (7, 7), (11, 6), (5, 5)])
@pytest.mark.parametrize("seed", range(4))
def test_swiss_with_an_odd_field_gives_each_bye_once_at_most(
    n: int, rounds: int, seed: int
) -> None:
    rng = random.Random(seed)
    t = Tournament(Format.SWISS, players(n), seed=seed, rounds=rounds)
    byes: Counter[str] = Counter()
    while not t.is_over:
        standing = {s.entrant: s for s in t.standings()}
        rnd = t.pair_next_round()
        check_round_shape(rnd, set(t.ids))
        assert len(rnd.byes) == 1
        (bye,) = rnd.byes
        assert byes[bye] == 0
        # The bye goes to the lowest-ranked (points, then seed) of those without one.
        without = [e for e in t.ids if byes[e] == 0]
        lowest = min(without, key=lambda e: (standing[e].points, -t.seed_index[e]))
        assert standing[bye].points == standing[lowest].points
        byes[bye] += 1
        for tb in rnd.tables:
            t.record(rnd.number, tb.number, rng.choice(ALL_OUTCOMES))
    assert sum(byes.values()) == rounds
    # The bye scores as a win.
    bye_rounds = next(s for s in t.standings() if s.byes == 1)
    assert bye_rounds.points >= 1.0


def test_swiss_round_one_bye_goes_to_the_lowest_seed() -> None:
    t = Tournament(Format.SWISS, players(5), rounds=3)
    assert t.pair_next_round().byes == ("p05",)


def test_a_withdrawn_entrant_is_not_paired_again() -> None:
    rng = random.Random(3)
    t = Tournament(Format.SWISS, players(8), rounds=5)
    rnd = t.pair_next_round()
    for tb in rnd.tables:
        t.record(1, tb.number, rng.choice(ALL_OUTCOMES))
    t.withdraw("p03")
    while not t.is_over:
        rnd = t.pair_next_round()
        check_round_shape(rnd, set(t.ids) - {"p03"})
        assert len(rnd.byes) == 1
        for tb in rnd.tables:
            t.record(rnd.number, tb.number, rng.choice(ALL_OUTCOMES))
    withdrawn = next(s for s in t.standings() if s.entrant == "p03")
    assert withdrawn.withdrawn and withdrawn.wins + withdrawn.draws + withdrawn.losses == 1


def test_swiss_with_more_rounds_than_fresh_opponents_repeats_only_when_forced() -> None:
    t = Tournament(Format.SWISS, players(4), rounds=5)
    rounds = play_out(t, random.Random(1), [Outcome.A_WINS, Outcome.B_WINS])
    met = Counter(frozenset((tb.a, tb.b)) for rnd in rounds[:3] for tb in rnd.tables)
    assert max(met.values()) == 1  # the first three rounds are a full round robin
    assert len(rounds) == 5


# ----- round robin ------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 12))
def test_round_robin_of_players_meets_every_pair_once(n: int) -> None:
    t = Tournament(Format.ROUND_ROBIN, players(n))
    rounds = play_out(t, random.Random(n), ALL_OUTCOMES)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    met = Counter(frozenset((tb.a, tb.b)) for rnd in rounds for tb in rnd.tables)
    assert set(met) == {frozenset(p) for p in combinations(t.ids, 2)}
    assert set(met.values()) == {1}
    rests = Counter(e for rnd in rounds for e in rnd.byes)
    assert rests == (Counter(t.ids) if n % 2 else Counter())
    for rnd in rounds:
        check_round_shape(rnd, set(t.ids))
    check_tie_breaks(t)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 8])
def test_round_robin_of_partnerships_meets_every_pair_once(n: int) -> None:
    t = Tournament(Format.ROUND_ROBIN, pairs(n), table_size=4)
    rounds = play_out(t, random.Random(n), ALL_OUTCOMES)
    met = Counter(frozenset((tb.a, tb.b)) for rnd in rounds for tb in rnd.tables)
    assert set(met) == {frozenset(p) for p in combinations(t.ids, 2)}
    assert set(met.values()) == {1}
    for rnd in rounds:
        check_round_shape(rnd, set(t.ids))
        for tb in rnd.tables:
            a, b = t.entrants[tb.a].players, t.entrants[tb.b].players
            # Partners sit opposite each other: side A on seats 0 and 2.
            assert t.seats(tb) == (a[0], b[0], a[1], b[1])
            assert sides(t.seats(tb)) == [list(a), list(b)]


def test_entrants_must_fit_the_tables() -> None:
    with pytest.raises(ValueError, match="2 player"):
        Tournament(Format.ROUND_ROBIN, players(4), table_size=4)
    with pytest.raises(ValueError, match="1 player"):
        Tournament(Format.ROUND_ROBIN, pairs(4))
    with pytest.raises(ValueError, match="distinct"):
        Tournament(
            Format.SWISS, [Entrant.pair("x", "a", "b"), Entrant.pair("y", "b", "c")], table_size=4
        )
    with pytest.raises(ValueError, match="at least two"):
        Tournament(Format.SWISS, players(1))


def test_round_robin_with_a_withdrawal_gives_its_opponents_byes() -> None:
    t = Tournament(Format.ROUND_ROBIN, players(4))
    rnd = t.pair_next_round()
    for tb in rnd.tables:
        t.record(1, tb.number, Outcome.DRAW)
    t.withdraw("p01")
    while not t.is_over:
        rnd = t.pair_next_round()
        assert len(rnd.tables) == 1 and len(rnd.byes) == 1
        assert "p01" not in {e for tb in rnd.tables for e in (tb.a, tb.b)}
        t.record(rnd.number, 1, Outcome.DRAW)
    by = {s.entrant: s for s in t.standings()}
    assert by["p01"].points == 0.5 and by["p01"].withdrawn
    assert sum(s.byes for s in t.standings()) == 2


# ----- results and standings ---------------------------------------------------------------


def record_between(t: Tournament, rnd: Round, x: str, y: str, x_result: str) -> None:
    """Record a result from ``x``'s point of view: win, loss, draw, absent, present, none."""
    tb = next(tb for tb in rnd.tables if {tb.a, tb.b} == {x, y})
    x_is_a = tb.a == x
    outcome = {
        "win": Outcome.A_WINS if x_is_a else Outcome.B_WINS,
        "loss": Outcome.B_WINS if x_is_a else Outcome.A_WINS,
        "draw": Outcome.DRAW,
        "absent": Outcome.A_FORFEITS if x_is_a else Outcome.B_FORFEITS,
        "none": Outcome.DOUBLE_NO_SHOW,
    }[x_result]
    t.record(rnd.number, tb.number, outcome)


def forfeit_tournament(seed: int) -> Tournament:
    """A beats D, draws C and wins by forfeit against B; B beats C; B and D both fail
    to show; D beats C."""
    t = Tournament(Format.ROUND_ROBIN, [Entrant.player(x) for x in "ABCD"], seed=seed)
    results = {
        frozenset("AB"): ("B", "A", "absent"),
        frozenset("AC"): ("A", "C", "draw"),
        frozenset("AD"): ("A", "D", "win"),
        frozenset("BC"): ("B", "C", "win"),
        frozenset("BD"): ("B", "D", "none"),
        frozenset("CD"): ("D", "C", "win"),
    }
    while not t.is_over:
        rnd = t.pair_next_round()
        for tb in rnd.tables:
            x, y, r = results[frozenset((tb.a, tb.b))]
            record_between(t, rnd, x, y, r)
    return t


def test_forfeits_and_no_shows_in_the_standings() -> None:
    t = forfeit_tournament(seed=0)
    by = {s.entrant: s for s in t.standings()}
    a, b, c, d = by["A"], by["B"], by["C"], by["D"]
    assert (a.points, a.wins, a.draws, a.losses, a.forfeits) == (2.5, 2, 1, 0, 0)
    assert (b.points, b.wins, b.losses, b.forfeits) == (1.0, 1, 2, 2)  # absent twice
    assert (c.points, c.draws, c.losses, c.forfeits) == (0.5, 1, 2, 0)
    assert (d.points, d.wins, d.losses, d.forfeits) == (1.0, 1, 2, 1)
    # Buchholz counts every opponent met at a table, forfeited ones too.
    assert (a.buchholz, b.buchholz, c.buchholz, d.buchholz) == (2.5, 4.0, 4.5, 4.0)
    # Sonneborn-Berger: beaten opponents (the forfeit win too) plus half the drawn ones.
    assert (a.sonneborn_berger, b.sonneborn_berger) == (2.25, 0.5)
    assert (c.sonneborn_berger, d.sonneborn_berger) == (1.25, 0.5)
    check_tie_breaks(t)


def test_the_last_tie_break_is_a_draw_by_lot_fixed_by_the_seed() -> None:
    orders = set()
    for seed in range(24):
        t = forfeit_tournament(seed)
        ranking = [s.entrant for s in t.standings()]
        # B and D tie on points, Buchholz and Sonneborn-Berger: the lot decides.
        assert ranking[0] == "A" and ranking[3] == "C"
        assert ranking[1:3] == sorted("BD", key=lambda e: t.lot[e])
        assert ranking == [s.entrant for s in forfeit_tournament(seed).standings()]
        orders.add(tuple(ranking))
    assert len(orders) == 2


def test_results_are_recorded_for_the_latest_round_before_the_next_is_paired() -> None:
    t = Tournament(Format.SWISS, players(4), rounds=2)
    rnd = t.pair_next_round()
    with pytest.raises(ValueError, match="without a result"):
        t.pair_next_round()
    with pytest.raises(ValueError, match="no table"):
        t.record(1, 3, Outcome.DRAW)
    for tb in rnd.tables:
        t.record(1, tb.number, Outcome.DRAW)
    t.record(1, 1, Outcome.A_WINS)  # a correction while the round is the latest
    t.pair_next_round()
    with pytest.raises(ValueError, match="latest round"):
        t.record(1, 1, Outcome.B_WINS)


def test_outcome_of_a_finished_game() -> None:
    assert outcome_of_game(0) == Outcome.A_WINS
    assert outcome_of_game(1) == Outcome.B_WINS
    assert outcome_of_game(DRAWN) == Outcome.DRAW
    with pytest.raises(ValueError):
        outcome_of_game(-1)


# ----- single elimination --------------------------------------------------------------------


def test_bracket_order_keeps_the_top_seeds_apart() -> None:
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    order = bracket_order(16)
    assert sorted(order) == list(range(1, 17))
    assert order.index(1) < 8 <= order.index(2)  # the top two meet only in the final
    for i in range(0, 16, 2):
        assert order[i] + order[i + 1] == 17


def tables_of(rnd: Round) -> set[tuple[str, str]]:
    return {(tb.a, tb.b) for tb in rnd.tables}


def test_single_elimination_with_byes_to_the_top_seeds() -> None:
    t = Tournament(Format.SINGLE_ELIMINATION, players(6))
    assert t.total_rounds == 3
    r1 = t.pair_next_round()
    assert r1.byes == ("p01", "p02")
    assert tables_of(r1) == {("p04", "p05"), ("p03", "p06")}
    for tb in r1.tables:  # the lower seeds win
        t.record(1, tb.number, Outcome.B_WINS)
    with pytest.raises(ValueError, match="needs a winner"):
        t.record(1, 1, Outcome.DRAW)
    r2 = t.pair_next_round()
    assert tables_of(r2) == {("p01", "p05"), ("p02", "p06")}
    for tb in r2.tables:
        t.record(2, tb.number, Outcome.A_WINS)
    r3 = t.pair_next_round()
    assert tables_of(r3) == {("p01", "p02")}
    t.record(3, 1, Outcome.A_FORFEITS)  # the top seed does not show up for the final
    assert t.is_over and t.champion == "p02"
    ranking = [(s.entrant, s.survived) for s in t.standings()]
    assert ranking == [
        ("p02", 3),
        ("p01", 2),
        ("p05", 1),
        ("p06", 1),
        ("p03", 0),
        ("p04", 0),
    ]


@pytest.mark.parametrize("n", [2, 3, 5, 7, 8, 9, 13, 16])
def test_single_elimination_byes_go_to_the_top_seeds(n: int) -> None:
    t = Tournament(Format.SINGLE_ELIMINATION, players(n))
    r1 = t.pair_next_round()
    size = 1 << t.total_rounds
    assert size // 2 < n <= size
    assert set(r1.byes) == {f"p{i:02}" for i in range(1, size - n + 1)}
    rng = random.Random(n)
    for tb in r1.tables:
        t.record(1, tb.number, rng.choice([Outcome.A_WINS, Outcome.B_WINS]))
    while not t.is_over:
        rnd = t.pair_next_round()
        for tb in rnd.tables:
            t.record(rnd.number, tb.number, rng.choice([Outcome.A_WINS, Outcome.B_FORFEITS]))
    assert t.champion is not None
    assert t.standings()[0].entrant == t.champion
    assert t.standings()[0].survived == t.total_rounds


def test_a_double_no_show_in_a_knockout_gives_the_next_opponent_a_bye() -> None:
    t = Tournament(Format.SINGLE_ELIMINATION, players(4))
    r1 = t.pair_next_round()
    assert tables_of(r1) == {("p01", "p04"), ("p02", "p03")}
    for tb in r1.tables:
        t.record(1, tb.number, Outcome.DOUBLE_NO_SHOW if tb.a == "p01" else Outcome.A_WINS)
    final = t.pair_next_round()
    assert final.tables == () and final.byes == ("p02",)
    assert t.is_over and t.champion == "p02"
    by = {s.entrant: s for s in t.standings()}
    assert by["p01"].forfeits == by["p04"].forfeits == 1
    assert by["p01"].losses == by["p04"].losses == 1


def test_a_withdrawn_knockout_entrant_hands_its_opponent_a_bye() -> None:
    t = Tournament(Format.SINGLE_ELIMINATION, players(4))
    r1 = t.pair_next_round()
    for tb in r1.tables:
        t.record(1, tb.number, Outcome.A_WINS)
    t.withdraw("p01")
    final = t.pair_next_round()
    assert final.tables == () and final.byes == ("p02",)
    assert t.champion == "p02"


def test_tables_name_their_round_and_number() -> None:
    t = Tournament(Format.ROUND_ROBIN, players(4))
    rnd = t.pair_next_round()
    assert rnd.tables == (Table(1, 1, "p01", "p04"), Table(1, 2, "p02", "p03"))


def test_a_level_knockout_table_goes_to_the_higher_seed() -> None:
    """Issue 27: "A knockout table must always produce a winner". Under the default
    rule (KnockoutTie.HIGHER_SEED) the entrant listed earlier wins, whichever side of
    the table it sits on."""
    t = Tournament(Format.SINGLE_ELIMINATION, players(8))
    first = t.pair_next_round()
    for table in first.tables:
        assert t.knockout_tie_winner(table) == Outcome.A_WINS  # seeds 1-4 are side A
        t.record(1, table.number, Outcome.B_WINS)  # the lower seeds all go through
    second = t.pair_next_round()
    # p08 (beat p01) meets p05 (beat p04): p05 is seeded higher and sits on side B.
    table = second.tables[0]
    assert (table.a, table.b) == ("p08", "p05")
    assert t.knockout_tie_winner(table) == Outcome.B_WINS


def test_play_off_deals_replace_a_drawn_match_at_knockout_tables_only() -> None:
    """KnockoutTie.PLAY_OFF: a preset whose level match is drawn (RULES.md,
    ``tie_break`` ``draw``) plays another deal instead (``extra_deal``) at a
    knockout's tables; other formats and the default rule keep the preset's."""
    from tranca.platform.tournament_events import TournamentConfig
    from tranca.platform.tournaments import KnockoutTie
    from tranca_rules.presets import PRESETS, TieBreak

    rules = PRESETS["tranca-000"]
    assert rules.tie_break == TieBreak.DRAW

    def config(fmt: Format, tie: KnockoutTie) -> TournamentConfig:
        return TournamentConfig(
            fmt, tuple(players(4)), 2, 1, None, rules.to_dict(), {}, knockout_tie=tie
        )

    played = config(Format.SINGLE_ELIMINATION, KnockoutTie.PLAY_OFF)
    assert played.game_rules().tie_break == TieBreak.EXTRA_DEAL
    assert TournamentConfig.from_dict(played.to_dict()) == played
    kept = config(Format.SINGLE_ELIMINATION, KnockoutTie.HIGHER_SEED).game_rules()
    assert kept.tie_break == TieBreak.DRAW
    assert config(Format.SWISS, KnockoutTie.PLAY_OFF).game_rules().tie_break == TieBreak.DRAW
    # A tournament stored before the rule existed reads as the default.
    old = played.to_dict()
    del old["knockout_tie"]
    assert TournamentConfig.from_dict(old).knockout_tie == KnockoutTie.HIGHER_SEED


def test_a_rebuild_takes_stored_swiss_rounds_without_pairing_them_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 27 ("Standings stall the server"): a Swiss pairing searches, so a stored
    round is taken as stored when the tournament is rebuilt from its events; stored
    pairs that name an unknown entrant, or one twice, are refused."""
    from tranca.platform.tournament_events import (
        Event,
        PairingMismatch,
        TournamentConfig,
        pair_event,
        rebuild,
        result_event,
    )

    config = TournamentConfig(Format.SWISS, tuple(players(12)), 2, 5, 3, {}, {})
    t = config.new_tournament()
    events: list[Event] = []
    for _ in range(3):
        rnd = t.pair_next_round()
        events.append(pair_event(t, 0))
        for tb in rnd.tables:
            outcome = (Outcome.DRAW, Outcome.A_WINS, Outcome.B_WINS)[tb.number % 3]
            t.record(tb.round, tb.number, outcome)
            events.append(result_event(tb.round, tb.number, outcome, "game", 0))

    def fail(*_: object) -> None:
        raise AssertionError("a stored Swiss round was paired again")

    monkeypatch.setattr(Tournament, "_swiss_pairs", fail)
    again = rebuild(config, events)
    assert again.rounds == t.rounds and again.standings() == t.standings()
    bad = [dict(e) for e in events]
    bad[0]["tables"] = [["p01", "nobody"], *list(bad[0]["tables"])[1:]]  # type: ignore[call-overload]
    with pytest.raises(PairingMismatch):
        rebuild(config, bad)
    bad[0]["tables"] = [["p01", "p01"], *list(events[0]["tables"])[1:]]  # type: ignore[typeddict-item]
    with pytest.raises(PairingMismatch):
        rebuild(config, bad)


def test_points_and_the_order_of_tie_breaks_are_the_organisers() -> None:
    """Issue 27: "configurable points for win, draw and loss and the order of
    tie-breaks". Three points a win and one a draw; ranked by wins before Buchholz."""
    from tranca.platform.tournaments import Points, TieBreaker

    t = Tournament(
        Format.ROUND_ROBIN,
        players(4),
        seed=3,
        points=Points(win=3, draw=1, loss=0, bye=3),
        tie_breaks=(TieBreaker.WINS, TieBreaker.BUCHHOLZ),
    )
    results = iter(
        [Outcome.DRAW, Outcome.A_WINS, Outcome.B_WINS, Outcome.DRAW, Outcome.A_WINS, Outcome.DRAW]
    )
    for _ in range(t.total_rounds):
        rnd = t.pair_next_round()
        for tb in rnd.tables:
            t.record(tb.round, tb.number, next(results))
    standings = t.standings()
    for s in standings:
        assert s.points == 3 * s.wins + s.draws
    keys = [(-s.points, -s.wins, -s.buchholz) for s in standings]
    assert keys == sorted(keys)
    with pytest.raises(ValueError):
        Tournament(Format.SWISS, players(4), tie_breaks=(TieBreaker.WINS, TieBreaker.WINS))


def test_a_swiss_then_a_knockout_of_its_top_four() -> None:
    """Issue 27: "multi-stage events (Swiss, then a knockout of the top N)". After the
    Swiss rounds the top four of its standings meet 1 v 4 and 2 v 3, then the
    winners; a play-off table needs a winner; the champion heads the standings, the
    play-off's entrants before the rest. A rebuild from the events (the play-off's
    seeds stored with its first round) gives the same tournament."""
    from tranca.platform.tournament_events import (
        Event,
        TournamentConfig,
        pair_event,
        rebuild,
        result_event,
    )

    config = TournamentConfig(Format.SWISS, tuple(players(12)), 2, 9, 3, {}, {}, playoff=4)
    t = config.new_tournament()
    assert (t.swiss_rounds, t.total_rounds) == (3, 5)
    events: list[Event] = []
    rng = random.Random(4)
    for number in range(1, 6):
        rnd = t.pair_next_round()
        events.append(pair_event(t, 0))
        if number == 4:
            top = [s.entrant for s in t.standings()][:4]
            assert t.playoff_seeds == top
            assert {frozenset((tb.a, tb.b)) for tb in rnd.tables} == {
                frozenset((top[0], top[3])),
                frozenset((top[1], top[2])),
            }
            with pytest.raises(ValueError):
                t.record(4, 1, Outcome.DRAW)
        for tb in rnd.tables:
            choices = [Outcome.A_WINS, Outcome.B_WINS]
            outcome = rng.choice(choices + ([Outcome.DRAW] if number <= 3 else []))
            t.record(tb.round, tb.number, outcome)
            events.append(result_event(tb.round, tb.number, outcome, "game", 0))
    assert t.is_over and t.champion is not None
    standings = t.standings()
    assert standings[0].entrant == t.champion
    assert {s.entrant for s in standings[:4]} == set(t.playoff_seeds)
    again = rebuild(config, events)
    assert again.rounds == t.rounds and again.standings() == standings
    assert again.champion == t.champion


@given(
    n=st.integers(min_value=2, max_value=14),
    playoff=st.sampled_from([0, 2, 4]),
    seed=st.integers(min_value=0, max_value=2**31),
    data=st.data(),
)
def test_a_tournament_rebuilt_from_its_events_is_the_one_that_wrote_them(
    n: int, playoff: int, seed: int, data: st.DataObject
) -> None:
    """Issue 27: rounds are paired once and loads take the stored pairs, so whatever
    happened (results with draws, withdrawals, late registrations, corrections, a
    play-off), a rebuild from the events has the same rounds, results, standings
    and champion as the tournament that wrote them."""
    from tranca.platform.tournament_events import (
        Event,
        TournamentConfig,
        correction_event,
        pair_event,
        rebuild,
        register_event,
        result_event,
        withdraw_event,
    )

    playoff = playoff if playoff <= n else 0
    config = TournamentConfig(
        Format.SWISS,
        tuple(players(n)),
        2,
        seed,
        3,
        {},
        {},
        registration=True,
        late_registration_rounds=2,
        playoff=playoff,
    )
    t = config.new_tournament()
    events: list[Event] = []
    late = 0
    while not t.is_over:
        number = len(t.rounds) + 1
        if number <= 2 and data.draw(st.booleans()):
            late += 1
            entrant = Entrant.player(f"late{late}")
            t.add_entrant(entrant)
            events.append(register_event(entrant, 0))
        active = [e for e in t.ids if e not in t.withdrawn]
        if len(active) > 3 and not t.is_knockout_round(number) and data.draw(st.booleans()):
            gone = data.draw(st.sampled_from(active))
            t.withdraw(gone)
            events.append(withdraw_event(gone, 0))
        rnd = t.pair_next_round()
        events.append(pair_event(t, 0))
        for tb in rnd.tables:
            choices = [Outcome.A_WINS, Outcome.B_WINS, Outcome.A_FORFEITS]
            if not t.is_knockout_round(number):
                choices += [Outcome.DRAW, Outcome.DOUBLE_NO_SHOW]
            outcome = data.draw(st.sampled_from(choices))
            t.record(tb.round, tb.number, outcome)
            events.append(result_event(tb.round, tb.number, outcome, "game", 0))
        if rnd.tables and not t.is_knockout_round(number) and data.draw(st.booleans()):
            tb = rnd.tables[0]
            fixed = Outcome.B_WINS if t.result(tb) != Outcome.B_WINS else Outcome.A_WINS
            previous = t.correct(tb.round, tb.number, fixed)
            events.append(correction_event(tb.round, tb.number, fixed, previous, "audit", 0))
    again = rebuild(config, events)
    assert again.rounds == t.rounds
    assert again.standings() == t.standings()
    assert again.champion == t.champion
    assert again.is_over


def test_a_registered_partnership_is_two_different_players() -> None:
    t = Tournament(Format.SWISS, pairs(2), table_size=4, open_field=True)
    with pytest.raises(ValueError, match="distinct"):
        t.add_entrant(Entrant.pair("twice", "ana", "ana"))
    assert "twice" not in t.entrants
