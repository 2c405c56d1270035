"""Verifiable deals through the gRPC API (issue 7, item 9): the commitment published
before each deal, entropy added before the start, the seed revealed once the deal is
over, and the standalone check (clients/verify_deal.py) run on a real game's replay."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict

from tranca.server import Running
from tranca.table import fairness
from tranca.v1 import game_pb2 as pb
from tranca_rules.presets import PRESETS

from ..server.api_calls import refused
from ..server.conftest import Client
from ..server.test_games import rebuild_problems
from .test_tables import create, greedy_bots, play_by_bots, seat_all, start

Code = grpc.StatusCode
SCRIPT = Path(__file__).resolve().parents[2] / "clients" / "verify_deal.py"
VERIFIABLE = pb.TableOptions(verifiable=True, point_limit=100_000)


def run_script(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    # -I: isolated, so the script cannot lean on the project's packages.
    return subprocess.run(
        [sys.executable, "-I", str(SCRIPT), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


async def add_entropy(
    client: Client, game_id: str, text: str, token: str | None = None, request_id: str = ""
) -> pb.AddEntropyResponse:
    metadata = client.app() if token is None else Client.player(token)
    return await client.stub.AddEntropy(
        pb.AddEntropyRequest(game_id=game_id, entropy=text, request_id=request_id),
        metadata=metadata,
    )


async def view_of(client: Client, game_id: str, token: str | None = None) -> pb.GameView:
    metadata = client.app() if token is None else Client.player(token)
    return (await client.stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=metadata)).view


async def replay_of(client: Client, game_id: str) -> pb.GetReplayResponse:
    return await client.stub.GetReplay(pb.GetReplayRequest(game_id=game_id), metadata=client.app())


def dealt_hand(deck: list[str], players: int, dealer: int, seat: int, hand_size: int) -> list[str]:
    """The cards ``seat`` is dealt from ``deck``: one at a time, starting left of the
    dealer (state.deal_cards)."""
    offset = (seat - (dealer + 1)) % players
    return sorted(deck[i * players + offset] for i in range(hand_size))


async def test_a_verifiable_table_commits_takes_entropy_deals_and_reveals(
    server: Running, client: Client, tmp_path: Path
) -> None:
    created = await create(client, VERIFIABLE, spectators=True)
    gid = created.game.game_id
    assert created.game.table.verifiable
    # Before the start: deal 1's commitment, no entropy yet.
    published = (await view_of(client, gid)).commitment
    assert published.deal_number == 1 and len(published.commitment) == 64
    assert not published.entropy
    tokens = await seat_all(client, gid, 2)

    # Entropy from a seat and from the app (the organiser); the commitment stays.
    mine = await add_entropy(client, gid, "alice: 1234", tokens[0], request_id="e1")
    assert list(mine.commitment.entropy) == ["alice: 1234"]
    assert mine.commitment.commitment == published.commitment
    organiser = await add_entropy(client, gid, "round 3, table 7")
    assert list(organiser.commitment.entropy) == ["alice: 1234", "round 3, table 7"]
    # A retry of the same request adds nothing.
    assert await add_entropy(client, gid, "alice: 1234", tokens[0], request_id="e1") == mine
    seen = (await view_of(client, gid, tokens[1])).commitment
    assert list(seen.entropy) == ["alice: 1234", "round 3, table 7"]
    assert seen.commitment == published.commitment
    entropy = list(seen.entropy)

    view = await start(client, gid)
    assert view.commitment.deal_number == 1 and view.commitment.commitment == published.commitment
    # No entropy once dealt: the seed is fixed.
    await refused(add_entropy(client, gid, "late", tokens[1]), Code.FAILED_PRECONDITION)
    # The deal under way stays hidden.
    assert not (await replay_of(client, gid)).deals
    # The dealer's hand as dealt (the first player may lay red threes at once).
    dealer = view.dealer
    dealer_hand = sorted((await view_of(client, gid, tokens[dealer])).hand)

    # Deal 1 played to its end by bots: deal 2 has its own commitment.
    second = await play_by_bots(server, client, gid, tokens, greedy_bots(5, 2), until_deal=2)
    assert second.commitment.deal_number == 2
    assert second.commitment.commitment != published.commitment
    second_dealer_hand = sorted((await view_of(client, gid, tokens[second.dealer])).hand)
    replay = await replay_of(client, gid)
    assert [d.deal_number for d in replay.deals] == [1]
    deal1 = replay.deals[0]
    reveal = deal1.reveal
    assert reveal.deal_number == 1 and reveal.commitment == published.commitment
    assert list(reveal.entropy) == entropy
    seed_bytes = bytes.fromhex(reveal.server_seed)
    assert hashlib.sha256(seed_bytes).hexdigest() == reveal.commitment
    assert reveal.seed == fairness.derive_seed(seed_bytes, entropy)
    # The revealed deck is the one the table was dealt.
    hand_size = PRESETS["tranca-000"].hand_size
    assert dealt_hand(list(deal1.deck), 2, dealer, dealer, hand_size) == dealer_hand
    # The seeds form a chain: deal 2's commitment is deal 1's revealed seed, so the
    # commitment published before the start binds deal 2 too.
    assert second.commitment.commitment == reveal.server_seed

    # The match ends inside deal 2 (a resignation): nothing is hidden any more.
    await client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=gid, request_id="bye"), metadata=Client.player(tokens[0])
    )
    end = await view_of(client, gid)
    assert end.status == pb.GAME_STATUS_FINISHED and not end.HasField("commitment")
    replay = await replay_of(client, gid)
    assert [d.deal_number for d in replay.deals] == [1, 2]
    assert replay.deals[1].reveal.commitment == second.commitment.commitment
    assert not replay.deals[1].HasField("result")
    deal2 = replay.deals[1]
    assert deal2.dealer == second.dealer
    assert dealt_hand(list(deal2.deck), 2, deal2.dealer, deal2.dealer, hand_size) == (
        second_dealer_hand
    )

    # Folded from its log, the game is its stored snapshot (its decks are the setup's).
    assert await rebuild_problems(server.store, gid) == []

    # The standalone check, on the replay as JSON, and with the commitment and the
    # entropy each player saw before the start.
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(MessageToDict(replay)))
    out = run_script(
        "--replay-json",
        str(path),
        "--commitment",
        published.commitment,
        "--entropy",
        "alice: 1234",
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[-1] == "VERIFIED"
    assert "deal 2: commitment is deal 1's server seed" in out.stdout
    # The other JSON style (proto field names), from standard input.
    named = json.dumps(MessageToDict(replay, preserving_proto_field_name=True))
    assert run_script("--replay-json", "-", stdin=named).returncode == 0

    # One revealed deal, checked with the reveal's own fields.
    flags = ["--commitment", reveal.commitment, "--server-seed", reveal.server_seed]
    flags += [f"--entropy={e}" for e in entropy] + ["--deck-size", "104"]
    single = run_script(*flags, "--deck", " ".join(deal1.deck), "--seed", str(reveal.seed))
    assert single.returncode == 0, single.stdout + single.stderr

    # Tampering is caught (exit status 1).
    def tampered(change: Any) -> subprocess.CompletedProcess[str]:
        data = MessageToDict(replay)
        change(data)
        path.write_text(json.dumps(data))
        return run_script("--replay-json", str(path))

    other_seed = bytes([seed_bytes[0] ^ 1]) + seed_bytes[1:]

    def swap_cards(d: dict[str, Any]) -> None:
        deck = d["deals"][0]["deck"]
        i = next(i for i in range(1, len(deck)) if deck[i] != deck[0])
        deck[0], deck[i] = deck[i], deck[0]

    cases = {
        "server seed": lambda d: d["deals"][0]["reveal"].update(serverSeed=other_seed.hex()),
        "seed": lambda d: d["deals"][0]["reveal"].update(seed=str(reveal.seed + 1)),
        "entropy": lambda d: d["deals"][0]["reveal"].update(entropy=["alice: 1235"]),
        "deck": swap_cards,
        "chain": lambda d: d["deals"][1]["reveal"].update(
            commitment=hashlib.sha256(b"x").hexdigest()
        ),
    }
    for name, change in cases.items():
        out = tampered(change)
        assert out.returncode == 1, (name, out.stdout, out.stderr)
        assert out.stdout.endswith("NOT VERIFIED\n"), name
    # Another commitment than the one published, or entropy left out: not verified.
    path.write_text(json.dumps(MessageToDict(replay)))
    assert run_script("--replay-json", str(path), "--commitment", "ab" * 32).returncode == 1
    assert run_script("--replay-json", str(path), "--entropy", "mallory").returncode == 1
    # A replay with nothing revealed is bad input.
    path.write_text(json.dumps({"deals": []}))
    assert run_script("--replay-json", str(path)).returncode == 2


async def test_entropy_is_for_verifiable_tables_before_the_start_by_seats_or_the_app(
    client: Client,
) -> None:
    plain = (await create(client)).game.game_id
    await refused(add_entropy(client, plain, "x"), Code.FAILED_PRECONDITION, "NOT_VERIFIABLE")
    assert not (await view_of(client, plain)).HasField("commitment")

    gid = (await create(client, VERIFIABLE, spectators=True)).game.game_id
    await refused(add_entropy(client, gid, ""), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    await refused(add_entropy(client, gid, "é" * 129), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    watcher = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, spectator=True, player_name="w"), metadata=client.app()
    )
    await refused(add_entropy(client, gid, "x", watcher.player_token), Code.PERMISSION_DENIED)
    for i in range(64):
        await add_entropy(client, gid, f"e{i}")
    await refused(add_entropy(client, gid, "one more"), Code.FAILED_PRECONDITION)
    assert len((await view_of(client, gid)).commitment.entropy) == 64
    # Two tables never share a commitment (each has its own secret).
    other = (await create(client, VERIFIABLE)).game.game_id
    first = (await view_of(client, gid)).commitment.commitment
    assert (await view_of(client, other)).commitment.commitment != first


async def test_a_verifiable_table_takes_no_fixed_deck(client: Client) -> None:
    deck = [c for c in fairness.deal_reveal("00" * 32, 1, [], False).deck.split()]
    await refused(
        client.stub.CreateGame(
            pb.CreateGameRequest(
                rules=pb.Rules(preset="tranca-000"), players=2, deck=deck, table=VERIFIABLE
            ),
            metadata=client.app(),
        ),
        Code.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )


def test_the_deal_seeds_form_a_chain_from_the_first_commitment() -> None:
    secret = fairness.new_server_secret()
    seeds = [fairness.deal_server_seed(secret, k) for k in range(1, 6)]
    assert len(set(seeds)) == 5
    for k in range(1, 5):
        assert fairness.deal_commitment(secret, k + 1) == seeds[k - 1].hex()
        assert hashlib.sha256(seeds[k]).digest() == seeds[k - 1]
    # Beyond the chain each deal still has its own committed seed.
    far = fairness.CHAINED_DEALS + 1
    assert fairness.deal_server_seed(secret, far) != fairness.deal_server_seed(secret, far + 1)
    assert len(fairness.deal_server_seed(secret, far)) == 32
