"""Helpers for the ratings, ranking and chips tests: tables with player ids and
addresses, grants, and the chip ledger read straight from the database (to check it
independently of the code that writes it)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict, Unpack

from sqlalchemy import false, func, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.server.conftest import Client
from tranca.server import Running
from tranca.services.settlement import Settlement
from tranca.store.models import Game
from tranca.store.repository import Store
from tranca.store.settlement import SettlementStore
from tranca.table.game import FINISHED
from tranca.v1 import game_pb2 as pb
from tranca.v1 import platform_pb2 as ppb
from tranca.v1 import platform_pb2_grpc as ppb_grpc


def settlement(store: Store) -> Settlement:
    """The settlement use case on ``store`` (a replica's, or the server's own)."""
    return Settlement(SettlementStore(store))


async def settle_pending(store: Store, limit: int = 20) -> int:
    """One sweep's settlements on ``store``, as a replica's sweeper settles them."""
    return await settlement(store).settle_pending(limit)


async def settle_all(store: Store, timeout: float = 10.0) -> int:
    """Settle every finished game, then wait for those another settler holds; returns
    how many this call settled. The server's own sweeper may be settling a game at
    that moment, and on PostgreSQL ``settle_pending`` skips a game another
    transaction has locked (``SKIP LOCKED``): its chips and ratings land when that
    transaction commits, which a test reading them straight after must wait for."""
    count = 0
    deadline = time.monotonic() + timeout
    while True:
        count += await settle_pending(store, limit=100)
        async with store.reading() as conn:
            unsettled = (
                await conn.execute(
                    select(func.count())
                    .select_from(Game)
                    .where(Game.status == FINISHED, Game.settled == false())
                )
            ).scalar_one()
        if not unsettled:
            return count
        if time.monotonic() > deadline:
            raise AssertionError(f"{unsettled} finished game(s) still unsettled after {timeout} s")
        await asyncio.sleep(0.01)


class GameSettings(TypedDict, total=False):
    """Platform.create's settings of a game."""

    stake: int
    competitive: bool
    express: bool
    annulment: bool
    preset: str
    turn_seconds: int


@dataclass
class Table:
    game_id: str
    tokens: list[str]
    players: list[str]


class Platform:
    """One app's view of the service: its games, its players, its chips."""

    def __init__(self, client: Client, running: Running) -> None:
        self.client = client
        self.running = running
        self.game = client.stub
        self.players = ppb_grpc.PlayerServiceStub(client.channel)
        self.md = client.app()
        self.app_id = ""

    @classmethod
    async def of(cls, client: Client, running: Running) -> Platform:
        platform = cls(client, running)
        app = await running.store.app_by_key(client.api_key)
        assert app is not None
        platform.app_id = app.id
        return platform

    async def grant(self, player: str, amount: int, grant_id: str | None = None) -> int:
        reply = await self.players.GrantChips(
            ppb.GrantChipsRequest(
                player_id=player, amount=amount, grant_id=grant_id or f"g-{player}-{amount}"
            ),
            metadata=self.md,
        )
        return int(reply.chips)

    async def player(self, player: str) -> ppb.GetPlayerResponse:
        reply: ppb.GetPlayerResponse = await self.players.GetPlayer(
            ppb.GetPlayerRequest(player_id=player), metadata=self.md
        )
        return reply

    async def chips(self, player: str) -> int:
        return int((await self.player(player)).chips)

    async def create(
        self,
        players: int = 2,
        *,
        stake: int = 0,
        competitive: bool = True,
        express: bool = False,
        annulment: bool = False,
        preset: str = "tranca-003",  # 003's own rules: a match to 2000 points
        turn_seconds: int = 0,
    ) -> str:
        created = await self.game.CreateGame(
            pb.CreateGameRequest(
                rules=pb.Rules(preset=preset),
                players=players,
                seed=11,
                table=pb.TableOptions(
                    competitive=competitive,
                    stake=stake,
                    express=express,
                    annulment_allowed=annulment,
                    turn_seconds=turn_seconds,
                ),
            ),
            metadata=self.md,
        )
        return str(created.game.game_id)

    async def join(self, game_id: str, seat: int, player: str, address: str) -> str:
        joined = await self.game.JoinGame(
            pb.JoinGameRequest(
                game_id=game_id,
                seat=seat,
                player_name=player,
                player_id=player,
                player_address=address,
            ),
            metadata=self.md,
        )
        return str(joined.player_token)

    async def table(
        self,
        players: Sequence[str],
        *,
        addresses: Sequence[str] | None = None,
        start: bool = True,
        **options: Unpack[GameSettings],
    ) -> Table:
        """A table with ``players`` seated in order (each from its own address unless
        ``addresses`` says otherwise), started unless ``start`` is False."""
        game_id = await self.create(len(players), **options)
        addresses = addresses or [f"10.0.0.{i + 1}" for i in range(len(players))]
        tokens = [
            await self.join(game_id, seat, p, a)
            for seat, (p, a) in enumerate(zip(players, addresses, strict=True))
        ]
        if start:
            await self.start(game_id)
        return Table(game_id, tokens, list(players))

    async def start(self, game_id: str) -> None:
        await self.game.StartGame(pb.StartGameRequest(game_id=game_id), metadata=self.md)

    async def resign(self, table: Table, seat: int) -> None:
        await self.game.LeaveGame(
            pb.LeaveGameRequest(game_id=table.game_id),
            metadata=self.client.player(table.tokens[seat]),
        )

    async def status(self, game_id: str) -> int:
        view = await self.game.GetView(pb.GetViewRequest(game_id=game_id), metadata=self.md)
        return int(view.view.status)

    async def settle(self) -> int:
        return await settle_all(self.running.store)

    async def entries(self, player: str, page_size: int = 0) -> list[ppb.ChipEntry]:
        out: list[ppb.ChipEntry] = []
        token = ""
        while True:
            page = await self.players.ListChipEntries(
                ppb.ListChipEntriesRequest(player_id=player, page_size=page_size, page_token=token),
                metadata=self.md,
            )
            out.extend(page.entries)
            token = page.next_page_token
            if not token:
                return out


async def ledger_problems(running: Running, app_id: str | None = None) -> list[str]:
    """Every way the stored chip ledger fails to balance (empty: it balances), read
    with plain SQL: the balances add up to zero, every transfer's two entries add up
    to zero, no account but the mint is negative, every account's balance is the sum
    of its entries and its last entry's balance after."""
    return await ledger_problems_in(running.store.engine, app_id)


async def ledger_problems_in(engine: AsyncEngine, app_id: str | None = None) -> list[str]:
    """``ledger_problems`` of the database behind ``engine``."""
    where = "" if app_id is None else " WHERE app_id = :app"
    args = {} if app_id is None else {"app": app_id}
    problems: list[str] = []
    # One statement, so one snapshot of both tables: the server's own sweeper may
    # settle a match between two separate reads (each consistent, not together).
    both = (
        "SELECT 'a' AS kind, 0 AS id, app_id, '' AS txn, account, balance AS amount,"
        f" 0 AS balance_after FROM chip_accounts{where}"
        " UNION ALL"
        " SELECT 'e' AS kind, id, app_id, txn, account, amount, balance_after"
        f" FROM chip_entries{where}"
    )
    async with engine.connect() as conn:
        rows = (
            await conn.execute(text(f"SELECT * FROM ({both}) AS x ORDER BY kind, id"), args)
        ).all()
    accounts = [(r.app_id, r.account, r.amount) for r in rows if r.kind == "a"]
    entries = [r for r in rows if r.kind == "e"]
    balances = [(str(r[0]), str(r[1]), int(r[2])) for r in accounts]
    totals: dict[str, int] = {}
    for app, account, value in balances:
        totals[app] = totals.get(app, 0) + value
        if value < 0 and account != "mint":
            problems.append(f"{account} holds {value}")
    problems += [f"app {a}'s balances add up to {t}" for a, t in totals.items() if t]
    by_txn: dict[str, list[int]] = {}
    sums: dict[tuple[str, str], int] = {}
    for row in entries:
        app, txn, account = str(row.app_id), str(row.txn), str(row.account)
        amount, after = int(row.amount), int(row.balance_after)
        by_txn.setdefault(txn, []).append(amount)
        sums[app, account] = sums.get((app, account), 0) + amount
        if sums[app, account] != after:
            problems.append(
                f"{account}: balance after an entry is {after}, not {sums[app, account]}"
            )
    for txn, amounts in by_txn.items():
        if len(amounts) != 2 or sum(amounts) != 0:
            problems.append(f"transfer {txn} is {amounts}")
    for app, account, value in balances:
        total = sums.get((app, account), 0)
        if total != value:
            problems.append(f"{account} holds {value}, its entries add up to {total}")
    return problems


async def balance_of(running: Running, app_id: str, account: str) -> int:
    return await balance_in(running.store.engine, app_id, account)


async def balance_in(engine: AsyncEngine, app_id: str, account: str) -> int:
    async with engine.connect() as conn:
        row = (
            await conn.execute(
                text("SELECT balance FROM chip_accounts WHERE app_id = :app AND account = :a"),
                {"app": app_id, "a": account},
            )
        ).first()
    return 0 if row is None else int(row[0])
