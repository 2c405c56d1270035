"""The chip ledger across whole tournaments with entry fees: random fields (players
and partnerships, some short of chips), registrations and withdrawals before the
start, no-shows dropped at check-in, random results, withdrawals once started, and
a cancellation at a random moment or a finish. Every change's chips are what the
service posts with it (``services.tournaments.money_moved``), applied to the pure
ledger as the store applies them (``Ledger.tournament``). After every change:

- the balances add up to zero and none but the mint's is negative (no chip made or
  lost);
- the prize pool holds exactly the fees of the field, as GetTournament shows it;

and at the end the pool is empty, every player holds what they were granted less
their fees, plus their refunds and prizes, the house holds its share of the pool,
and the prizes paid are those GetTournament shows. A change whose fee a player
cannot cover is refused and moves nothing.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import event, given, settings
from hypothesis import strategies as st

from tranca.platform.chips import (
    HOUSE,
    MINT,
    InsufficientChips,
    Ledger,
    prize_pool_account,
)
from tranca.platform.entry_fees import PrizeRules
from tranca.platform.tournament_events import (
    Event,
    TournamentConfig,
    pair_event,
    rebuild,
    register_event,
    result_event,
    status_of,
    unregister_event,
    withdraw_event,
)
from tranca.platform.tournaments import Entrant, Format, Outcome, Tournament
from tranca.services.tournaments import TournamentRow, money_moved, shown_money

TID = "t1"
PAYOUTS = [(100,), (60, 40), (50, 30, 20), (40, 25, 15, 10, 10)]


class Event_:
    """The tournament as the service keeps it: its row (events, stored status) and the
    ledger beside it."""

    def __init__(self, config: TournamentConfig, ledger: Ledger) -> None:
        self.config = config
        self.ledger = ledger
        self.row = TournamentRow(TID, "app", "cup", 0, config, [], None, "")

    def tournament(self) -> Tournament:
        return rebuild(self.config, self.row.events)

    def change(self, t: Tournament, new: list[Event], *, creation: bool = False) -> bool:
        """Post the chips of ``new`` (``t``: the tournament they leave; ``creation``:
        the tournament being stored, as CreateTournament does) and keep them; False,
        with nothing kept, when a player cannot cover a fee."""
        status = status_of(t)
        row = "" if creation else self.row
        moves = money_moved(row, self.config, t, new, status, t.standings())
        try:
            self.ledger = self.ledger.tournament(
                TID, moves.pay_ins, moves.refunds, moves.house, moves.prizes
            )
        except InsufficientChips:
            return False
        self.row = TournamentRow(
            TID,
            "app",
            "cup",
            self.row.version + 1,
            self.config,
            [*self.row.events, *new],
            None,
            status,
        )
        return True


def check_conserved(e: Event_) -> None:
    ledger = e.ledger
    assert sum(ledger.balances.values()) == 0
    assert all(v >= 0 for a, v in ledger.balances.items() if a != MINT)
    t = e.tournament()
    pool, _ = shown_money(e.row, t, t.standings())
    assert ledger.balance(prize_pool_account(TID)) == pool


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_ledger_balances_across_whole_events(data: st.DataObject) -> None:
    partnerships = data.draw(st.booleans(), "partnerships")
    fee = data.draw(st.integers(1, 120), "fee")
    house = data.draw(st.sampled_from([0, 10, 25, 40, 99, 100]), "house percent")
    rules = PrizeRules(fee, data.draw(st.sampled_from(PAYOUTS), "payout"), house)
    open_registration = data.draw(st.booleans(), "open registration")
    fmt = data.draw(st.sampled_from([Format.SWISS, Format.SINGLE_ELIMINATION]), "format")

    def entrant(i: int) -> Entrant:
        if partnerships:
            return Entrant.pair(f"e{i}", f"n{i}", f"s{i}")
        return Entrant.player(f"e{i}")

    pool_of_entrants = [entrant(i) for i in range(14)]
    players = [p for x in pool_of_entrants for p in x.players]
    # Chips each player is granted: most can pay, some cannot.
    grants = st.sampled_from([0, fee - 1, fee, 3 * fee, *[500] * 30])
    granted = {p: data.draw(grants) for p in players}
    ledger = Ledger()
    for p, amount in granted.items():
        if amount > 0:
            ledger = ledger.grant(f"g-{p}", p, amount)
    first = data.draw(st.integers(2, 6), "entrants at creation")
    config = TournamentConfig(
        fmt,
        tuple(pool_of_entrants[:first]),
        4 if partnerships else 2,
        data.draw(st.integers(1, 2**31), "seed"),
        None,
        {},
        {},
        registration=open_registration,
        prizes=rules,
    )
    e = Event_(config, ledger)
    before = e.ledger
    if not e.change(config.new_tournament(), [], creation=True):
        # Creation refused: somebody given at creation cannot pay. Nothing moved.
        assert e.ledger is before
        event("creation refused")
        return
    check_conserved(e)
    # Who has a fee in the pool, kept here by the test itself (the oracle): the
    # entrants given at creation, registrations taken, less those who left before
    # round 1.
    paying = {x.id for x in pool_of_entrants[:first]}

    # Registrations and withdrawals before the start (WithdrawEntrant leaves the field
    # with open registration, and is a withdrawal kept in the standings without).
    waiting = pool_of_entrants[first:]
    for _ in range(data.draw(st.integers(0, 10), "registration steps")):
        t = e.tournament()
        active = sorted(set(t.ids) - t.withdrawn)
        if open_registration and bool(waiting) and data.draw(st.booleans()):
            new = waiting.pop(0)
            t.add_entrant(new)
            before = e.ledger
            if e.change(t, [register_event(new, 0)]):
                paying.add(new.id)
            else:
                assert e.ledger is before
        elif len(active) > 2:
            leaving = data.draw(st.sampled_from(active))
            if open_registration:
                t.remove_entrant(leaving)
                assert e.change(t, [unregister_event(leaving, 0)])
            else:
                t.withdraw(leaving)
                assert e.change(t, [withdraw_event(leaving, 0)])
            paying.discard(leaving)
        check_conserved(e)

    # The start: a few no-shows dropped with round 1's pairing.
    t = e.tournament()
    ids = sorted(set(t.ids) - t.withdrawn)
    dropped = data.draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids) - 2))
    for d in dropped:
        t.remove_entrant(d)
        paying.discard(d)
    start: list[Event] = [{"type": "drop", "entrants": dropped, "at": 0}] if dropped else []
    cancel_at = data.draw(st.integers(0, 12), "cancel after this many changes (12: never)")
    changes = 0
    t.pair_next_round()
    assert e.change(t, [*start, pair_event(t, 0)])
    check_conserved(e)
    while not t.is_over:
        t = e.tournament()
        if changes == cancel_at:
            t.cancelled = True
            assert e.change(t, [{"type": "cancel", "reason": "rain", "at": 0}])
            break
        changes += 1
        rnd = t.rounds[-1]
        pending = [tb for tb in rnd.tables if t.result(tb) is None]
        if pending:
            tb = pending[0]
            outcome = data.draw(st.sampled_from(list(Outcome)), "outcome")
            if fmt == Format.SINGLE_ELIMINATION and outcome in (Outcome.DRAW,):
                outcome = Outcome.A_WINS  # a knockout table has a winner
            t.record(rnd.number, tb.number, outcome)
            assert e.change(t, [result_event(rnd.number, tb.number, outcome, "game", 0)])
        elif data.draw(st.booleans()) and len(t.ids) - len(t.withdrawn) > 2:
            active = sorted(set(t.ids) - t.withdrawn)
            leaving = data.draw(st.sampled_from(active))
            t.withdraw(leaving)
            assert e.change(t, [withdraw_event(leaving, 0)])
        else:
            try:
                t.pair_next_round()
            except ValueError:
                break  # too few left to pair: the organiser's to decide
            assert e.change(t, [pair_event(t, 0)])
        check_conserved(e)
        t = e.tournament()
    check_conserved(e)

    t = e.tournament()
    status = status_of(t)
    event(f"ended {status}")
    ledger = e.ledger
    pool = ledger.balance(prize_pool_account(TID))
    fee_payers = {p for x in pool_of_entrants if x.id in paying for p in x.players}
    for p, amount in granted.items():
        if p not in fee_payers:
            assert ledger.chips(p) == amount, f"{p} left (or never entered): fee back"
    if status == "cancelled":
        assert pool == 0 and ledger.balance(HOUSE) == 0
        assert all(ledger.chips(p) == a for p, a in granted.items()), "every fee back"
        return
    total = fee * len(fee_payers)
    if status != "finished":  # too few left to pair: the pool holds every fee
        assert pool == total
        assert all(ledger.chips(p) == granted[p] - fee for p in fee_payers)
        return
    assert pool == 0
    standings = t.standings()
    finishers = [x.entrant for x in standings if not x.withdrawn]
    house_share = total * house // 100 if finishers else 0
    assert ledger.balance(HOUSE) == house_share
    won = {p: ledger.chips(p) - (granted[p] - fee) for p in fee_payers}
    assert sum(won.values()) + house_share == total, "the pool paid out whole"
    assert all(v >= 0 for v in won.values())
    paid_entrants = {x for x in finishers[: len(rules.payout)]}
    for x in pool_of_entrants:
        if x.id in paying and x.id not in paid_entrants:
            assert all(won[p] == 0 for p in x.players), f"{x.id} finished out of the prizes"
    if finishers and house < 100:
        champion = t.entrants[finishers[0]].players[0]
        assert won[champion] == max(won.values()), "the winner wins the most"
    # What GetTournament shows is what was paid.
    _, shown = shown_money(e.row, t, standings)
    by_player: Counter[str] = Counter()
    for entrant_id, chips in shown.items():
        share, left = divmod(chips, len(t.entrants[entrant_id].players))
        for i, p in enumerate(t.entrants[entrant_id].players):
            by_player[p] += share + (1 if i < left else 0)
    assert {p: v for p, v in won.items() if v} == {p: v for p, v in by_player.items() if v}
