"""The chip ledger (``tranca.platform.chips``): stakes, the pot, the house and refunds.

Each test rests on a passage of the rule document 003_9ae53d0671553559.txt ("003") quoted in
its docstring; where 003 is silent the docstring says what was decided.
"""

from __future__ import annotations

import pytest

from tranca.platform import DRAWN, winners_of
from tranca.platform.chips import (
    HOUSE,
    HOUSE_PERCENT,
    MINT,
    AccountKind,
    Conflict,
    InsufficientChips,
    InvalidRequest,
    Ledger,
    MatchClosed,
    MatchStatus,
    Purpose,
    UnknownMatch,
    balances_of,
    player_account,
    pot_account,
)

PAIRS = ["ana", "bruno", "carla", "davi"]  # ana and carla against bruno and davi


def funded(chips: int = 1000, players: list[str] = PAIRS) -> Ledger:
    ledger = Ledger()
    for p in players:
        ledger = ledger.grant(f"welcome-{p}", p, chips)
    return ledger


def test_granted_chips_come_from_the_mint() -> None:
    """003: "¿Qué son las fichas de juego? ¿Cómo las consigo?": chips are given to
    players; decided: they are issued by a mint whose balance is minus all grants."""
    ledger = funded(1000)
    assert [ledger.chips(p) for p in PAIRS] == [1000] * 4
    assert ledger.balance(MINT) == -4000
    assert sum(ledger.balances.values()) == 0
    grant = ledger.entries[:2]
    assert [(e.account, e.amount, e.purpose, e.ref) for e in grant] == [
        (MINT, -1000, Purpose.GRANT, "welcome-ana"),
        (player_account("ana"), 1000, Purpose.GRANT, "welcome-ana"),
    ]


def test_a_grant_is_idempotent_by_its_id() -> None:
    ledger = funded(1000)
    assert ledger.grant("welcome-ana", "ana", 1000) is ledger
    with pytest.raises(Conflict):
        ledger.grant("welcome-ana", "ana", 2000)
    with pytest.raises(InvalidRequest):
        ledger.grant("bonus", "ana", 0)


def test_the_stake_is_taken_from_every_seat_into_the_pot() -> None:
    """003: "Apuesta por partida: Indica la cantidad de fichas de juego que apostarás
    en la partida"."""
    ledger = funded(1000).stake("m1", PAIRS, 100)
    assert [ledger.chips(p) for p in PAIRS] == [900] * 4
    assert ledger.balance(pot_account("m1")) == 400
    assert ledger.matches["m1"].status == MatchStatus.STAKED
    stakes = ledger.entries[8:]
    assert len(stakes) == 8
    assert all(e.purpose == Purpose.STAKE and e.ref == "m1" for e in stakes)


def test_a_stake_larger_than_the_balance_is_refused_and_nothing_moves() -> None:
    """003: "necesitarás disponer de suficientes fichas para cubrir la apuesta"."""
    ledger = funded(1000).grant("spent", "zoe", 50)
    with pytest.raises(InsufficientChips) as refused:
        ledger.stake("m1", ["ana", "zoe"], 51)
    assert (refused.value.player, refused.value.balance, refused.value.needed) == ("zoe", 50, 51)
    assert refused.value.reason == "INSUFFICIENT_CHIPS"
    assert ledger.chips("ana") == 1000 and "m1" not in ledger.matches
    with pytest.raises(InsufficientChips):
        ledger.stake("m1", ["ana", "nobody"], 1)  # never granted: no chips
    assert ledger.stake("m1", ["ana", "zoe"], 50).chips("zoe") == 0


def test_the_winner_takes_the_pot_less_the_house_share() -> None:
    """003: "El ganador de la partida consigue los puntos XP y las fichas apostadas (la
    banca percibe un 25% del bote)"."""
    ledger = funded(1000, ["ana", "bruno"]).stake("m1", ["ana", "bruno"], 100)
    ledger = ledger.settle("m1", ["ana"])
    assert HOUSE_PERCENT == 25
    assert ledger.chips("ana") == 900 + 150
    assert ledger.chips("bruno") == 900
    assert ledger.balance(HOUSE) == 50
    assert ledger.balance(pot_account("m1")) == 0
    assert ledger.matches["m1"].winners == ("ana",)


def test_a_winning_pair_splits_the_pot() -> None:
    """003: "para 2 jugadores o por parejas": the pot goes to the winning pair, seats 0
    and 2. Decided: equal halves, an odd chip to the lower seat."""
    ledger = funded(1000).stake("m1", PAIRS, 101)  # pot 404, house 101, 303 to share
    ledger = ledger.settle("m1", winners_of(PAIRS, 0))
    assert ledger.balance(HOUSE) == 101
    assert ledger.chips("ana") == 899 + 152
    assert ledger.chips("carla") == 899 + 151
    assert ledger.chips("bruno") == ledger.chips("davi") == 899
    # winners in any order: the same seats get the odd chip
    other = funded(1000).stake("m1", PAIRS, 101).settle("m1", ["carla", "ana"])
    assert other.balances == ledger.balances


def test_the_house_share_is_rounded_down() -> None:
    """Decided where 003 is silent: the house takes 25% rounded down, never more."""
    ledger = funded(10, ["ana", "bruno"]).stake("m1", ["ana", "bruno"], 3)  # pot 6
    ledger = ledger.settle("m1", ["bruno"])
    assert ledger.balance(HOUSE) == 1  # 1.5 rounded down
    assert ledger.chips("bruno") == 7 + 5
    tiny = funded(10, ["ana", "bruno"]).stake("m1", ["ana", "bruno"], 1).settle("m1", ["ana"])
    assert tiny.balance(HOUSE) == 0 and tiny.chips("ana") == 11
    assert not any(e.amount == 0 for e in tiny.entries)


def test_a_draw_splits_the_pot_between_everyone() -> None:
    """003 breaks every tie ("gana el jugador o la pareja que haya empezado"); decided
    for the presets that draw: the pot, less the house share, is shared by all seats."""
    ledger = funded(1000, ["ana", "bruno", "carla"]).stake("m1", ["ana", "bruno", "carla"], 100)
    ledger = ledger.settle("m1", winners_of(["ana", "bruno", "carla"], DRAWN))
    assert ledger.balance(HOUSE) == 75
    assert [ledger.chips(p) for p in ["ana", "bruno", "carla"]] == [975, 975, 975]


def test_the_winners_are_one_whole_side() -> None:
    ledger = funded(1000).stake("m1", PAIRS, 100)
    for bad in (["ana"], ["ana", "bruno"], [], ["zoe"], ["ana", "carla", "zoe"]):
        with pytest.raises(InvalidRequest):
            ledger.settle("m1", bad)


def test_annulment_returns_every_stake() -> None:
    """003: "Si esto sucede, la partida se anula ... Además, las fichas apostadas son
    devueltas a cada jugador" and "Si finaliza la partida de forma amistosa, cada
    jugador recupera las fichas apostadas": the house takes nothing."""
    ledger = funded(1000).stake("m1", PAIRS, 100).refund("m1")
    assert [ledger.chips(p) for p in PAIRS] == [1000] * 4
    assert ledger.balance(HOUSE) == 0
    assert ledger.balance(pot_account("m1")) == 0
    assert ledger.matches["m1"].status == MatchStatus.REFUNDED
    refunds = [e for e in ledger.entries if e.purpose == Purpose.REFUND]
    assert len(refunds) == 8 and {e.ref for e in refunds} == {"m1"}


def test_settling_or_refunding_twice_does_nothing_the_second_time() -> None:
    staked = funded(1000).stake("m1", PAIRS, 100)
    settled = staked.settle("m1", ["bruno", "davi"])
    assert settled.settle("m1", ["davi", "bruno"]) is settled
    assert settled.stake("m1", PAIRS, 100) is settled
    refunded = staked.refund("m1")
    assert refunded.refund("m1") is refunded
    assert staked.stake("m1", PAIRS, 100) is staked


def test_no_settlement_after_a_refund_nor_refund_after_a_settlement() -> None:
    staked = funded(1000).stake("m1", PAIRS, 100)
    with pytest.raises(MatchClosed):
        staked.refund("m1").settle("m1", ["ana", "carla"])
    with pytest.raises(MatchClosed):
        staked.settle("m1", ["ana", "carla"]).refund("m1")
    with pytest.raises(Conflict):
        staked.settle("m1", ["ana", "carla"]).settle("m1", ["bruno", "davi"])


def test_a_match_is_staked_once() -> None:
    staked = funded(1000).stake("m1", PAIRS, 100)
    with pytest.raises(Conflict):
        staked.stake("m1", PAIRS, 200)
    with pytest.raises(Conflict):
        staked.stake("m1", ["ana", "bruno"], 100)
    with pytest.raises(UnknownMatch):
        staked.settle("m2", ["ana"])
    with pytest.raises(UnknownMatch):
        staked.refund("m2")


@pytest.mark.parametrize(
    ("seats", "amount"),
    [(["ana"], 10), (["ana", "ana"], 10), (["ana", "bruno"], 0), (["ana", "bruno"], -5)],
)
def test_malformed_stakes_are_refused(seats: list[str], amount: int) -> None:
    with pytest.raises(InvalidRequest):
        funded(1000).stake("m1", seats, amount)


def test_entries_are_balanced_pairs_tied_to_a_match_or_a_grant() -> None:
    ledger = funded(1000).stake("m1", PAIRS, 100).settle("m1", ["ana", "carla"])
    ledger = ledger.stake("m2", ["ana", "bruno"], 30).refund("m2")
    by_txn: dict[int, list[int]] = {}
    for e in ledger.entries:
        by_txn.setdefault(e.txn, []).append(e.amount)
        assert e.ref in (ledger.grants if e.purpose == Purpose.GRANT else ledger.matches)
    assert all(len(a) == 2 and a[0] == -a[1] < 0 for a in by_txn.values())
    assert balances_of(ledger.entries) == dict(ledger.balances)
    assert sum(ledger.balances.values()) == 0


def test_accounts_of_different_kinds_never_collide() -> None:
    """A player called "house" is not the house."""
    ledger = funded(100, ["house", "bruno"]).stake("m1", ["house", "bruno"], 100)
    ledger = ledger.settle("m1", ["bruno"])
    assert ledger.chips("house") == 0 and ledger.balance(HOUSE) == 50
    assert player_account("house").kind == AccountKind.PLAYER


def test_the_house_share_can_be_configured() -> None:
    ledger = Ledger(house_percent=10).grant("g", "ana", 50).grant("h", "bruno", 50)
    ledger = ledger.stake("m1", ["ana", "bruno"], 50).settle("m1", ["ana"])
    assert ledger.balance(HOUSE) == 10 and ledger.chips("ana") == 90
    with pytest.raises(ValueError):
        Ledger(house_percent=101)


def test_the_ledger_is_an_immutable_value() -> None:
    before = funded(1000)
    after = before.stake("m1", PAIRS, 100)
    assert before.chips("ana") == 1000 and "m1" not in before.matches
    assert after.entries[: len(before.entries)] == before.entries
    with pytest.raises(TypeError):
        # A write the read-only mapping's type forbids, made on purpose.
        before.balances[HOUSE] = 10  # type: ignore[index]
