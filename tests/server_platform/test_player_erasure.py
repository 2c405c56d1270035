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
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from tranca.server import Running
from tranca.store import player_rows
from tranca.store.codec import action_from_text, state_from_text
from tranca.table.game import rebuild
from tranca.v1 import admin_pb2 as apb
from tranca.v1 import admin_pb2_grpc as apb_grpc
from tranca.v1 import chat_pb2 as chpb
from tranca.v1 import chat_pb2_grpc as chpb_grpc
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import invitations_pb2 as ipb
from tranca.v1 import invitations_pb2_grpc as ipb_grpc
from tranca.v1 import platform_pb2 as pb
from tranca.v1 import quick_play_pb2 as qpb
from tranca.v1 import quick_play_pb2_grpc as qpb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca.v1 import social_pb2 as sopb
from tranca.v1 import social_pb2_grpc as sopb_grpc

from ..harness import scans
from ..harness.servers import server_and_client
from ..server.api_calls import refused
from ..server.conftest import Client
from .staking import Platform, ledger_problems, settle_all
from .tournament_helpers import PRESET, Organiser


@pytest.fixture
def ana() -> str:
    """The erased player's id: found nowhere else, so that the scan's every hit is
    theirs (a new one each test: PostgreSQL's tests share one database, and the scan
    reads all of it)."""
    return f"ana-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def ana_name(ana: str) -> str:
    return f"Ana Quitéria {ana[-6:]}"


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


def _renamed(move: dict[str, Any], ana: str, pseudonym: str) -> dict[str, Any]:
    """A change from her seat as the erasure leaves it: a join names the pseudonym."""
    action = dict(move["action"])
    if action.get("player_id") == ana:
        action.update(player_id=pseudonym, name=pseudonym)
    return {**move, "action": action}


async def play_a_tournament(org: Organiser, bank: Platform, ana: str) -> str:
    """A Swiss of two rounds with an entry fee, Ana one of four entrants; side B
    resigns at every table. Finished: its fees paid, its prizes paid."""
    for player in (ana, *OTHERS):
        await bank.grant(player, 500)
    done = await org.stub.CreateTournament(
        pb.CreateTournamentRequest(
            name="cup",
            format=pb.TOURNAMENT_FORMAT_SWISS,
            table_size=2,
            rules=gpb.Rules(preset=PRESET),
            rounds=2,
            entrants=[pb.Entrant(id=p, player_ids=[p]) for p in (ana, *OTHERS)],
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
    client: Client, server: Running, bank: Platform, ana: str, ana_name: str
) -> None:
    engine = server.store.engine
    stub = sessions(client)
    org = Organiser(client, server)
    tid = await play_a_tournament(org, bank, ana)
    policy = (await stub.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.max_stake = 50
    await stub.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    opened = await stub.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=ana, display_name=ana_name), metadata=client.app()
    )
    her = bearer(opened.session.access_token)
    await stub.UpdateProfile(
        spb.UpdateProfileRequest(display_name=ana_name, country="BR"), metadata=her
    )
    staked = await staked_game_ana_loses(client, bank, her)
    # A friend, and a player who blocked her: both sides of each pair name her.
    friend, blocker = f"friend-{ana[-12:][::-1]}", f"blocker-{ana[-12:][::-1]}"
    friends: sopb_grpc.SocialServiceAsyncStub = sopb_grpc.SocialServiceStub(client.channel)
    for other in (friend, blocker):
        await stub.CreatePlayerSession(
            spb.CreatePlayerSessionRequest(player_id=other, display_name="Other"),
            metadata=client.app(),
        )
    await friends.AddFriend(sopb.AddFriendRequest(player_id=friend), metadata=her)
    await friends.AcceptFriend(
        sopb.AcceptFriendRequest(player_id=ana, acting_player_id=friend), metadata=client.app()
    )
    await friends.BlockPlayer(
        sopb.BlockPlayerRequest(player_id=ana, acting_player_id=blocker), metadata=client.app()
    )
    # Her words: in the lobby (the friend replies and reports her), and to the friend.
    talk: chpb_grpc.ChatServiceAsyncStub = chpb_grpc.ChatServiceStub(client.channel)
    lobby = chpb.ChatRoom(kind=chpb.ROOM_KIND_LOBBY, id="main")
    friend_md = bearer(
        (
            await stub.CreatePlayerSession(
                spb.CreatePlayerSessionRequest(player_id=friend, display_name="Other"),
                metadata=client.app(),
            )
        ).session.access_token
    )
    said = await talk.SendChatMessage(
        chpb.SendChatMessageRequest(room=lobby, text=f"sou {ana_name}", client_message_id="1"),
        metadata=her,
    )
    await talk.SendChatMessage(
        chpb.SendChatMessageRequest(room=lobby, text="oi", client_message_id="2"),
        metadata=friend_md,
    )
    await talk.ReportChatMessage(
        chpb.ReportChatMessageRequest(room=lobby, message_id=said.message.id), metadata=friend_md
    )
    await talk.SendChatMessage(
        chpb.SendChatMessageRequest(
            room=chpb.ChatRoom(kind=chpb.ROOM_KIND_DIRECT, id=friend),
            text="oi",
            client_message_id="3",
        ),
        metadata=her,
    )
    await talk.MuteChatPlayer(chpb.MuteChatPlayerRequest(player_id=ana), metadata=friend_md)
    # A table she owns (without sitting at it) and her friend invited to it: the
    # table's owner and both sides of the invitation name her.
    owned = await client.stub.CreateGame(
        gpb.CreateGameRequest(
            rules=gpb.Rules(preset=PRESET), players=2, table=gpb.TableOptions(private=True)
        ),
        metadata=her,
    )
    await ipb_grpc.InvitationServiceStub(client.channel).InviteToTable(
        ipb.InviteToTableRequest(game_id=owned.game.game_id, player_id=friend), metadata=her
    )
    # A quick-play ticket asked for and cancelled: a ticket naming her, closed.
    tickets: qpb_grpc.QuickPlayServiceAsyncStub = qpb_grpc.QuickPlayServiceStub(client.channel)
    asked = await tickets.AskQuickPlay(
        qpb.AskQuickPlayRequest(preset=PRESET, players=2), metadata=her
    )
    await tickets.CancelTicket(
        qpb.CancelTicketRequest(ticket_id=asked.ticket.ticket_id), metadata=her
    )
    await settle_all(server.store)

    before = json.loads(
        (
            await stub.ExportPlayerData(
                spb.ExportPlayerDataRequest(player_id=ana), metadata=client.app()
            )
        ).json
    )
    assert len(before["games"]) == 3  # two tournament tables and the staked table
    assert before["profile"]["display_name"] == ana_name
    assert before["chips"]["entries"] and before["rating"] is not None
    assert before["presence"]["last_seen_ms"] > 0  # her session's calls saw her
    assert await text_hits(engine, (ana, ana_name)) != []  # the scan finds her now
    sums = await ledger_sums(engine, bank.app_id)
    others = {p: await bank.player(p) for p in OTHERS}
    replay_moves = len(
        (
            await client.stub.GetReplay(gpb.GetReplayRequest(game_id=staked), metadata=client.app())
        ).moves
    )
    standings_before = [(s.rank, s.points) for s in (await org.get(tid)).standings]

    erased = await stub.ErasePlayer(spb.ErasePlayerRequest(player_id=ana), metadata=client.app())
    pseudonym = erased.pseudonym
    assert pseudonym.startswith("erased-") and len(pseudonym) == len("erased-") + 16
    for changed in ("player_sessions", "player_profiles", "games", "move_log", "chip_entries"):
        assert erased.rows[changed] > 0, changed
    # Her friend and the player who blocked her no longer list her.
    assert erased.rows["player_relations"] == 3
    assert erased.rows["chat_messages"] > 0 and erased.rows["chat_moderation"] > 0
    kept = await talk.ListChatMessages(
        chpb.ListChatMessagesRequest(room=lobby), metadata=client.app()
    )
    assert [m.text for m in kept.messages] == ["oi"]  # the friend's words stay
    assert (erased.rows["table_invitations"], erased.rows["table_owners"]) == (1, 1)
    assert len(before["invitations"]) == 1
    assert erased.rows["player_presence"] == 1
    for other in (friend, blocker):
        listed = await friends.ListFriends(
            sopb.ListFriendsRequest(acting_player_id=other), metadata=client.app()
        )
        assert list(listed.friends) == []

    # Her id and her name are in no text column of any table.
    hits = await text_hits(engine, (ana, ana_name))
    assert hits == [], hits
    # What she held is gone, and under her id the server holds nothing.
    after = json.loads(
        (
            await stub.ExportPlayerData(
                spb.ExportPlayerDataRequest(player_id=ana), metadata=client.app()
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
        [_renamed(m, ana, pseudonym) for m in g["moves"]] for g in before["games"]
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
        stub.GetProfile(spb.GetProfileRequest(), metadata=her),
        grpc.StatusCode.UNAUTHENTICATED,
    )
    # Audited, by pseudonym; a second erasure of the id finds nothing.
    again = await stub.ErasePlayer(spb.ErasePlayerRequest(player_id=ana), metadata=client.app())
    assert dict(again.rows) == {}
    audit: apb_grpc.AdminServiceAsyncStub = apb_grpc.AdminServiceStub(client.channel)
    entries = (
        await audit.ListAuditEntries(apb.ListAuditEntriesRequest(), metadata=client.app())
    ).entries
    # The copy handed out before, the erasure, the pseudonym's copy, and the second
    # erasure (the copy of nothing asked for after the first is not one: nothing was
    # handed out); the first copy's entry names the pseudonym now.
    assert [(e.action, e.actor) for e in entries] == [
        ("export_player_data", "app"),
        ("erase_player", "app"),
        ("export_player_data", "app"),
        ("erase_player", "app"),
    ]
    assert [e.subject for e in entries][:2] == [pseudonym, pseudonym]
    assert json.loads(entries[1].detail_json)["rows"] == dict(erased.rows)
    assert erased.rows["audit_entries"] == 1
    assert await text_hits(engine, (ana, ana_name)) == []


async def test_a_player_still_playing_is_not_erased_and_nothing_changes(
    client: Client, server: Running, bank: Platform, ana: str
) -> None:
    game_id = await bank.create(2, competitive=False)
    await bank.join(game_id, 0, ana, "10.0.0.1")
    stub = sessions(client)
    await refused(
        stub.ErasePlayer(spb.ErasePlayerRequest(player_id=ana), metadata=client.app()),
        grpc.StatusCode.FAILED_PRECONDITION,
        "PLAYER_STILL_PLAYING",
    )
    assert await text_hits(server.store.engine, (ana,)) != []
    audit: apb_grpc.AdminServiceAsyncStub = apb_grpc.AdminServiceStub(client.channel)
    listed = await audit.ListAuditEntries(apb.ListAuditEntriesRequest(), metadata=client.app())
    assert list(listed.entries) == []


async def test_a_session_erases_itself_where_the_app_allows(
    client: Client, ana: str, ana_name: str
) -> None:
    stub = sessions(client)
    opened = await stub.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=ana, display_name=ana_name), metadata=client.app()
    )
    her = bearer(opened.session.access_token)
    await refused(
        stub.ErasePlayer(spb.ErasePlayerRequest(), metadata=her),
        grpc.StatusCode.PERMISSION_DENIED,
        "DATA_RIGHTS_DISABLED",
    )
    policy = (await stub.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.player_data_rights = True
    await stub.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    await refused(
        stub.ErasePlayer(spb.ErasePlayerRequest(player_id="bia-77"), metadata=her),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_YOUR_DATA",
    )
    erased = await stub.ErasePlayer(spb.ErasePlayerRequest(), metadata=her)
    assert erased.rows["player_sessions"] == 1
    audit: apb_grpc.AdminServiceAsyncStub = apb_grpc.AdminServiceStub(client.channel)
    (entry,) = (
        await audit.ListAuditEntries(apb.ListAuditEntriesRequest(), metadata=client.app())
    ).entries
    assert (entry.actor, entry.subject) == ("player", erased.pseudonym)
    await refused(
        stub.GetProfile(spb.GetProfileRequest(), metadata=her), grpc.StatusCode.UNAUTHENTICATED
    )


async def test_a_player_the_app_removed_is_erased_while_the_table_goes_on(
    client: Client, server: Running, bank: Platform, ana: str
) -> None:
    """Removed before the start, the player is named only among the table's removed
    players: the erasure is a change of its own (a new version, so that no replica
    writes the game at the version before), and the table fills and starts after."""
    game_id = await bank.create(2, competitive=False)
    await bank.join(game_id, 0, ana, "10.0.0.1")
    admin = apb_grpc.AdminServiceStub(client.channel)
    await admin.RemoveSeat(
        apb.RemoveSeatRequest(game_id=game_id, seat=0, request_id=uuid.uuid4().hex),
        metadata=client.app(),
    )
    view = (
        await client.stub.GetView(gpb.GetViewRequest(game_id=game_id), metadata=client.app())
    ).view
    erased = await sessions(client).ErasePlayer(
        spb.ErasePlayerRequest(player_id=ana), metadata=client.app()
    )
    assert erased.rows["games"] == 1
    after = (
        await client.stub.GetView(gpb.GetViewRequest(game_id=game_id), metadata=client.app())
    ).view
    assert after.version == view.version + 1
    for seat, player in enumerate(OTHERS[:2]):
        await bank.join(game_id, seat, player, f"10.0.0.{seat + 5}")
    await bank.start(game_id)
    assert await bank.status(game_id) == gpb.GAME_STATUS_PLAYING
    assert await text_hits(server.store.engine, (ana,)) == []
    assert await replays_rebuild_every_snapshot(server.store.engine, bank.app_id) == 1


async def test_an_account_merged_into_an_erased_one_is_erased_with_it(
    client: Client, server: Running, bank: Platform, ana: str
) -> None:
    """One person's second account, merged into the first, and the first erased: the
    second id (its chip history, the merge's records) goes too, under a pseudonym of
    its own, and the ledger still balances."""
    alias = f"alt-{uuid.uuid4().hex[:12]}"
    await bank.grant(alias, 100)  # grant id "g-<alias>-100": the id inside
    await bank.grant(ana, 50)
    admin = apb_grpc.AdminServiceStub(client.channel)
    await admin.MergePlayers(
        apb.MergePlayersRequest(merged_player_id=alias, kept_player_id=ana), metadata=client.app()
    )
    sums = await ledger_sums(server.store.engine, bank.app_id)
    erased = await sessions(client).ErasePlayer(
        spb.ErasePlayerRequest(player_id=ana), metadata=client.app()
    )
    assert await text_hits(server.store.engine, (ana, alias)) == []
    assert await ledger_problems(server, bank.app_id) == []
    assert await ledger_sums(server.store.engine, bank.app_id) == sums
    assert (await bank.player(erased.pseudonym)).chips == 150
    assert (await bank.player(f"{erased.pseudonym}.1")).chips == 0


async def test_an_erasures_ids_are_the_servers(client: Client, bank: Platform) -> None:
    """No app may give a player an id of the erasures' form: it would take an erased
    player's records over."""
    taken = "erased-0123456789abcdef"
    await refused(
        sessions(client).CreatePlayerSession(
            spb.CreatePlayerSessionRequest(player_id=taken), metadata=client.app()
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    await refused(bank.grant(taken, 10), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    game_id = await bank.create(2, competitive=False)
    await refused(
        bank.join(game_id, 0, taken, "10.0.0.1"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    await refused(
        apb_grpc.AdminServiceStub(client.channel).MergePlayers(
            apb.MergePlayersRequest(merged_player_id="someone", kept_player_id=taken),
            metadata=client.app(),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )


@pytest.fixture
async def unswept(db_url: str) -> AsyncIterator[tuple[Running, Client]]:
    """A server whose sweeper does not run: a finished match waits for its
    settlement until the test settles it."""
    async with server_and_client(db_url, sweep_interval=0) as both:
        yield both


async def test_a_finished_match_is_erased_once_it_is_settled(
    unswept: tuple[Running, Client], ana: str
) -> None:
    running, client = unswept
    bank = await Platform.of(client, running)
    table = await bank.table([ana, OTHERS[0]], competitive=True)
    await bank.resign(table, 0)
    assert await bank.status(table.game_id) == gpb.GAME_STATUS_FINISHED
    erase = sessions(client).ErasePlayer
    failed = await refused(
        erase(spb.ErasePlayerRequest(player_id=ana), metadata=client.app()),
        grpc.StatusCode.FAILED_PRECONDITION,
        "PLAYER_STILL_PLAYING",
    )
    assert table.game_id in (failed.details() or "")
    await bank.settle()  # ratings and ranking points written with the seat as it was
    erased = await erase(spb.ErasePlayerRequest(player_id=ana), metadata=client.app())
    assert erased.rows["player_ratings"] == 1 and erased.rows["ranking_awards"] == 1
    assert await text_hits(running.store.engine, (ana,)) == []


async def test_a_player_of_more_games_than_a_statement_names_is_erased_whole(
    client: Client, server: Running, bank: Platform, ana: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The games are read and rewritten in parts (``player_rows.GAMES_A_STATEMENT``,
    made 2 here): five tables the player left, all erased."""
    monkeypatch.setattr(player_rows, "GAMES_A_STATEMENT", 2)
    for _ in range(5):
        table = await bank.table([ana, OTHERS[0]], competitive=False)
        await bank.resign(table, 0)
    await settle_all(server.store)
    erased = await sessions(client).ErasePlayer(
        spb.ErasePlayerRequest(player_id=ana), metadata=client.app()
    )
    assert (erased.rows["games"], erased.rows["player_tokens"]) == (5, 5)
    assert erased.rows["move_log"] == 10  # each game's join, and its erase change
    assert await text_hits(server.store.engine, (ana,)) == []
    assert await replays_rebuild_every_snapshot(server.store.engine, bank.app_id) == 5
