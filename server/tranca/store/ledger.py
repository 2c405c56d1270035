"""The chip ledger in the database: ``tranca.platform.chips`` decides, this module
stores.

Each operation (a grant, a match's stakes, its settlement, its refund) runs inside
the caller's transaction. It loads just the balances and the match or grant record
it involves into a ``chips.Ledger``, runs the pure operation there (which applies
the rules of 003: the house share, the split of the pot, idempotency and
conflicts), and posts the new entries:

- ``chip_operations`` holds one row per operation under its idempotency key
  ("grant:<id>", "stake:<game>", "settle:<game>", "refund:<game>", and
  "tournament:<id>:<version>" for the change of a tournament that moved its prize
  pool). The row is
  inserted with the entries, so a repeat finds it and posts nothing; two racing
  requests with one key meet on its primary key, and the second waits for the
  first's transaction and then sees its row.
- ``chip_accounts`` holds each account's balance. Every change is one conditional
  update (``balance + delta >= 0``, except for the mint), so no balance but the
  mint's goes below zero even when the balances the pure ledger was given have
  moved on meanwhile; such a refusal rolls the whole transaction back. Accounts are
  updated in name order, so two transactions never wait on each other in a cycle.
- ``chip_entries`` holds both sides of every transfer (same ``txn``, amounts summing
  to zero) with the account's balance after it.

Accounts are per app ("player:<id>", "pot:<game id>", "prize_pool:<tournament
id>", "house", "mint"): one app's
chips never meet another's.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform import PlayerId, chips
from ..platform.chips import Account, AccountKind, Ledger, MatchStakes, MatchStatus
from ..platform.entry_fees import ChipMoves
from .codec import dumps, loads
from .database import insert_ignoring_duplicates
from .models import ChipAccount, ChipEntry, ChipOperation

__all__ = [
    "account_name",
    "balance",
    "grant",
    "lock_accounts",
    "match_stakes",
    "refund",
    "settle",
    "stake",
    "tournament",
]


def account_name(account: Account) -> str:
    """The stored name of an account: "house", "mint", "player:<id>", "pot:<game>"."""
    if account.kind in (AccountKind.HOUSE, AccountKind.MINT):
        return account.kind.value
    return f"{account.kind.value}:{account.name}"


async def balance(conn: AsyncConnection, app_id: str, account: Account) -> int:
    row = (
        await conn.execute(
            select(ChipAccount.balance).where(
                ChipAccount.app_id == app_id, ChipAccount.account == account_name(account)
            )
        )
    ).first()
    return 0 if row is None else int(row.balance)


async def lock_accounts(conn: AsyncConnection, app_id: str, accounts: Iterable[Account]) -> None:
    """Lock ``accounts`` (those that exist) in name order until the transaction ends,
    on PostgreSQL. Each operation locks its own accounts in that order; a transaction
    that runs two operations (a settlement paying a match's pot, then its
    tournament's prizes) locks every account of both first, so that it, too, takes
    its locks in one order and cannot deadlock with another transaction. SQLite
    has one writer at a time: nothing to do."""
    if conn.dialect.name != "postgresql":
        return
    names = sorted({account_name(a) for a in accounts})
    if names:
        await conn.execute(
            select(ChipAccount.account)
            .where(ChipAccount.app_id == app_id, ChipAccount.account.in_(names))
            .order_by(ChipAccount.account)
            .with_for_update()
        )


async def _balances(
    conn: AsyncConnection, app_id: str, accounts: Iterable[Account]
) -> dict[Account, int]:
    """The current non-zero balances of ``accounts`` (and nothing else)."""
    by_name = {account_name(a): a for a in accounts}
    rows = (
        await conn.execute(
            select(ChipAccount.account, ChipAccount.balance).where(
                ChipAccount.app_id == app_id, ChipAccount.account.in_(sorted(by_name))
            )
        )
    ).all()
    return {by_name[r.account]: int(r.balance) for r in rows if r.balance}


async def _operation(conn: AsyncConnection, app_id: str, key: str) -> dict[str, Any] | None:
    row = (
        await conn.execute(
            select(ChipOperation.detail).where(
                ChipOperation.app_id == app_id, ChipOperation.key == key
            )
        )
    ).first()
    if row is None:
        return None
    detail: dict[str, Any] = loads(row.detail)
    return detail


async def _run(
    conn: AsyncConnection,
    app_id: str,
    key: str,
    detail: dict[str, Any],
    before: Ledger,
    operation: Callable[[Ledger], Ledger],
) -> tuple[chips.Entry, ...]:
    """Run ``operation`` on ``before`` and store what it did under ``key``: the entries
    posted, none for a repeat (the pure ledger then returns itself)."""
    after = operation(before)
    if after is before:
        return ()
    inserted = await conn.execute(
        insert_ignoring_duplicates(conn, ChipOperation)
        .values(app_id=app_id, key=key, detail=dumps(detail))
        .returning(ChipOperation.key)
    )
    if inserted.first() is None:
        # A racing request with the same key committed first (we waited for it on the
        # key's primary key): the same operation is a repeat, another a conflict.
        if await _operation(conn, app_id, key) == detail:
            return ()
        raise chips.Conflict(f"{key} was done with other arguments")
    posted = after.entries[len(before.entries) :]
    await _post(conn, app_id, posted)
    return posted


async def _post(conn: AsyncConnection, app_id: str, entries: Sequence[chips.Entry]) -> None:
    """Write ``entries`` and move the balances they change, refusing (by raising, so
    the transaction rolls back) any balance but the mint's that would go negative."""
    deltas: dict[str, int] = {}
    accounts: dict[str, Account] = {}
    for e in entries:
        name = account_name(e.account)
        deltas[name] = deltas.get(name, 0) + e.amount
        accounts[name] = e.account
    await conn.execute(
        insert_ignoring_duplicates(conn, ChipAccount),
        [{"app_id": app_id, "account": name, "balance": 0} for name in sorted(deltas)],
    )
    final: dict[str, int] = {}
    for name in sorted(deltas):  # one lock order for every transaction: no deadlock
        delta = deltas[name]
        change = update(ChipAccount).where(
            ChipAccount.app_id == app_id, ChipAccount.account == name
        )
        if accounts[name] != chips.MINT:
            change = change.where(ChipAccount.balance + delta >= 0)
        row = (
            await conn.execute(
                change.values(balance=ChipAccount.balance + delta).returning(ChipAccount.balance)
            )
        ).first()
        if row is None:
            account = accounts[name]
            held = await balance(conn, app_id, account)
            if account.kind == AccountKind.PLAYER:
                raise chips.InsufficientChips(account.name, held, -delta)
            raise chips.LedgerError(f"{name} would hold {held + delta} chips")
        final[name] = int(row.balance)
    # Each entry's balance after it: the account's final balance, less the entries
    # of the same account that follow it in this operation.
    after: list[int] = []
    running = dict(final)
    for e in reversed(entries):
        name = account_name(e.account)
        after.append(running[name])
        running[name] -= e.amount
    after.reverse()
    txns: dict[int, str] = {}
    now = datetime.now(UTC)
    rows = []
    for e, balance_after in zip(entries, after, strict=True):
        txn = txns.setdefault(e.txn, uuid.uuid4().hex)
        rows.append(
            {
                "app_id": app_id,
                "txn": txn,
                "account": account_name(e.account),
                "amount": e.amount,
                "purpose": e.purpose.value,
                "reference": e.ref,
                "balance_after": balance_after,
                "created_at": now,
            }
        )
    await conn.execute(insert(ChipEntry), rows)


# ----- operations ---------------------------------------------------------------------


async def grant(
    conn: AsyncConnection, app_id: str, grant_id: str, player: PlayerId, amount: int
) -> tuple[int, tuple[chips.Entry, ...]]:
    """Grant ``amount`` new chips to ``player`` (once per ``grant_id``): the player's
    balance afterwards, and the entries posted (none for a repeat).
    Raises ``chips.Conflict`` for a grant id used with other arguments,
    ``chips.InvalidRequest`` for bad arguments."""
    key = f"grant:{grant_id}"
    earlier = await _operation(conn, app_id, key)
    grants = {}
    if earlier is not None:
        grants[grant_id] = chips.Grant(grant_id, str(earlier["player"]), int(earlier["amount"]))
    balances = await _balances(conn, app_id, [chips.MINT, chips.player_account(player)])
    before = Ledger(balances=balances, grants=grants)
    done = await _run(
        conn,
        app_id,
        key,
        {"player": player, "amount": amount},
        before,
        lambda ledger: ledger.grant(grant_id, player, amount),
    )
    return await balance(conn, app_id, chips.player_account(player)), done


async def merge(
    conn: AsyncConnection, app_id: str, merged: PlayerId, kept: PlayerId, key: str
) -> tuple[chips.Entry, ...]:
    """Move ``merged``'s chips to ``kept`` (``chips.Ledger.merge``), once per ``key``
    (the merge's own): the entries posted, none when it held none."""
    accounts = [chips.player_account(merged), chips.player_account(kept)]
    await lock_accounts(conn, app_id, accounts)
    before = Ledger(balances=await _balances(conn, app_id, accounts))
    return await _run(
        conn,
        app_id,
        key,
        {"merged": merged, "kept": kept},
        before,
        lambda ledger: ledger.merge(merged, kept),
    )


async def match_stakes(conn: AsyncConnection, app_id: str, game_id: str) -> MatchStakes | None:
    """A match's stakes as the pure ledger knows them (with their settlement or
    refund), or None if nothing was staked."""
    staked = await _operation(conn, app_id, f"stake:{game_id}")
    if staked is None:
        return None
    record = MatchStakes(game_id, tuple(str(p) for p in staked["seats"]), int(staked["stake"]))
    settled = await _operation(conn, app_id, f"settle:{game_id}")
    if settled is not None:
        winners = tuple(str(p) for p in settled["winners"])
        return dataclasses.replace(record, status=MatchStatus.SETTLED, winners=winners)
    if await _operation(conn, app_id, f"refund:{game_id}") is not None:
        return dataclasses.replace(record, status=MatchStatus.REFUNDED)
    return record


async def _match_ledger(
    conn: AsyncConnection,
    app_id: str,
    record: MatchStakes | None,
    game_id: str,
    extra: list[Account],
) -> Ledger:
    accounts = [chips.pot_account(game_id), *extra]
    if record is not None:
        accounts += [chips.player_account(p) for p in record.seats]
    balances = await _balances(conn, app_id, accounts)
    matches = {} if record is None else {game_id: record}
    return Ledger(balances=balances, matches=matches)


async def stake(
    conn: AsyncConnection, app_id: str, game_id: str, seats: Sequence[PlayerId], amount: int
) -> tuple[chips.Entry, ...]:
    """Take ``amount`` chips from every seat's player into the match's pot. Raises
    ``chips.InsufficientChips`` (the transaction must then roll back) when a player
    cannot cover it. The entries posted: none if it was staked already."""
    record = await match_stakes(conn, app_id, game_id)
    before = await _match_ledger(
        conn, app_id, record, game_id, [chips.player_account(p) for p in seats]
    )
    return await _run(
        conn,
        app_id,
        f"stake:{game_id}",
        {"seats": list(seats), "stake": amount},
        before,
        lambda ledger: ledger.stake(game_id, seats, amount),
    )


async def settle(
    conn: AsyncConnection, app_id: str, game_id: str, winners: Iterable[PlayerId]
) -> tuple[chips.Entry, ...]:
    """Pay the match's pot to ``winners`` (one side, or every seat for a draw) less
    the house share. The entries posted: none when nothing was staked or it was
    settled already."""
    record = await match_stakes(conn, app_id, game_id)
    if record is None:
        return ()
    chosen = set(winners)
    ordered = [p for p in record.seats if p in chosen]
    before = await _match_ledger(conn, app_id, record, game_id, [chips.HOUSE])
    return await _run(
        conn,
        app_id,
        f"settle:{game_id}",
        {"winners": ordered},
        before,
        lambda ledger: ledger.settle(game_id, chosen),
    )


async def refund(
    conn: AsyncConnection, app_id: str, game_id: str, kept: Sequence[PlayerId] = ()
) -> tuple[chips.Entry, ...]:
    """Return every stake of an annulled match, except those of ``kept`` (penalised
    for abandoning it), which go to the house. The entries posted: none when nothing
    was staked or it was refunded already."""
    record = await match_stakes(conn, app_id, game_id)
    if record is None:
        return ()
    penalised = sorted(set(kept) & set(record.seats))
    extra = [chips.HOUSE] if penalised else []
    before = await _match_ledger(conn, app_id, record, game_id, extra)
    # The operation's detail names the kept stakes only when there are some: a refund
    # of every stake is stored as it always was.
    detail: dict[str, Any] = {"kept": penalised} if penalised else {}
    return await _run(
        conn,
        app_id,
        f"refund:{game_id}",
        detail,
        before,
        lambda ledger: ledger.refund(game_id, penalised),
    )


async def tournament(
    conn: AsyncConnection,
    app_id: str,
    tournament_id: str,
    version: int,
    moves: ChipMoves,
) -> tuple[chips.Entry, ...]:
    """Post what the change of a tournament to ``version`` moves through its prize
    pool (``platform.entry_fees``), once: the tournament's compare-and-swap makes the
    change unique, and the operation's key ("tournament:<id>:<version>") makes a
    repeat post nothing. Raises ``chips.InsufficientChips`` (the transaction must
    then roll back) when a player cannot cover an entry fee."""
    if not moves:
        return ()
    before = Ledger(balances=await _balances(conn, app_id, moves.accounts(tournament_id)))
    return await _run(
        conn,
        app_id,
        f"tournament:{tournament_id}:{version}",
        moves.to_dict(),
        before,
        lambda ledger: ledger.tournament(
            tournament_id, moves.pay_ins, moves.refunds, moves.house, moves.prizes
        ),
    )
