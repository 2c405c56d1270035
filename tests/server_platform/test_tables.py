"""Tables and matches through the gRPC API (issue 7, item 1): a table's options as
003's "Opciones de mesa" lists them, who may sit (private tables, competitive tables,
spectators), and a match of several deals to the table's point limit with the
dealer rotating."""

from __future__ import annotations

import uuid

import grpc
import pytest

from tranca.api.convert import move_to_pb
from tranca.server import Running
from tranca.v1 import game_pb2 as pb
from tranca_rules.bots import GreedyBot, bot_move

from ..server.api_calls import reason_of, refused
from ..server.conftest import Client

Code = grpc.StatusCode
MAX_MOVES = 3000  # a match that has not ended by then is a bug

EVERY_OPTION = pb.TableOptions(
    turn_seconds=30,
    robot_grace_seconds=120,
    private=True,
    competitive=True,
    stake=0,
    express=False,
    point_limit=1500,
    verifiable=True,
    annulment_allowed=True,
)


async def create(
    client: Client,
    table: pb.TableOptions | None = None,
    players: int = 2,
    seed: int = 7,
    spectators: bool = False,
    preset: str = "tranca-000",
) -> pb.CreateGameResponse:
    return await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset=preset),
            players=players,
            seed=seed,
            table=table,
            spectators_allowed=spectators,
        ),
        metadata=client.app(),
    )


async def join(
    client: Client, game_id: str, seat: int, player_id: str = "", invite: str = ""
) -> pb.JoinGameResponse:
    return await client.stub.JoinGame(
        pb.JoinGameRequest(
            game_id=game_id,
            seat=seat,
            player_name=f"p{seat}",
            player_id=player_id,
            invite_code=invite,
        ),
        metadata=client.app(),
    )


async def seat_all(
    client: Client, game_id: str, players: int, invite: str = "", competitive: bool = False
) -> list[str]:
    """Every seat taken; the tokens by seat."""
    tokens = []
    for seat in range(players):
        player_id = f"player-{uuid.uuid4().hex[:8]}" if competitive else ""
        tokens.append((await join(client, game_id, seat, player_id, invite)).player_token)
    return tokens


async def start(client: Client, game_id: str) -> pb.GameView:
    started = await client.stub.StartGame(
        pb.StartGameRequest(game_id=game_id), metadata=client.app()
    )
    return started.view


def greedy_bots(seed: int, players: int) -> list[GreedyBot]:
    return [GreedyBot(seed * 10 + seat) for seat in range(players)]


async def play_by_bots(
    server: Running,
    client: Client,
    game_id: str,
    tokens: list[str],
    bots: list[GreedyBot],
    until_deal: int | None = None,
) -> pb.GameView:
    """``bots`` play each seat through the API (each move with its seat's token),
    until the match ends or deal ``until_deal`` starts. The bots read the server's
    own state to choose: the test is of the service, not of a client's bot."""
    view = pb.GameView()
    for _ in range(MAX_MOVES):
        game = await server.store.game(game_id)
        g = game.state
        if g.status != "playing" or (until_deal is not None and g.deal_number >= until_deal):
            got = await client.stub.GetView(
                pb.GetViewRequest(game_id=game_id), metadata=client.app()
            )
            return got.view
        deal = g.deal
        assert deal is not None
        seat = deal.turn
        done = await client.stub.SubmitMove(
            pb.SubmitMoveRequest(
                game_id=game_id,
                expected_version=game.version,
                request_id=uuid.uuid4().hex,
                move=move_to_pb(bot_move(bots[seat], deal)),
            ),
            metadata=Client.player(tokens[seat]),
        )
        view = done.view
    raise AssertionError(f"the match did not end in {MAX_MOVES} moves (last: v{view.version})")


# ----- options ---------------------------------------------------------------------------


async def test_table_options_round_trip_in_the_summary_the_view_and_the_list(
    client: Client,
) -> None:
    created = await create(client, EVERY_OPTION, spectators=True)
    assert created.game.table == EVERY_OPTION
    gid = created.game.game_id
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    assert view.table == EVERY_OPTION
    # The point limit is the match's target score (003 "Límite de puntos").
    assert view.rules.overrides["target_score"].int_value == 1500
    listed = await client.stub.ListGames(pb.ListGamesRequest(), metadata=client.app())
    assert [g.table for g in listed.games if g.game_id == gid] == [EVERY_OPTION]
    # No options at all: the defaults (practice, public, no limit, no robots).
    plain = await create(client)
    assert plain.game.table == pb.TableOptions() and not plain.invite_code


async def test_express_is_a_single_deal_and_the_point_limit_sets_the_target(
    client: Client,
) -> None:
    # 003: "Las partidas se pueden jugar a un juego, 2000 puntos o 3000 puntos"; an
    # express table ("Exprés") is the single deal. tranca-003 plays to 2000 by itself.
    express = await create(client, pb.TableOptions(express=True), preset="tranca-003")
    view = (
        await client.stub.GetView(
            pb.GetViewRequest(game_id=express.game.game_id), metadata=client.app()
        )
    ).view
    assert "target_score" in view.rules.overrides
    assert view.rules.overrides["target_score"].int_value == 0
    assert view.table.express
    # 003: "Límite de puntos: Determina el final de la partida."
    limited = await create(client, pb.TableOptions(point_limit=700))
    view = (
        await client.stub.GetView(
            pb.GetViewRequest(game_id=limited.game.game_id), metadata=client.app()
        )
    ).view
    assert "target_score" in view.rules.overrides
    assert view.rules.overrides["target_score"].int_value == 700
    # Without either option the preset's own length stands: no override.
    plain = await create(client)
    view = (
        await client.stub.GetView(
            pb.GetViewRequest(game_id=plain.game.game_id), metadata=client.app()
        )
    ).view
    assert "target_score" not in view.rules.overrides


@pytest.mark.parametrize(
    ("options", "why"),
    [
        # 003: practice ("Desactiva esta opción para practicar") plays for no chips.
        (pb.TableOptions(stake=100), "competitive"),
        (pb.TableOptions(express=True, point_limit=500), "express"),
        (pb.TableOptions(point_limit=-1), "point_limit"),
        (pb.TableOptions(turn_seconds=-5), "turn_seconds"),
        (pb.TableOptions(competitive=True, stake=-1), "stake"),
    ],
)
async def test_incoherent_options_are_refused(
    client: Client, options: pb.TableOptions, why: str
) -> None:
    err = await refused(create(client, options), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert why in (err.details() or "")


# ----- who may sit -----------------------------------------------------------------------


async def test_a_private_table_seats_only_players_with_its_invite_code(client: Client) -> None:
    # 003 "Mesa privada": "sólo podrán sentarse jugadores que hayas invitado".
    created = await create(client, pb.TableOptions(private=True), spectators=True)
    gid, code = created.game.game_id, created.invite_code
    assert code
    await refused(join(client, gid, 0), Code.PERMISSION_DENIED, "INVITE_REQUIRED")
    await refused(
        join(client, gid, 0, invite=code + "x"), Code.PERMISSION_DENIED, "INVITE_REQUIRED"
    )
    await refused(
        client.stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, spectator=True, player_name="w"),
            metadata=client.app(),
        ),
        Code.PERMISSION_DENIED,
        "INVITE_REQUIRED",
    )
    joined = await join(client, gid, 0, invite=code)
    assert joined.seat == 0 and joined.player_token
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    assert view.seats[0].taken and not view.seats[1].taken
    # The code is for this table only.
    other = await create(client, pb.TableOptions(private=True))
    await refused(
        join(client, other.game.game_id, 0, invite=code), Code.PERMISSION_DENIED, "INVITE_REQUIRED"
    )


async def test_open_tables_are_public_and_waiting_for_players(client: Client) -> None:
    public = (await create(client)).game.game_id
    private = (await create(client, pb.TableOptions(private=True))).game.game_id
    full = (await create(client)).game.game_id
    await seat_all(client, full, 2)
    started = (await create(client)).game.game_id
    await seat_all(client, started, 2)
    await start(client, started)
    half = (await create(client)).game.game_id
    await join(client, half, 1)

    listed = await client.stub.ListGames(pb.ListGamesRequest(open_only=True), metadata=client.app())
    ids = [g.game_id for g in listed.games]
    assert public in ids and half in ids
    assert private not in ids and full not in ids and started not in ids
    assert all(
        g.status == pb.GAME_STATUS_WAITING and g.seats_taken < g.players for g in listed.games
    )
    everything = await client.stub.ListGames(pb.ListGamesRequest(), metadata=client.app())
    assert {public, private, full, started, half} <= {g.game_id for g in everything.games}


async def test_a_competitive_table_needs_a_player_id_and_one_seat_per_player(
    client: Client,
) -> None:
    # 003: points and chips belong to a registered player ("es necesario estar registrado").
    gid = (await create(client, pb.TableOptions(competitive=True))).game.game_id
    await refused(join(client, gid, 0), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    await join(client, gid, 0, player_id="alice")
    err = await refused(join(client, gid, 1, player_id="alice"), Code.FAILED_PRECONDITION)
    assert reason_of(err) == "PLAYER_SEATED"
    await join(client, gid, 1, player_id="bob")
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    assert [s.player_id for s in view.seats] == ["alice", "bob"]
    # A practice table takes a player once per table too, when the app names them.
    practice = (await create(client)).game.game_id
    await join(client, practice, 0, player_id="carol")
    await refused(
        join(client, practice, 1, player_id="carol"), Code.FAILED_PRECONDITION, "PLAYER_SEATED"
    )


@pytest.mark.parametrize("allowed", [True, False])
async def test_spectators_sit_only_where_the_table_allows_them(
    client: Client, allowed: bool
) -> None:
    # 003 "Permitir público": "Otras personas podrán entrar en la mesa para ver la partida".
    gid = (await create(client, spectators=allowed)).game.game_id
    call = client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, spectator=True, player_name="watcher"),
        metadata=client.app(),
    )
    if not allowed:
        await refused(call, Code.PERMISSION_DENIED, "NO_SPECTATORS")
        return
    joined = await call
    assert joined.seat == -1
    view = (
        await client.stub.GetView(
            pb.GetViewRequest(game_id=gid), metadata=Client.player(joined.player_token)
        )
    ).view
    assert view.seat == -1 and not any(s.taken for s in view.seats)


# ----- a match of several deals ---------------------------------------------------------


async def test_a_match_is_played_deal_after_deal_to_the_point_limit_with_the_dealer_rotating(
    server: Running, client: Client
) -> None:
    # Seed 3 with a 500-point limit takes greedy bots three deals (checked below).
    seed = 3
    table = pb.TableOptions(point_limit=500, annulment_allowed=True)
    gid = (await create(client, table, seed=seed)).game.game_id
    tokens = await seat_all(client, gid, 2)
    first = await start(client, gid)
    assert first.deal_number == 1
    # A vote to annul stands for the deal it was cast in: deal 2 starts with none.
    vote = await client.stub.VoteAnnul(
        pb.VoteAnnulRequest(game_id=gid, request_id="v1"), metadata=Client.player(tokens[0])
    )
    assert list(vote.votes) == [0] and not vote.annulled
    bots = greedy_bots(seed, 2)
    second = await play_by_bots(server, client, gid, tokens, bots, until_deal=2)
    assert second.deal_number == 2 and second.status == pb.GAME_STATUS_PLAYING
    assert not any(s.annul_vote for s in second.seats)
    assert second.last_deal.deal_number == 1
    end = await play_by_bots(server, client, gid, tokens, bots)
    assert end.status == pb.GAME_STATUS_FINISHED
    assert end.match_result.reason == "target_reached"

    replay = await client.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=client.app())
    deals = list(replay.deals)
    assert [d.deal_number for d in deals] == [1, 2, 3]
    # 003 deals clockwise in turn: with two seats the deal alternates.
    dealers = [d.dealer for d in deals]
    assert dealers[0] == first.dealer
    assert dealers == [(dealers[0] + i) % 2 for i in range(3)]
    # The match totals are the sum of the deals', and only the last deal reaches 500.
    totals = [0, 0]
    for i, d in enumerate(deals):
        assert max(totals) < 500, f"the match went on after deal {i} reached the limit"
        for score in d.result.scores:
            totals[score.side] += score.total
    assert list(end.match_totals) == totals and max(totals) >= 500
    assert end.match_result.winner_side == totals.index(max(totals))
    # Every deal's first move is made by the seat left of its dealer (000/003). A logged
    # move carries the deal number after it, so the move that ends a deal is numbered
    # with the next one: a deal's first move is the one after its number first shows.
    played = [m for m in replay.moves if m.move.WhichOneof("kind") is not None]
    first_moves = {1: played[0].seat}
    for i in range(1, len(played) - 1):
        if played[i].deal_number > played[i - 1].deal_number:  # played[i] ended a deal
            first_moves[played[i].deal_number] = played[i + 1].seat
    assert first_moves == {d.deal_number: (d.dealer + 1) % 2 for d in deals}
