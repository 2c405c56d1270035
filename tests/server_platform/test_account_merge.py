"""MergePlayers through a real channel, on SQLite and PostgreSQL (issue 38: "a merge of
two accounts is an explicit admin action, audited"): one person's two accounts,
each with an identity, a rated and staked game and chips, folded into one. The
ledger is checked with plain SQL, apart from the code that writes it; every game's
log still rebuilds its snapshot."""

from __future__ import annotations

import json
import time

import grpc
import pytest

from tests.harness.identity import custom_key, custom_token, public_jwk
from tranca.server import Running
from tranca.v1 import admin_pb2 as apb
from tranca.v1 import admin_pb2_grpc as apb_grpc
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from ..server.api_calls import refused
from ..server.conftest import Client
from .staking import Platform, ledger_problems
from .test_player_erasure import ledger_sums, replays_rebuild_every_snapshot

MERGED, KEPT = "m-guest", "k-main"


@pytest.fixture
async def bank(client: Client, server: Running) -> Platform:
    return await Platform.of(client, server)


def admin(client: Client) -> apb_grpc.AdminServiceAsyncStub:
    return apb_grpc.AdminServiceStub(client.channel)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def lost_game(client: Client, bank: Platform, loser: str, winner: str, stake: int) -> str:
    """A competitive table, ``loser`` at seat 0 resigning to ``winner``; settled."""
    table = await bank.table([loser, winner], stake=stake)
    await bank.resign(table, 0)
    await bank.settle()
    return table.game_id


async def test_two_accounts_of_one_person_become_one(
    client: Client, server: Running, bank: Platform
) -> None:
    stub: spb_grpc.SessionServiceAsyncStub = spb_grpc.SessionServiceStub(client.channel)
    key = custom_key("EdDSA")
    policy = (await stub.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.custom_token_keys.append(
        spb.CustomTokenKey(key_id="backend-1", algorithm="EdDSA", public_key=public_jwk(key))
    )
    await stub.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    now = int(time.time())
    signed = await stub.SignInWithIdentity(
        spb.SignInWithIdentityRequest(
            app_id=bank.app_id,
            provider="custom",
            id_token=custom_token(key, "EdDSA", bank.app_id, MERGED, now),
        )
    )
    assert signed.session.player_id == MERGED
    kept_session = await stub.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=KEPT, display_name="Kim"), metadata=client.app()
    )
    await stub.UpdateProfile(
        spb.UpdateProfileRequest(display_name="Kim", country="BR"),
        metadata=bearer(kept_session.session.access_token),
    )
    await bank.grant(MERGED, 500)
    await bank.grant(KEPT, 300)
    for opponent in ("opp-1", "opp-2"):
        await bank.grant(opponent, 100)
    merged_game = await lost_game(client, bank, MERGED, "opp-1", 50)  # MERGED loses 50
    await lost_game(client, bank, "opp-2", KEPT, 50)  # KEPT wins 25 (the house takes 25 %)
    before = {p: await bank.player(p) for p in (MERGED, KEPT, "opp-1", "opp-2")}
    assert (before[MERGED].chips, before[KEPT].chips) == (450, 325)
    sums = await ledger_sums(server.store.engine, bank.app_id)

    done = await admin(client).MergePlayers(
        apb.MergePlayersRequest(merged_player_id=MERGED, kept_player_id=KEPT),
        metadata=client.app(),
    )
    rows = dict(done.rows)
    assert rows["player_identities"] == 1 and rows["player_sessions"] == 1
    assert rows["games"] == 1 and rows["chip_entries"] == 2 and rows["player_ratings"] == 2
    assert "player_profiles" not in rows  # the kept player's profile stays, the other had none

    # The merged identity signs in as the kept player; the merged session has ended.
    again = await stub.SignInWithIdentity(
        spb.SignInWithIdentityRequest(
            app_id=bank.app_id,
            provider="custom",
            id_token=custom_token(key, "EdDSA", bank.app_id, MERGED, now + 1),
        )
    )
    assert (again.session.player_id, again.new_player) == (KEPT, False)
    await refused(
        stub.GetProfile(spb.GetProfileRequest(), metadata=bearer(signed.session.access_token)),
        grpc.StatusCode.UNAUTHENTICATED,
    )
    # Chips: one transfer; the ledger balances with the same sums.
    after = {p: await bank.player(p) for p in (MERGED, KEPT, "opp-1", "opp-2")}
    assert (after[MERGED].chips, after[KEPT].chips) == (0, 450 + 325)
    assert [e.purpose for e in await bank.entries(KEPT)][:1] == ["merge"]
    assert await ledger_problems(server, bank.app_id) == []
    # The same sums, and the transfer's two entries more.
    assert await ledger_sums(server.store.engine, bank.app_id) == {
        **sums,
        "entry_count": sums["entry_count"] + 2,
    }
    # One rating: the better informed (a tie: the kept player's), games and wins added.
    assert (after[KEPT].matches, after[KEPT].wins) == (2, 1)
    assert after[KEPT].rating.mu == before[KEPT].rating.mu
    assert (after["opp-1"], after["opp-2"]) == (before["opp-1"], before["opp-2"])
    # The merged player's seat is the kept player's; the name it was taken with stays.
    view = (
        await client.stub.GetView(gpb.GetViewRequest(game_id=merged_game), metadata=client.app())
    ).view
    assert (view.seats[0].player_id, view.seats[0].player_name) == (KEPT, MERGED)
    replay = await client.stub.GetReplay(
        gpb.GetReplayRequest(game_id=merged_game), metadata=client.app()
    )
    assert (replay.moves[-1].move.text, replay.moves[-1].actor) == ("merge", "app")
    assert await replays_rebuild_every_snapshot(server.store.engine, bank.app_id) == 2
    exported = json.loads(
        (
            await stub.ExportPlayerData(
                spb.ExportPlayerDataRequest(player_id=KEPT), metadata=client.app()
            )
        ).json
    )
    assert merged_game in [g["game_id"] for g in exported["games"]]
    assert [i["subject"] for i in exported["identities"]] == [MERGED]
    # Audited; a second merge of the id finds nothing.
    again_done = await admin(client).MergePlayers(
        apb.MergePlayersRequest(merged_player_id=MERGED, kept_player_id=KEPT),
        metadata=client.app(),
    )
    assert dict(again_done.rows) == {}
    entries = (
        await admin(client).ListAuditEntries(apb.ListAuditEntriesRequest(), metadata=client.app())
    ).entries
    assert [(e.action, e.actor, e.subject) for e in entries] == [
        ("merge_players", "app", KEPT),
        ("export_player_data", "app", KEPT),
        ("merge_players", "app", KEPT),
    ]
    assert json.loads(entries[0].detail_json) == {"merged": MERGED, "rows": rows}


async def test_accounts_that_played_together_or_still_play_are_not_merged(
    client: Client, server: Running, bank: Platform
) -> None:
    await bank.grant("p-a", 100)
    await bank.grant("p-b", 100)
    shared = await lost_game(client, bank, "p-a", "p-b", 10)
    sums = await ledger_sums(server.store.engine, bank.app_id)
    merge = admin(client).MergePlayers
    failed = await refused(
        merge(
            apb.MergePlayersRequest(merged_player_id="p-a", kept_player_id="p-b"),
            metadata=client.app(),
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "ACCOUNTS_SHARED_A_TABLE",
    )
    assert shared in (failed.details() or "")
    waiting = await bank.table(["p-c", "p-d"], start=False, competitive=False)
    await refused(
        merge(
            apb.MergePlayersRequest(merged_player_id="p-a", kept_player_id="p-c"),
            metadata=client.app(),
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "PLAYER_STILL_PLAYING",
    )
    assert waiting.game_id
    await refused(
        merge(
            apb.MergePlayersRequest(merged_player_id="p-a", kept_player_id="p-a"),
            metadata=client.app(),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    session = await spb_grpc.SessionServiceStub(client.channel).CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id="p-e"), metadata=client.app()
    )
    await refused(
        merge(
            apb.MergePlayersRequest(merged_player_id="p-a", kept_player_id="p-e"),
            metadata=bearer(session.session.access_token),
        ),
        grpc.StatusCode.PERMISSION_DENIED,
        "APP_KEY_REQUIRED",
    )
    # Nothing changed, nothing audited.
    assert await ledger_sums(server.store.engine, bank.app_id) == sums
    assert (await bank.player("p-a")).chips == 90
    listed = await admin(client).ListAuditEntries(
        apb.ListAuditEntriesRequest(), metadata=client.app()
    )
    assert list(listed.entries) == []
