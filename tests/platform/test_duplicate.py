"""Duplicate deals: one deck order for every table of a round, and the check of the
tables' logs against it."""

from dataclasses import replace

import pytest

from tranca.platform.duplicate import (
    DuplicateRound,
    check_table,
    check_tables,
    round_from_deck,
    round_from_seed,
    round_seed,
)
from tranca.platform.tournaments import Entrant, Format, Tournament
from tranca.table.game import Action, Setup, play_action, rebuild
from tranca_rules.bots import GreedyBot, bot_move
from tranca_rules.cards import cards_text, full_deck, parse_cards, shuffled_deck
from tranca_rules.presets import PRESETS, Rules


def table_log(setup: Setup, names: tuple[str, ...], moves: int) -> list[Action]:
    """Players join, the game starts, and bots play ``moves`` moves."""
    log = [Action("join", seat, name=name) for seat, name in enumerate(names)]
    log.append(Action("start"))
    game = rebuild(setup, log)
    bots = [GreedyBot(seat) for seat in range(setup.players)]
    assert game.match is not None
    for _ in range(moves):
        deal = game.match.deal
        if deal.is_over:
            break
        action = play_action(deal.turn, bot_move(bots[deal.turn], deal))
        log.append(action)
        game = rebuild(setup, log)
        assert game.match is not None
    return log


def four_player_round(
    rules: Rules, event_seed: int
) -> tuple[DuplicateRound, dict[str, tuple[Setup, list[Action]]]]:
    """Round 1 of a round robin of six pairs: three tables, one deck."""
    pairs = [Entrant.pair(f"pair{i}", f"north{i}", f"south{i}") for i in range(1, 7)]
    tournament = Tournament(Format.ROUND_ROBIN, pairs, table_size=4)
    rnd = tournament.pair_next_round()
    dup = round_from_seed(1, rules.jokers, round_seed(event_seed, 1))
    tables = {}
    for table in rnd.tables:
        setup = dup.setup(rules, 4)
        tables[f"table {table.number}"] = (setup, table_log(setup, tournament.seats(table), 12))
    return dup, tables


@pytest.mark.parametrize("preset", ["tranca-000", "canasta-002"])
def test_every_table_of_a_four_player_round_gets_the_same_deck(preset: str) -> None:
    rules = PRESETS[preset]
    dup, tables = four_player_round(rules, event_seed=2024)
    assert len(tables) == 3
    assert len(dup.deck) == (108 if rules.jokers else 104)
    assert sorted(dup.deck) == sorted(full_deck(rules.jokers))
    checks = check_tables(dup, tables)
    assert [c.table for c in checks] == ["table 1", "table 2", "table 3"]
    assert all(c.ok for c in checks), checks
    # The same cards reach the same seats at every table, and so do later deals and
    # the first dealer: the setups share the match seed.
    starts = []
    for setup, log in tables.values():
        game = rebuild(setup, log[:5])  # the joins and the start
        assert game.match is not None
        starts.append((game.match.first_dealer, game.match.deal.to_dict()))
        assert setup.deck == list(dup.deck) and setup.seed == dup.match_seed
    assert starts[0] == starts[1] == starts[2]


def test_a_table_dealt_from_another_deck_fails_the_check() -> None:
    rules = PRESETS["tranca-000"]
    dup, tables = four_player_round(rules, event_seed=7)
    other = round_from_seed(1, rules.jokers, round_seed(8, 1))
    names = ("a", "b", "c", "d")
    wrong_deck = other.setup(rules, 4)
    wrong_seed = replace(dup.setup(rules, 4), seed=dup.match_seed + 1)
    seeded = Setup(rules, 4, dup.match_seed)  # no fixed deck: shuffled from the seed
    tables["wrong deck"] = (wrong_deck, table_log(wrong_deck, names, 3))
    tables["wrong seed"] = (wrong_seed, table_log(wrong_seed, names, 3))
    tables["no deck"] = (seeded, table_log(seeded, names, 3))
    checks = {c.table: c for c in check_tables(dup, tables)}
    assert all(checks[f"table {i}"].ok for i in (1, 2, 3))
    assert "not the round's deck" in checks["wrong deck"].problems[0]
    assert "later deals differ" in checks["wrong seed"].problems[0]
    assert "not the round's deck" in checks["no deck"].problems[0]


def test_logs_that_do_not_start_or_replay_fail_the_check() -> None:
    rules = PRESETS["tranca-000"]
    dup = round_from_seed(1, rules.jokers, 99)
    setup = dup.setup(rules, 4)
    joins = [Action("join", seat, name=f"p{seat}") for seat in range(4)]
    assert not check_table(dup, "idle", setup, joins).ok
    assert "never started" in check_table(dup, "idle", setup, joins).problems[0]
    bad = [*joins, Action("join", 0, name="again")]
    assert "does not replay" in check_table(dup, "bad", setup, bad).problems[0]
    assert check_table(dup, "fine", setup, [*joins, Action("start")]).ok


def test_tables_of_different_presets_are_not_one_round() -> None:
    dup = round_from_seed(1, False, 5)
    a = dup.setup(PRESETS["tranca-000"], 4)
    b = dup.setup(PRESETS["tranca-003"], 4)
    start = [*(Action("join", s, name=f"p{s}") for s in range(4)), Action("start")]
    checks = check_tables(dup, {"a": (a, start), "b": (b, start)})
    assert all("differ in preset" in c.problems[-1] for c in checks)


def test_an_organisers_deck_is_taken_as_given() -> None:
    deck = shuffled_deck(False, 1234)
    text = cards_text(deck)
    dup = round_from_deck(2, False, parse_cards(text), match_seed=55)
    assert dup.deck_text() == text and dup.number == 2 and dup.match_seed == 55
    with pytest.raises(ValueError, match="104 cards"):
        round_from_deck(2, False, deck[:-1], match_seed=55)
    with pytest.raises(ValueError, match="108 cards"):
        round_from_deck(2, True, deck, match_seed=55)
    with pytest.raises(ValueError, match="deck"):
        dup.setup(PRESETS["canasta-002"], 4)


def test_a_round_from_a_seed_is_the_seeded_shuffle() -> None:
    dup = round_from_seed(3, True, 42)
    assert list(dup.deck) == shuffled_deck(True, 42) and dup.match_seed == 42
    assert round_seed(1, 1) == round_seed(1, 1) != round_seed(1, 2)
    assert 0 <= round_seed(1, 1) < 2**63
