"""A tournament's entry fees and prizes: who has paid into its prize pool, what each
change of the tournament moves through the chip ledger, and how the pool is paid out
when it finishes. Pure: the service computes ``ChipMoves`` for every change and the
store posts them with the change, in its transaction (``chips.Ledger.tournament``).

The rules (the project's choices; the rule documents speak of a match's stakes only,
003's "la banca percibe un 25% del bote", which the house share follows):

- Every player of an entrant pays ``entry_fee`` when the entrant enters: at creation
  for the entrants given then, at registration for the others. A registration the
  player cannot cover is refused (INSUFFICIENT_CHIPS) and nothing is written.
- Fees are returned when the entrant leaves the field before the start (a
  registration withdrawn, a no-show dropped at check-in) and to everyone still in
  the pool when the organiser cancels the event. An entrant that withdraws once the
  event has started stays in the field: its fee stays in the pool.
- When the event finishes, the house takes ``house_percent`` of the pool (rounded
  down, as for a match's pot) and the rest is paid by final place: place ``i`` gets
  ``payout[i - 1]`` percent of it, rounded down, and the chips the rounding leaves go
  to the winner. Withdrawn entrants are not paid: the places are those of the
  entrants who finished the event, in the standings' order. With fewer finishers
  than paid places, the places that exist share the whole pool in proportion to
  their percentages. An entrant's prize is split equally between its players (the
  chips left over one each from its first player).
- The pool ends empty: paid out at the finish, or refunded at a cancellation; a
  pool with nobody to pay (every entrant withdrew) is refunded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import PlayerId
from .chips import HOUSE, HOUSE_PERCENT, Account, player_account, prize_pool_account
from .tournaments import Entrant, Standing

# An entry fee's limit (chips a player): far above any app's grants, well inside 64 bits.
MAX_ENTRY_FEE = 1_000_000_000
DEFAULT_PAYOUT = (100,)  # winner takes the pool (less the house share)


@dataclass(frozen=True)
class PrizeRules:
    """A tournament's money: the fee each player pays to enter (0: free), the
    percentages of the prize pool by place (summing to 100) and the house's share."""

    entry_fee: int = 0
    payout: tuple[int, ...] = DEFAULT_PAYOUT
    house_percent: int = HOUSE_PERCENT

    def problem(self, max_places: int) -> str | None:
        """Why these rules are refused, or None."""
        if not 0 <= self.entry_fee <= MAX_ENTRY_FEE:
            return f"entry_fee is 0 to {MAX_ENTRY_FEE} chips"
        if not 0 <= self.house_percent <= 100:
            return "house_percent is 0 to 100"
        if not self.payout or len(self.payout) > max_places:
            return f"payout_percents has 1 to {max_places} places"
        if any(p < 1 or p > 100 for p in self.payout) or sum(self.payout) != 100:
            return "payout_percents are 1 to 100 each and add up to 100"
        if list(self.payout) != sorted(self.payout, reverse=True):
            return "payout_percents never pay a place more than the place above it"
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "entry_fee": self.entry_fee,
            "payout": list(self.payout),
            "house_percent": self.house_percent,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> PrizeRules:
        if not d:
            return cls()
        return cls(
            int(d.get("entry_fee") or 0),
            tuple(int(p) for p in d.get("payout") or DEFAULT_PAYOUT),
            int(d.get("house_percent", HOUSE_PERCENT)),
        )


@dataclass(frozen=True)
class ChipMoves:
    """What one change of a tournament moves: fees paid into its pool, fees returned,
    and at the finish the house share and the prizes (by player)."""

    pay_ins: Mapping[PlayerId, int] = field(default_factory=dict)
    refunds: Mapping[PlayerId, int] = field(default_factory=dict)
    house: int = 0
    prizes: Mapping[PlayerId, int] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.pay_ins or self.refunds or self.house or self.prizes)

    def accounts(self, tournament_id: str) -> list[Account]:
        """Every account these moves touch: the tournament's prize pool, the house and
        each player's."""
        players = sorted({*self.pay_ins, *self.refunds, *self.prizes})
        return [prize_pool_account(tournament_id), HOUSE, *map(player_account, players)]

    def to_dict(self) -> dict[str, Any]:
        """As the ledger's operation record keeps it (sorted: the same moves, the same
        record)."""
        return {
            "pay_ins": dict(sorted(self.pay_ins.items())),
            "refunds": dict(sorted(self.refunds.items())),
            "house": self.house,
            "prizes": dict(sorted(self.prizes.items())),
        }


def field_of(entrants: Sequence[Entrant], events: Iterable[Mapping[str, Any]]) -> list[Entrant]:
    """The entrants in the field as ``events`` leave it (those given at creation, plus
    registrations, less the entrants who withdrew before round 1 and the no-shows
    dropped): whoever has paid into the pool. Read from the events alone (no
    rebuild)."""
    field_: dict[str, Entrant] = {e.id: e for e in entrants}
    started = False
    for event in events:
        kind = event["type"]
        if kind == "pair":
            started = True
        elif kind == "withdraw" and not started:
            # Withdrawn before round 1 (a tournament without open registration keeps
            # the entrant, withdrawn, in its standings): the fee goes back all the same.
            field_.pop(str(event["entrant"]), None)
        elif kind == "register":
            entrant = str(event["entrant"])
            field_[entrant] = Entrant(entrant, tuple(str(p) for p in event["players"]))
        elif kind == "unregister":
            field_.pop(str(event["entrant"]), None)
        elif kind == "drop":
            for entrant in event["entrants"]:
                field_.pop(str(entrant), None)
    return list(field_.values())


def fees_held(rules: PrizeRules, field_: Iterable[Entrant]) -> Counter[PlayerId]:
    """The chips each player has in the pool for the entrants of ``field_``."""
    held: Counter[PlayerId] = Counter()
    if rules.entry_fee:
        for entrant in field_:
            for player in entrant.players:
                held[player] += rules.entry_fee
    return held


def prizes(
    rules: PrizeRules, pool: int, standings: Sequence[Standing]
) -> tuple[int, dict[str, int]]:
    """The house share of ``pool`` and each entrant's prize (non-zero only), from the
    final ``standings`` (by rank)."""
    finishers = [s.entrant for s in sorted(standings, key=lambda s: s.rank) if not s.withdrawn]
    if pool <= 0 or not finishers:
        return 0, {}
    house = pool * rules.house_percent // 100
    net = pool - house
    places = rules.payout[: len(finishers)]
    whole = sum(places)
    won = {finishers[i]: net * pct // whole for i, pct in enumerate(places)}
    won[finishers[0]] += net - sum(won.values())
    return house, {e: chips for e, chips in won.items() if chips}


def split(entrant: Entrant, chips: int) -> dict[PlayerId, int]:
    """An entrant's prize shared between its players, the rest one each from the
    first."""
    share, left = divmod(chips, len(entrant.players))
    out: Counter[PlayerId] = Counter()
    for i, player in enumerate(entrant.players):
        out[player] += share + (1 if i < left else 0)
    return {p: c for p, c in out.items() if c}


def moves_of(
    rules: PrizeRules,
    before: Mapping[PlayerId, int],
    after: Mapping[PlayerId, int],
    *,
    cancelling: bool = False,
    finishing: bool = False,
    standings: Sequence[Standing] = (),
    entrants: Mapping[str, Entrant] | None = None,
) -> ChipMoves:
    """What a change moves: the fees of entrants who joined (``after`` holds more than
    ``before``) and of those who left the field (less); then, if the change cancels
    the event, every fee still held back to its player; if it finishes the event,
    the pool (everything ``after`` holds) to the house and the prizes by
    ``standings`` (or back to its players when nobody finished)."""
    pay_ins: Counter[PlayerId] = Counter()
    refunds: Counter[PlayerId] = Counter()
    for player in set(before) | set(after):
        delta = after.get(player, 0) - before.get(player, 0)
        if delta > 0:
            pay_ins[player] += delta
        elif delta < 0:
            refunds[player] -= delta
    pool = sum(after.values())
    house = 0
    paid: Counter[PlayerId] = Counter()
    if finishing and pool:
        if any(not s.withdrawn for s in standings):
            house, by_entrant = prizes(rules, pool, standings)
            for entrant_id, chips in by_entrant.items():
                paid.update(split((entrants or {})[entrant_id], chips))
        else:
            cancelling = True  # nobody finished, nobody to pay: the pool goes back
    if cancelling:
        for player, chips in after.items():
            if chips:
                refunds[player] += chips
    return ChipMoves(dict(pay_ins), dict(refunds), house, dict(paid))


def pool_and_prizes(
    rules: PrizeRules,
    entrants: Sequence[Entrant],
    events: Sequence[Mapping[str, Any]],
    standings: Sequence[Standing],
    *,
    finished: bool,
    cancelled: bool,
) -> tuple[int, dict[str, int]]:
    """As a tournament is shown: the chips in its prize pool now (the fees the field
    paid; 0 once paid out or refunded) and, once ``finished``, each entrant's prize.
    Results are final once the pool is paid (CorrectResult refuses), so the final
    standings give the prizes paid."""
    if not rules.entry_fee or cancelled:
        return 0, {}
    pool = sum(fees_held(rules, field_of(entrants, events)).values())
    if not finished:
        return pool, {}
    return 0, prizes(rules, pool, standings)[1]


__all__ = [
    "DEFAULT_PAYOUT",
    "MAX_ENTRY_FEE",
    "ChipMoves",
    "PrizeRules",
    "fees_held",
    "field_of",
    "moves_of",
    "pool_and_prizes",
    "prizes",
    "split",
]
