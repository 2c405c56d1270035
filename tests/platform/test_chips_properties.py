"""The chip ledger driven by random sequences of grants, stakes, settlements and refunds,
valid and not (unknown matches, stakes beyond a balance, wrong winners, repeats with
other arguments, bad amounts). After every step:

- the balances add up to zero: no chip is created or lost (the mint holds minus every
  chip granted);
- no balance but the mint's is negative;
- every entry is half of a balanced pair and tied to a grant or a staked match;
- the balances are the sum of the entries; a pot holds its stakes while the match is
  open and nothing once it is settled or refunded; the house holds its shares.

A refused operation raises a ``LedgerError`` and leaves the ledger as it was; a repeated
one returns the very same ledger. 003 (the rule document 003_9ae53d0671553559.txt): "la banca
percibe un 25% del bote", "necesitarás disponer de suficientes fichas para cubrir la
apuesta", "las fichas apostadas son devueltas a cada jugador".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tranca.platform import sides
from tranca.platform.chips import (
    HOUSE,
    MINT,
    AccountKind,
    Entry,
    InsufficientChips,
    Ledger,
    LedgerError,
    MatchClosed,
    MatchStatus,
    Purpose,
    UnknownMatch,
    balances_of,
    pot_account,
)

NAMES = ["p0", "p1", "p2", "p3", "p4", "p5"]
PLAYERS = st.sampled_from([*NAMES, ""])  # "" is no valid id
MATCHES = st.sampled_from(["m0", "m1", "m2", "m3", "m4", "m5", "m6", ""])
GRANTS = st.sampled_from(["g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7"])
# Mostly well-formed requests, so that stakes and settlements go through often; the rest
# is anything at all.
SEATS = st.one_of(
    st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True),
    st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True),
    st.lists(PLAYERS, min_size=0, max_size=5),
)
STAKES = st.one_of(st.integers(1, 60), st.integers(1, 60), st.integers(-5, 1500))
GRANTED = st.one_of(st.integers(1, 500), st.integers(-10, 500))


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.ledger = Ledger()
        self.refused: Counter[str] = Counter()

    def attempt(self, name: str, op: Callable[[Ledger], Ledger]) -> LedgerError | None:
        """Run ``op``: the refusal, or None if it went through. A refusal leaves the
        ledger untouched; an operation that went through, repeated, changes nothing."""
        before = self.ledger
        snapshot = (before.entries, dict(before.balances), dict(before.matches))
        try:
            after = op(before)
        except LedgerError as refusal:
            self.refused[type(refusal).__name__] += 1
            event(f"{name} refused: {type(refusal).__name__}")
            assert (before.entries, dict(before.balances), dict(before.matches)) == snapshot
            return refusal
        assert op(after) is after, name
        event(f"{name}: {'repeat' if after is before else 'done'}")
        self.ledger = after
        return None

    @initialize(amounts=st.lists(st.integers(0, 1000), min_size=len(NAMES), max_size=len(NAMES)))
    def opening_grants(self, amounts: list[int]) -> None:
        for name, amount in zip(NAMES, amounts, strict=True):
            self.attempt(
                "grant",
                partial(Ledger.grant, grant_id=f"welcome-{name}", player=name, amount=amount),
            )

    @rule(grant_id=GRANTS, player=PLAYERS, amount=GRANTED)
    def grant(self, grant_id: str, player: str, amount: int) -> None:
        self.attempt("grant", lambda led: led.grant(grant_id, player, amount))

    @rule(
        match=MATCHES,
        seats=SEATS,
        amount=STAKES,
    )
    def stake(self, match: str, seats: list[str], amount: int) -> None:
        fresh = match not in self.ledger.matches
        well_formed = (
            match != ""
            and len(seats) >= 2
            and len(set(seats)) == len(seats)
            and "" not in seats
            and amount > 0
        )
        covered = all(self.ledger.chips(p) >= amount for p in seats)
        refusal = self.attempt("stake", lambda led: led.stake(match, seats, amount))
        if fresh and well_formed:
            # A new, well-formed stake goes through exactly when every seat covers it,
            # and is otherwise refused as InsufficientChips.
            if covered:
                assert refusal is None
            else:
                assert isinstance(refusal, InsufficientChips)
                assert refusal.balance < refusal.needed == amount

    @rule(match=MATCHES, pick=st.integers(0, 9), data=st.data())
    def settle(self, match: str, pick: int, data: st.DataObject) -> None:
        if self.ledger.matches and pick < 7:  # mostly a match that was staked
            match = data.draw(st.sampled_from(sorted(self.ledger.matches)))
        record = self.ledger.matches.get(match)
        if record is not None and pick < 8:
            options = [*sides(record.seats), list(record.seats)]  # a side, or a draw
            winners = options[pick % len(options)]
        else:  # anything at all, mostly invalid
            winners = data.draw(st.lists(PLAYERS, max_size=4))
        refusal = self.attempt("settle", lambda led: led.settle(match, winners))
        if record is None:
            assert isinstance(refusal, UnknownMatch)
        elif refusal is None:
            assert record.status != MatchStatus.REFUNDED
            assert self.ledger.matches[match].status == MatchStatus.SETTLED
        elif record.status == MatchStatus.REFUNDED and pick < 8:
            assert isinstance(refusal, MatchClosed)

    @rule(match=MATCHES, pick=st.integers(0, 9), data=st.data())
    def refund(self, match: str, pick: int, data: st.DataObject) -> None:
        if self.ledger.matches and pick < 5:
            match = data.draw(st.sampled_from(sorted(self.ledger.matches)))
        record = self.ledger.matches.get(match)
        refusal = self.attempt("refund", lambda led: led.refund(match))
        if record is None:
            assert isinstance(refusal, UnknownMatch)
        elif record.status == MatchStatus.SETTLED:
            assert isinstance(refusal, MatchClosed)
        else:
            assert refusal is None
            for p in record.seats:
                assert self.ledger.chips(p) == self.before_refund(record.match_id, p)

    def before_refund(self, match_id: str, player: str) -> int:
        """The player's chips recomputed without the match's stake and refund entries:
        a refund gives back exactly what was staked."""
        return sum(
            e.amount
            for e in self.ledger.entries
            if e.account.kind == AccountKind.PLAYER
            and e.account.name == player
            and not (e.ref == match_id and e.purpose in (Purpose.STAKE, Purpose.REFUND))
        )

    # ----- invariants, checked after every step ------------------------------------

    @invariant()
    def no_chip_is_created_or_lost(self) -> None:
        led = self.ledger
        assert sum(led.balances.values()) == 0
        assert led.balance(MINT) == -sum(g.amount for g in led.grants.values())

    @invariant()
    def only_the_mint_goes_negative(self) -> None:
        for account, value in self.ledger.balances.items():
            assert value > 0 or account == MINT, (account, value)

    @invariant()
    def entries_are_balanced_pairs_tied_to_a_match_or_a_grant(self) -> None:
        led = self.ledger
        pairs: dict[int, list[Entry]] = {}
        for e in led.entries:
            pairs.setdefault(e.txn, []).append(e)
        for out, into in pairs.values():
            assert out.amount == -into.amount < 0
            assert (out.purpose, out.ref) == (into.purpose, into.ref)
            if out.purpose == Purpose.GRANT:
                assert out.ref in led.grants
                assert (out.account, into.account.kind) == (MINT, AccountKind.PLAYER)
            else:
                assert out.ref in led.matches
                assert pot_account(out.ref) in (out.account, into.account)
        assert sum(len(p) for p in pairs.values()) == len(led.entries)
        assert balances_of(led.entries) == dict(led.balances)

    @invariant()
    def pots_and_house_hold_what_they_should(self) -> None:
        led = self.ledger
        house = 0
        for match_id, record in led.matches.items():
            open_pot = record.pot if record.status == MatchStatus.STAKED else 0
            assert led.balance(pot_account(match_id)) == open_pot
            if record.status == MatchStatus.SETTLED:
                house += record.pot * led.house_percent // 100
        assert led.balance(HOUSE) == house
        pots = {a.name for a in led.balances if a.kind == AccountKind.POT}
        assert pots <= set(led.matches)


# More examples than the profiles of tests/conftest.py give: each one is cheap (~2 s in all).
LedgerMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=50)
TestLedgerProperties = LedgerMachine.TestCase
