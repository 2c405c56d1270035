"""The chip ledger: double-entry bookkeeping of the play chips ("fichas") of 003.

003: "Apuesta por partida: Indica la cantidad de fichas de juego que apostarás en la
partida. El ganador de la partida se lleva el bote", "la banca percibe un 25% del
bote", "necesitarás disponer de suficientes fichas para cubrir la apuesta", and on a
friendly annulment "las fichas apostadas son devueltas a cada jugador".

Every movement is a transfer between two accounts, written as a balanced pair of
entries (one negative, one positive, same transaction number) and tied to a match id,
or to a grant id for chips granted to a player. Accounts: each player's, the house's,
one pot (escrow) per match, and the mint, which issues granted chips: its balance is
minus all chips ever granted, so the balances always add up to zero. No balance but
the mint's is ever negative.

A ``Ledger`` is an immutable value; each operation returns the ledger after it (the
new entries are ``after.entries[len(before.entries):]``) or raises a ``LedgerError``
and changes nothing. Every operation is idempotent: repeating it with the same
arguments returns the same ledger; repeating it with other arguments is a
``Conflict``.

Rounding (003 is silent): the house share is ``pot * house_percent // 100`` (rounded
down: the house never takes more than its percentage); the rest is split equally
between the winners, and the chips left over (fewer than the winners) go one each to
the winners in seat order, from the lowest seat.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import TypeVar

from ..reasons import Reason
from . import PlayerId, sides

K = TypeVar("K")
V = TypeVar("V")

HOUSE_PERCENT = 25  # 003: "la banca percibe un 25% del bote"


class AccountKind(StrEnum):
    PLAYER = "player"
    HOUSE = "house"
    POT = "pot"  # one per match: the stakes held in escrow until it is settled
    MINT = "mint"
    # One per tournament: its entry fees, held until it is paid out or refunded.
    PRIZE_POOL = "prize_pool"


@dataclass(frozen=True, order=True)
class Account:
    kind: AccountKind
    name: str  # the player id, the match id, or "house" / "mint"


MINT = Account(AccountKind.MINT, "mint")
HOUSE = Account(AccountKind.HOUSE, "house")


def player_account(player: PlayerId) -> Account:
    return Account(AccountKind.PLAYER, player)


def pot_account(match_id: str) -> Account:
    return Account(AccountKind.POT, match_id)


def prize_pool_account(tournament_id: str) -> Account:
    return Account(AccountKind.PRIZE_POOL, tournament_id)


class Purpose(StrEnum):
    GRANT = "grant"  # mint -> player; ref is the grant id
    STAKE = "stake"  # player -> pot; ref is the match id (so are the rest)
    PAYOUT = "payout"  # pot -> winner
    HOUSE_SHARE = "house_share"  # pot -> house
    REFUND = "refund"  # pot -> player, on annulment
    # A tournament's (ref: the tournament id): a player's entry fee into its prize
    # pool, a fee returned, a prize paid from it (the house share is HOUSE_SHARE).
    ENTRY_FEE = "entry_fee"
    ENTRY_REFUND = "entry_refund"
    PRIZE = "prize"
    # An administrator merged two accounts: the merged player's chips to the kept
    # player (ref: the merged player's id).
    MERGE = "merge"
    # An annulled match's stake the house keeps from a player penalised for abandoning
    # it (003: "excepto si han sido penalizados por abandono"): pot -> house.
    ABANDONMENT = "abandonment"


@dataclass(frozen=True)
class Entry:
    txn: int  # the two entries of one transfer share it
    account: Account
    amount: int  # negative: chips leave the account; positive: they arrive
    purpose: Purpose
    ref: str  # the grant id for GRANT, the match id otherwise


class MatchStatus(StrEnum):
    STAKED = "staked"
    SETTLED = "settled"
    REFUNDED = "refunded"


@dataclass(frozen=True)
class MatchStakes:
    match_id: str
    seats: tuple[PlayerId, ...]  # seat order
    stake: int  # taken from each seat
    status: MatchStatus = MatchStatus.STAKED
    winners: tuple[PlayerId, ...] = ()  # once settled, in seat order

    @property
    def pot(self) -> int:
        return self.stake * len(self.seats)


@dataclass(frozen=True)
class Grant:
    grant_id: str
    player: PlayerId
    amount: int


# ----- errors -------------------------------------------------------------------------


class LedgerError(Exception):
    """A refused operation; ``reason`` is a stable code for the API layer."""

    reason = "LEDGER_ERROR"

    def __init__(self, message: str) -> None:
        super().__init__(f"{self.reason}: {message}")
        self.message = message


class InvalidRequest(LedgerError):
    reason = "INVALID_REQUEST"


class InsufficientChips(LedgerError):
    reason = Reason.INSUFFICIENT_CHIPS

    def __init__(self, player: PlayerId, balance: int, needed: int) -> None:
        super().__init__(f"{player} has {balance} chips, the stake is {needed}")
        self.player = player
        self.balance = balance
        self.needed = needed


class UnknownMatch(LedgerError):
    reason = "UNKNOWN_MATCH"


class MatchClosed(LedgerError):
    """Settling a refunded match, or refunding a settled one."""

    reason = "MATCH_CLOSED"


class Conflict(LedgerError):
    """The same grant id or match id again, with other arguments."""

    reason = "CONFLICT"


# ----- the ledger ---------------------------------------------------------------------


def _frozen(d: Mapping[K, V]) -> Mapping[K, V]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class Ledger:
    house_percent: int = HOUSE_PERCENT
    entries: tuple[Entry, ...] = ()
    balances: Mapping[Account, int] = field(default_factory=dict, hash=False)  # non-zero
    matches: Mapping[str, MatchStakes] = field(default_factory=dict, hash=False)
    grants: Mapping[str, Grant] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not 0 <= self.house_percent <= 100:
            raise ValueError("house_percent is from 0 to 100")
        for name in ("balances", "matches", "grants"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    def balance(self, account: Account) -> int:
        return self.balances.get(account, 0)

    def chips(self, player: PlayerId) -> int:
        return self.balance(player_account(player))

    # ----- operations ---------------------------------------------------------------

    def grant(self, grant_id: str, player: PlayerId, amount: int) -> Ledger:
        """Give ``player`` ``amount`` new chips from the mint (a sign-up gift, a daily
        bonus...). ``grant_id`` makes it idempotent."""
        _check_id(grant_id, "grant id")
        _check_id(player, "player id")
        _check_amount(amount, "a grant")
        wanted = Grant(grant_id, player, amount)
        earlier = self.grants.get(grant_id)
        if earlier is not None:
            if earlier == wanted:
                return self
            raise Conflict(f"grant {grant_id} was {earlier.amount} chips to {earlier.player}")
        grants = {**self.grants, grant_id: wanted}
        return self._post(
            [(MINT, player_account(player), amount, Purpose.GRANT, grant_id)], grants=grants
        )

    def stake(self, match_id: str, seats: Sequence[PlayerId], amount: int) -> Ledger:
        """Take ``amount`` chips from every seat into the match's pot as the competitive
        match starts; refused with ``InsufficientChips`` (and nothing taken) when a seat
        cannot cover it."""
        _check_id(match_id, "match id")
        seats = tuple(seats)
        if len(seats) < 2:
            raise InvalidRequest("a match has at least two seats")
        for p in seats:
            _check_id(p, "player id")
        if len(set(seats)) != len(seats):
            raise InvalidRequest("a player takes one seat only")
        _check_amount(amount, "a stake")
        earlier = self.matches.get(match_id)
        if earlier is not None:
            if earlier.seats == seats and earlier.stake == amount:
                return self
            raise Conflict(f"match {match_id} was staked {earlier.stake} by {earlier.seats}")
        for p in seats:
            if self.chips(p) < amount:
                raise InsufficientChips(p, self.chips(p), amount)
        pot = pot_account(match_id)
        record = MatchStakes(match_id, seats, amount)
        return self._post(
            [(player_account(p), pot, amount, Purpose.STAKE, match_id) for p in seats],
            matches={**self.matches, match_id: record},
        )

    def settle(self, match_id: str, winners: Iterable[PlayerId]) -> Ledger:
        """Pay the pot to ``winners`` less the house share. ``winners`` is one side's
        players (``tranca.platform.winners_of``), or every seat for a drawn match (the
        pot, less the house share, is split between all)."""
        record = self._match(match_id)
        chosen = set(winners)
        ordered = tuple(p for p in record.seats if p in chosen)
        if chosen - set(record.seats):
            raise InvalidRequest(f"{sorted(chosen - set(record.seats))} did not stake")
        valid = [set(team) for team in sides(record.seats)] + [set(record.seats)]
        if chosen not in valid:
            raise InvalidRequest("the winners are one whole side, or every seat for a draw")
        if record.status == MatchStatus.SETTLED:
            if record.winners == ordered:
                return self
            raise Conflict(f"match {match_id} was settled to {record.winners}")
        if record.status == MatchStatus.REFUNDED:
            raise MatchClosed(f"match {match_id} was refunded")
        house = record.pot * self.house_percent // 100
        share, left = divmod(record.pot - house, len(ordered))
        pot = pot_account(match_id)
        moves = [(pot, HOUSE, house, Purpose.HOUSE_SHARE, match_id)]
        moves += [
            (pot, player_account(p), share + (1 if i < left else 0), Purpose.PAYOUT, match_id)
            for i, p in enumerate(ordered)
        ]
        done = replace(record, status=MatchStatus.SETTLED, winners=ordered)
        return self._post(moves, matches={**self.matches, match_id: done})

    def refund(self, match_id: str, kept: Iterable[PlayerId] = ()) -> Ledger:
        """Return every stake to its player: the match was annulled by agreement. The
        stakes of ``kept`` (players penalised for abandoning it) go to the house."""
        record = self._match(match_id)
        if record.status == MatchStatus.REFUNDED:
            return self
        if record.status == MatchStatus.SETTLED:
            raise MatchClosed(f"match {match_id} was settled")
        pot = pot_account(match_id)
        done = replace(record, status=MatchStatus.REFUNDED)
        penalised = set(kept)
        return self._post(
            [
                (pot, HOUSE, record.stake, Purpose.ABANDONMENT, match_id)
                if p in penalised
                else (pot, player_account(p), record.stake, Purpose.REFUND, match_id)
                for p in record.seats
            ],
            matches={**self.matches, match_id: done},
        )

    def merge(self, merged: PlayerId, kept: PlayerId) -> Ledger:
        """Move every chip of ``merged`` to ``kept``: an administrator merged the two
        accounts. Nothing to move posts nothing."""
        _check_id(merged, "player id")
        _check_id(kept, "player id")
        if merged == kept:
            raise InvalidRequest("an account is merged into another")
        amount = self.chips(merged)
        if amount == 0:
            return self
        return self._post(
            [(player_account(merged), player_account(kept), amount, Purpose.MERGE, merged)]
        )

    def tournament(
        self,
        tournament_id: str,
        pay_ins: Mapping[PlayerId, int],
        refunds: Mapping[PlayerId, int],
        house: int,
        prizes: Mapping[PlayerId, int],
    ) -> Ledger:
        """One change of a tournament's prize pool (``platform.entry_fees``): entry
        fees paid in (refused with ``InsufficientChips``, nothing taken, when a player
        cannot cover theirs), fees returned, the house share and the prizes paid out.
        The pool never goes below zero. Idempotency is the caller's (one operation
        per change of the tournament)."""
        _check_id(tournament_id, "tournament id")
        for what, moves in (("a fee", pay_ins), ("a refund", refunds), ("a prize", prizes)):
            for player, amount in moves.items():
                _check_id(player, "player id")
                _check_amount(amount, what)
        if house < 0:
            raise InvalidRequest(f"a house share is not negative, not {house}")
        for player, amount in sorted(pay_ins.items()):
            if self.chips(player) < amount:
                raise InsufficientChips(player, self.chips(player), amount)
        pool = prize_pool_account(tournament_id)
        ref = tournament_id
        transfers = [
            (player_account(p), pool, a, Purpose.ENTRY_FEE, ref) for p, a in sorted(pay_ins.items())
        ]
        transfers += [
            (pool, player_account(p), a, Purpose.ENTRY_REFUND, ref)
            for p, a in sorted(refunds.items())
        ]
        transfers.append((pool, HOUSE, house, Purpose.HOUSE_SHARE, ref))
        transfers += [
            (pool, player_account(p), a, Purpose.PRIZE, ref) for p, a in sorted(prizes.items())
        ]
        return self._post(transfers)

    # ----- internals ----------------------------------------------------------------

    def _match(self, match_id: str) -> MatchStakes:
        record = self.matches.get(match_id)
        if record is None:
            raise UnknownMatch(f"no stakes for match {match_id!r}")
        return record

    def _post(
        self,
        transfers: Sequence[tuple[Account, Account, int, Purpose, str]],
        *,
        matches: Mapping[str, MatchStakes] | None = None,
        grants: Mapping[str, Grant] | None = None,
    ) -> Ledger:
        """The ledger with ``transfers`` (source, destination, amount, purpose, ref)
        written as balanced pairs; transfers of no chips are left out."""
        txn = self.entries[-1].txn if self.entries else 0
        entries = list(self.entries)
        balances = dict(self.balances)
        for source, dest, amount, purpose, ref in transfers:
            if amount == 0:
                continue
            txn += 1
            entries.append(Entry(txn, source, -amount, purpose, ref))
            entries.append(Entry(txn, dest, amount, purpose, ref))
            for account, delta in ((source, -amount), (dest, amount)):
                balances[account] = balances.get(account, 0) + delta
                if balances[account] == 0:
                    del balances[account]
        for account, value in balances.items():
            # The operations check before they post; this is the ledger's last guard.
            if value < 0 and account != MINT:
                raise LedgerError(f"{account.kind} {account.name} would hold {value} chips")
        return Ledger(
            self.house_percent,
            tuple(entries),
            balances,
            self.matches if matches is None else matches,
            self.grants if grants is None else grants,
        )


def balances_of(entries: Iterable[Entry]) -> dict[Account, int]:
    """The non-zero balances that ``entries`` add up to (to check a stored ledger)."""
    totals: dict[Account, int] = {}
    for e in entries:
        totals[e.account] = totals.get(e.account, 0) + e.amount
    return {a: v for a, v in totals.items() if v != 0}


def _check_amount(amount: int, what: str) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise InvalidRequest(f"{what} is a positive whole number of chips, not {amount!r}")


def _check_id(value: str, what: str) -> None:
    if not isinstance(value, str) or not value:
        raise InvalidRequest(f"a {what} is a non-empty string")
