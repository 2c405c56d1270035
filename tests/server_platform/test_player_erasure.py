"""ErasePlayer through a real channel, on SQLite and PostgreSQL (issue 38: "ErasePlayer
on a player with games, chips and a tournament: export before and after, ledger sums
unchanged, their name in no table of the database (a test that scans every text
column), other players' replays still play").

The database is read here with plain SQL, apart from the code that rewrites it: the
scan reflects every table the migrations made and searches every text column.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import grpc
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from tranca.server import Running
from tranca.store.codec import action_from_text, state_from_text
from tranca.table.game import rebuild
from tranca.v1 import admin_pb2 as apb
from tranca.v1 import admin_pb2_grpc as apb_grpc
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import platform_pb2 as pb
from tranca.v1 import quick_play_pb2 as qpb
from tranca.v1 import quick_play_pb2_grpc as qpb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from ..harness import scans
from ..server.api_calls import refused
from ..server.conftest import Client
from .staking import Platform, ledger_problems, settle_all
from .tournament_helpers import PRESET, Organiser

# The erased player: an id and a name found nowhere else, so that the scan's every
# hit is theirs.
ANA = "ana-4f1c9e"
ANA_NAME = "Ana Quitéria Erasmo"
OTHERS = ("bia-77", "caio-78", "duda-79")
FEE = 100


@pytest.fixture
async def bank(client: Client, server: Running) -> Platform:
    return await Platform.of(client, server)


def sessions(client: Client) -> spb_grpc.SessionServiceAsyncStub:
    return spb_grpc.SessionServiceStub(client.channel)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def text_hits(engine: AsyncEngine, needles: tuple[str, ...]) -> list[str]:
    """Every (table.column) of the database whose text holds one of ``needles``."""
    async with engine.connect() as conn:
        return await conn.run_sync(scans.text_hits, needles)


async def stored_games(engine: AsyncEngine, app_id: str) -> dict[str, tuple[str, str]]:
    async with engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT id, setup, snapshot FROM games WHERE app_id = :a"), {"a": app_id}
        )
        return {r.id: (r.setup, r.snapshot) for r in rows}


async def replays_rebuild_every_snapshot(engine: AsyncEngine, app_id: str) -> int:
    """Each game's log, applied from the start, gives its stored snapshot."""
    games = await stored_games(engine, app_id)
    async with engine.connect() as conn:
        for game_id, (setup_text, snapshot) in games.items():
            rows = await conn.execute(
                text("SELECT action FROM move_log WHERE game_id = :g ORDER BY version"),
                {"g": game_id},
            )
            actions = [action_from_text(r.action) for r in rows]
            stored = state_from_text(snapshot, setup_text)
            assert rebuild(stored.setup, actions).to_dict() == stored.to_dict(), game_id
    return len(games)


async def ledger_sums(engine: AsyncEngine, app_id: str) -> dict[str, int]:
    """The ledger's sums that do not name a player: the total of every balance and
    of every entry, the house's balance, and each transfer's two amounts."""
    async with engine.connect() as conn:
        balances = (
            await conn.execute(
                text("SELECT account, balance FROM chip_accounts WHERE app_id = :a"), {"a": app_id}
            )
        ).all()
        entries = (
            await conn.execute(
                text("SELECT amount FROM chip_entries WHERE app_id = :a"), {"a": app_id}
            )
        ).all()
    return {
        "balances": sum(int(b.balance) for b in balances),
        "player_balances": sum(int(b.balance) for b in balances if b.account.startswith("player:")),
        "house": sum(int(b.balance) for b in balances if b.account == "house"),
        "entries": sum(int(e.amount) for e in entries),
        "entry_count": len(entries),
    }


def _renamed(move: dict[str, Any], pseudonym: str) -> dict[str, Any]:
    """A change from her seat as the erasure leaves it: a join names the pseudonym."""
    action = dict(move["action"])
    if action.get("player_id") == ANA:
        action.update(player_id=pseudonym, name=pseudonym)
    return {**move, "action": action}


async def play_a_tournament(org: Organiser, bank: Platform) -> str:
    """A Swiss of two rounds with an entry fee, Ana one of four entrants; side B
    resigns at every table. Finished: its fees paid, its prizes paid."""
    for player in (ANA, *OTHERS):
        await bank.grant(player, 500)
    done = await org.stub.CreateTournament(
        pb.CreateTournamentRequest(
            name="cup",
            format=pb.TOURNAMENT_FORMAT_SWISS,
            table_size=2,
            rules=gpb.Rules(preset=PRESET),
            rounds=2,
            entrants=[pb.Entrant(id=p, player_ids=[p]) for p in (ANA, *OTHERS)],
            entry_fee=FEE,
            payout_percents=[70, 30],
            house_percent=10,
        ),
        metadata=org.md,
    )
    tid = done.tournament.tournament_id
    for number in (1, 2):
        rnd = await org.start(tid, number)
        await org.play_round(tid, rnd)
    assert (await org.get(tid)).status == pb.TOURNAMENT_STATUS_FINISHED
    return tid


async def staked_game_ana_loses(client: Client, bank: Platform, ana: Any) -> str:
    """A competitive table with a stake: Ana sits through her session (her name on
    the seat), Bia by the app; Ana resigns; the match is settled."""
    game_id = await bank.create(2, stake=50, competitive=True)
    ana_token = (
        await client.stub.JoinGame(gpb.JoinGameRequest(game_id=game_id, seat=0), metadata=ana)
    ).player_token
    await bank.join(game_id, 1, OTHERS[0], "10.0.0.2")
    await bank.start(game_id)
    await client.stub.LeaveGame(
        gpb.LeaveGameRequest(game_id=game_id, request_id=uuid.uuid4().hex),
        metadata=client.player(ana_token),
    )
    await bank.settle()
    return game_id


async def test_an_erased_player_is_in_no_text_column_and_the_rest_is_whole(
    client: Client, server: Running, bank: Platform
) -> None:
    engine = server.store.engine
    stub = sessions(client)
    org = Organiser(client, server)
    tid = await play_a_tournament(org, bank)
    policy = (await stub.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.max_stake = 50
    await stub.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    opened = await stub.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=ANA, display_name=ANA_NAME), metadata=client.app()
    )
    ana = bearer(opened.session.access_token)
    await stub.UpdateProfile(
        spb.UpdateProfileRequest(display_name=ANA_NAME, country="BR"), metadata=ana
    )
    staked = await staked_game_ana_loses(client, bank, ana)
    # A quick-play ticket asked for and cancelled: a ticket naming her, closed.
    tickets: qpb_grpc.QuickPlayServiceAsyncStub = qpb_grpc.QuickPlayServiceStub(client.channel)
    asked = await tickets.AskQuickPlay(
        qpb.AskQuickPlayRequest(preset=PRESET, players=2), metadata=ana
    )
    await tickets.CancelTicket(
        qpb.CancelTicketRequest(ticket_id=asked.ticket.ticket_id), metadata=ana
    )
    await settle_all(server.store)

    before = json.loads(
        (
            await stub.ExportPlayerData(
                spb.ExportPlayerDataRequest(player_id=ANA), metadata=client.app()
            )
        ).json
    )
    assert len(before["games"]) == 3  # two tournament tables and the staked table
    assert before["profile"]["display_name"] == ANA_NAME
    assert before["chips"]["entries"] and before["rating"] is not None
    assert await text_hits(engine, (ANA, ANA_NAME)) != []  # the scan finds her now
    sums = await ledger_sums(engine, bank.app_id)
    others = {p: await bank.player(p) for p in OTHERS}
    replay_moves = len(
        (
            await client.stub.GetReplay(gpb.GetReplayRequest(game_id=staked), metadata=client.app())
        ).moves
    )
    standings_before = [(s.rank, s.points) for s in (await org.get(tid)).standings]

    erased = await stub.ErasePlayer(spb.ErasePlayerRequest(player_id=ANA), metadata=client.app())
    pseudonym = erased.pseudonym
    assert pseudonym.startswith("erased-") and len(pseudonym) == len("erased-") + 16
    for changed in ("player_sessions", "player_profiles", "games", "move_log", "chip_entries"):
        assert erased.rows[changed] > 0, changed

    # Her id and her name are in no text column of any table.
    hits = await text_hits(engine, (ANA, ANA_NAME))
    assert hits == [], hits
    # What she held is gone, and under her id the server holds nothing.
    after = json.loads(
        (
            await stub.ExportPlayerData(
                spb.ExportPlayerDataRequest(player_id=ANA), metadata=client.app()
            )
        ).json
    )
    assert (after["profile"], after["identities"], after["sessions"], after["games"]) == (
        None,
        [],
        [],
        [],
    )
    assert (after["rating"], after["chips"], after["events"]) == (
        None,
        {"balance": 0, "entries": []},
        [],
    )
    # Her seats, ratings and chips stay under the pseudonym: the same games, the
    # same entries, the same balance.
    kept = json.loads(
        (
            await stub.ExportPlayerData(
                spb.ExportPlayerDataRequest(player_id=pseudonym), metadata=client.app()
            )
        ).json
    )
    assert [g["game_id"] for g in kept["games"]] == [g["game_id"] for g in before["games"]]
    # Each game her seat was in gained one change: the erasure of its player.
    assert [g["moves"][:-1] for g in kept["games"]] == [
        [_renamed(m, pseudonym) for m in g["moves"]] for g in before["games"]
    ]
    assert {(m["action"]["kind"], m["actor"]) for g in kept["games"] for m in g["moves"][-1:]} == {
        ("erase", "app")
    }
    assert kept["chips"]["balance"] == before["chips"]["balance"]
    ledger_fields = ("id", "amount", "purpose", "balance", "at")
    assert [[e[f] for f in ledger_fields] for e in kept["chips"]["entries"]] == [
        [e[f] for f in ledger_fields] for e in before["chips"]["entries"]
    ]
    assert kept["rating"] == before["rating"]
    assert {m["action"].get("name") for g in kept["games"] for m in g["moves"]} <= {
        pseudonym,
        None,
    }
    # The ledger still balances, with the same sums; the others' figures are theirs.
    assert await ledger_problems(server, bank.app_id) == []
    assert await ledger_sums(engine, bank.app_id) == sums
    assert {p: await bank.player(p) for p in OTHERS} == others
    # The tournament's standings name the pseudonym, in the same order.
    final = await org.get(tid)
    assert [(s.rank, s.points) for s in final.standings] == standings_before
    assert pseudonym in {s.entrant for s in final.standings}
    # Every game's log still rebuilds its stored snapshot; the others' replays play.
    assert await replays_rebuild_every_snapshot(engine, bank.app_id) >= 3
    replay = await client.stub.GetReplay(
        gpb.GetReplayRequest(game_id=staked), metadata=client.app()
    )
    assert len(replay.moves) == replay_moves + 1
    assert (replay.moves[-1].move.text, replay.moves[-1].actor) == ("erase", "app")
    view = await client.stub.GetView(gpb.GetViewRequest(game_id=staked), metadata=client.app())
    assert [s.player_name for s in view.view.seats][:1] == [pseudonym]
    # Her session ended with the erasure.
    await refused(
        stub.GetProfile(spb.GetProfileRequest(), metadata=ana),
        grpc.StatusCode.UNAUTHENTICATED,
    )
    # Audited, by pseudonym; a second erasure of the id finds nothing.
    again = await stub.ErasePlayer(spb.ErasePlayerRequest(player_id=ANA), metadata=client.app())
    # Nothing held but the audit entry of the copy asked for after the erasure.
    assert dict(again.rows) == {"audit_entries": 1}
    audit: apb_grpc.AdminServiceAsyncStub = apb_grpc.AdminServiceStub(client.channel)
    entries = (
        await audit.ListAuditEntries(apb.ListAuditEntriesRequest(), metadata=client.app())
    ).entries
    # Two copies handed out (before and after), the pseudonym's, two erasures; the
    # first copy's entry names the pseudonym now.
    assert [(e.action, e.actor) for e in entries] == [
        ("export_player_data", "app"),
        ("erase_player", "app"),
        ("export_player_data", "app"),
        ("export_player_data", "app"),
        ("erase_player", "app"),
    ]
    assert [e.subject for e in entries][:2] == [pseudonym, pseudonym]
    assert json.loads(entries[1].detail_json)["rows"] == dict(erased.rows)
    assert erased.rows["audit_entries"] == 1
    assert await text_hits(engine, (ANA, ANA_NAME)) == []


async def test_a_player_still_playing_is_not_erased_and_nothing_changes(
    client: Client, server: Running, bank: Platform
) -> None:
    game_id = await bank.create(2, competitive=False)
    await bank.join(game_id, 0, ANA, "10.0.0.1")
    stub = sessions(client)
    await refused(
        stub.ErasePlayer(spb.ErasePlayerRequest(player_id=ANA), metadata=client.app()),
        grpc.StatusCode.FAILED_PRECONDITION,
        "PLAYER_STILL_PLAYING",
    )
    assert await text_hits(server.store.engine, (ANA,)) != []
    audit: apb_grpc.AdminServiceAsyncStub = apb_grpc.AdminServiceStub(client.channel)
    listed = await audit.ListAuditEntries(apb.ListAuditEntriesRequest(), metadata=client.app())
    assert list(listed.entries) == []


async def test_a_session_erases_itself_where_the_app_allows(client: Client) -> None:
    stub = sessions(client)
    opened = await stub.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=ANA, display_name=ANA_NAME), metadata=client.app()
    )
    ana = bearer(opened.session.access_token)
    await refused(
        stub.ErasePlayer(spb.ErasePlayerRequest(), metadata=ana),
        grpc.StatusCode.PERMISSION_DENIED,
        "DATA_RIGHTS_DISABLED",
    )
    policy = (await stub.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.player_data_rights = True
    await stub.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    await refused(
        stub.ErasePlayer(spb.ErasePlayerRequest(player_id="bia-77"), metadata=ana),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_YOUR_DATA",
    )
    erased = await stub.ErasePlayer(spb.ErasePlayerRequest(), metadata=ana)
    assert erased.rows["player_sessions"] == 1
    audit: apb_grpc.AdminServiceAsyncStub = apb_grpc.AdminServiceStub(client.channel)
    (entry,) = (
        await audit.ListAuditEntries(apb.ListAuditEntriesRequest(), metadata=client.app())
    ).entries
    assert (entry.actor, entry.subject) == ("player", erased.pseudonym)
    await refused(
        stub.GetProfile(spb.GetProfileRequest(), metadata=ana), grpc.StatusCode.UNAUTHENTICATED
    )
