"""A tournament's entry fees and prizes (``platform/entry_fees.py``): who pays, what a
change moves, how the pool is paid out. The house share follows 003's match pot ("la
banca percibe un 25% del bote", rounded down as there); the rest are the project's
choices, written in docs/platform/tournaments.md ("Entry fees and prizes")."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tranca.platform.chips import InsufficientChips, Ledger, Purpose, prize_pool_account
from tranca.platform.entry_fees import (
    ChipMoves,
    PrizeRules,
    fees_held,
    field_of,
    moves_of,
    pool_and_prizes,
    prizes,
    split,
)
from tranca.platform.tournaments import Entrant, Standing


def standing(rank: int, entrant: str, withdrawn: bool = False) -> Standing:
    return Standing(rank, entrant, 0.0, 0, 0, 0, 0, 0, 0.0, 0.0, 0, withdrawn, 0)


SOLO = [Entrant.player(f"p{i}") for i in range(1, 9)]


def test_every_player_of_an_entrant_pays_the_fee() -> None:
    rules = PrizeRules(entry_fee=50)
    field = [Entrant.pair("north-south", "ana", "bia"), Entrant.player("caio")]
    assert fees_held(rules, field) == Counter({"ana": 50, "bia": 50, "caio": 50})
    assert fees_held(PrizeRules(), field) == Counter()  # free: nobody pays


def test_the_field_follows_registrations_withdrawals_before_the_start_and_no_shows() -> None:
    events: list[dict[str, Any]] = [
        {"type": "register", "entrant": "p9", "players": ["p9"]},
        {"type": "unregister", "entrant": "p2"},
        {"type": "drop", "entrants": ["p3", "p4"]},
        {"type": "pair", "round": 1},
        {"type": "withdraw", "entrant": "p5"},  # after the start: stays in the field
    ]
    ids = [e.id for e in field_of(SOLO, events)]
    assert ids == ["p1", "p5", "p6", "p7", "p8", "p9"]


def test_a_withdrawal_before_round_1_gets_the_fee_back_whatever_the_registration() -> None:
    """Without open registration a withdrawn entrant stays in the standings
    (``withdraw``, not ``unregister``); before round 1 its fee goes back all the same.
    After round 1 has been paired it stays in the pool."""
    before = [{"type": "withdraw", "entrant": "p2"}]
    assert "p2" not in [e.id for e in field_of(SOLO, before)]
    after: list[dict[str, Any]] = [
        {"type": "pair", "round": 1},
        {"type": "withdraw", "entrant": "p2"},
    ]
    assert "p2" in [e.id for e in field_of(SOLO, after)]


def test_a_house_taking_the_whole_pool_still_finishes_the_event() -> None:
    rules = PrizeRules(entry_fee=10, payout=(100,), house_percent=100)
    held = {"p1": 10, "p2": 10}
    table = [standing(1, "p1"), standing(2, "p2")]
    done = moves_of(
        rules, held, held, finishing=True, standings=table, entrants={e.id: e for e in SOLO}
    )
    assert done == ChipMoves(house=20)
    ledger = Ledger().grant("g1", "p1", 10).grant("g2", "p2", 10)
    ledger = ledger.tournament("t1", held, {}, 0, {})
    ledger = ledger.tournament("t1", {}, {}, done.house, {})
    assert ledger.balance(prize_pool_account("t1")) == 0


def test_the_house_takes_its_share_then_places_are_paid_by_percent() -> None:
    rules = PrizeRules(entry_fee=100, payout=(50, 30, 20), house_percent=25)
    table = [standing(i, f"p{i}") for i in range(1, 9)]
    house, won = prizes(rules, 800, table)
    assert house == 200  # 25 % of 800
    assert won == {"p1": 300, "p2": 180, "p3": 120}
    assert house + sum(won.values()) == 800


def test_rounding_leftovers_go_to_the_winner_and_the_house_rounds_down() -> None:
    rules = PrizeRules(entry_fee=7, payout=(50, 30, 20), house_percent=10)
    table = [standing(i, f"p{i}") for i in range(1, 4)]
    house, won = prizes(rules, 21, table)
    assert house == 2  # 2.1 rounded down
    assert won == {"p1": 9 + 2, "p2": 5, "p3": 3}  # 19 * 50/30/20 % = 9, 5, 3; 2 left
    assert house + sum(won.values()) == 21


def test_withdrawn_entrants_are_not_paid_and_the_places_move_up() -> None:
    rules = PrizeRules(entry_fee=10, payout=(60, 40), house_percent=0)
    table = [standing(1, "p1"), standing(2, "p2", withdrawn=True), standing(3, "p3")]
    _, won = prizes(rules, 30, table)
    assert won == {"p1": 18, "p3": 12}


def test_fewer_finishers_than_paid_places_share_the_whole_pool() -> None:
    rules = PrizeRules(entry_fee=10, payout=(50, 30, 20), house_percent=0)
    table = [standing(1, "p1"), standing(2, "p2")]
    _, won = prizes(rules, 80, table)
    assert won == {"p1": 50, "p2": 30}  # 80 in the proportion 50 : 30


def test_a_partnership_shares_its_prize_the_odd_chip_to_its_first_player() -> None:
    assert split(Entrant.pair("ns", "ana", "bia"), 101) == {"ana": 51, "bia": 50}


def test_a_change_pays_in_new_entrants_and_refunds_those_who_left() -> None:
    rules = PrizeRules(entry_fee=20)
    moves = moves_of(rules, {"a": 20, "b": 20}, {"a": 20, "c": 20})
    assert moves == ChipMoves(pay_ins={"c": 20}, refunds={"b": 20})


def test_cancelling_returns_every_fee_held() -> None:
    rules = PrizeRules(entry_fee=20)
    moves = moves_of(rules, {"a": 20, "b": 20}, {"a": 20, "b": 20}, cancelling=True)
    assert moves == ChipMoves(refunds={"a": 20, "b": 20})


def test_finishing_pays_the_pool_out_and_with_nobody_to_pay_refunds_it() -> None:
    rules = PrizeRules(entry_fee=20, payout=(100,), house_percent=25)
    held = {"p1": 20, "p2": 20}
    entrants = {e.id: e for e in SOLO}
    table = [standing(1, "p2"), standing(2, "p1")]
    done = moves_of(rules, held, held, finishing=True, standings=table, entrants=entrants)
    assert done == ChipMoves(house=10, prizes={"p2": 30})
    everyone_out = [standing(1, "p2", True), standing(2, "p1", True)]
    back = moves_of(rules, held, held, finishing=True, standings=everyone_out, entrants=entrants)
    assert back == ChipMoves(refunds={"p1": 20, "p2": 20})


@pytest.mark.parametrize(
    ("rules", "problem"),
    [
        (PrizeRules(entry_fee=-1), "entry_fee"),
        (PrizeRules(entry_fee=10, payout=(60, 30)), "add up to 100"),
        (PrizeRules(entry_fee=10, payout=(30, 70)), "more than the place above"),
        (PrizeRules(entry_fee=10, payout=(100, 0)), "1 to 100"),
        (PrizeRules(entry_fee=10, house_percent=101), "house_percent"),
        (PrizeRules(entry_fee=10, payout=()), "places"),
    ],
)
def test_payout_tables_that_cannot_be_paid_are_refused(rules: PrizeRules, problem: str) -> None:
    why = rules.problem(max_places=16)
    assert why is not None and problem in why
    assert PrizeRules(entry_fee=10, payout=(50, 30, 20)).problem(max_places=16) is None


def test_the_ledger_takes_fees_into_the_pool_and_pays_it_out() -> None:
    ledger = Ledger().grant("g1", "p1", 100).grant("g2", "p2", 100)
    ledger = ledger.tournament("t1", {"p1": 40, "p2": 40}, {}, 0, {})
    assert ledger.balance(prize_pool_account("t1")) == 80
    ledger = ledger.tournament("t1", {}, {}, 20, {"p2": 60})
    assert ledger.balance(prize_pool_account("t1")) == 0
    assert (ledger.chips("p1"), ledger.chips("p2")) == (60, 120)
    purposes = [e.purpose for e in ledger.entries if e.ref == "t1" and e.amount > 0]
    assert purposes == [Purpose.ENTRY_FEE, Purpose.ENTRY_FEE, Purpose.HOUSE_SHARE, Purpose.PRIZE]


def test_a_fee_beyond_a_balance_is_refused_and_takes_nothing() -> None:
    ledger = Ledger().grant("g1", "p1", 100).grant("g2", "p2", 10)
    with pytest.raises(InsufficientChips) as refused:
        ledger.tournament("t1", {"p1": 40, "p2": 40}, {}, 0, {})
    assert refused.value.player == "p2"


def test_the_shown_pool_and_prizes() -> None:
    rules = PrizeRules(entry_fee=10, payout=(70, 30), house_percent=0)
    entrants = SOLO[:3]
    table = [standing(1, "p3"), standing(2, "p1"), standing(3, "p2")]

    def shown(finished: bool, cancelled: bool) -> tuple[int, dict[str, int]]:
        return pool_and_prizes(rules, entrants, [], table, finished=finished, cancelled=cancelled)

    assert shown(finished=False, cancelled=False) == (30, {})
    assert shown(finished=True, cancelled=False) == (0, {"p3": 21, "p1": 9})
    assert shown(finished=False, cancelled=True) == (0, {})
