"""TournamentService's 4-player tables and duplicate deals through a real gRPC channel,
on SQLite and PostgreSQL: every table dealt the same, the organiser's decks, sides
swapped at even tables, and a round's cards hidden while any of its tables plays.

Games end by resignation (LeaveGame with a seat's token once the game is under way)
and reach the tournament through the settlement, as on a running server.
"""

from __future__ import annotations

import uuid

import grpc
import pytest

from tranca.platform.duplicate import DuplicateRound, check_tables
from tranca.server import Running
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import platform_pb2 as pb
from tranca_rules.cards import card_text, parse_card, shuffled_deck

from ..server.conftest import Client
from .tournament_helpers import (
    PRESET,
    Code,
    Organiser,
    check_standings,
    error_reason,
    grant,
    view_as,
)


@pytest.fixture
async def org(client: Client, server: Running) -> Organiser:
    return Organiser(client, server)


# ----- 4-player tables and duplicate deals ----------------------------------------------------


async def hands(org: Organiser, table: pb.TournamentTable) -> list[list[str]]:
    out = []
    for seat in table.seats:
        view = await org.client.stub.GetView(
            gpb.GetViewRequest(game_id=table.game_id),
            metadata=org.client.player(seat.player_token),
        )
        assert view.view.status == gpb.GAME_STATUS_PLAYING
        out.append(list(view.view.hand))
    return out


async def test_duplicate_round_deals_every_partnership_table_the_same(org: Organiser) -> None:
    """Issue 7: "a 4-player duplicate round": every table of the round is dealt the
    same cards, and pairs sit as partners (side A on seats 0 and 2, side B at the
    even tables, whose directions are swapped)."""
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 6, table_size=4, duplicate=True)
    tid = created.tournament_id
    assert created.duplicate
    rnd = await org.start(tid, 1)
    assert len(rnd.tables) == 3 and not rnd.deck  # shown once the round is over
    entrants = {e.id: list(e.player_ids) for e in created.entrants}
    for tb in rnd.tables:
        seats = [s.player_id for s in tb.seats]
        even, odd = (
            (tb.entrant_b, tb.entrant_a) if tb.number % 2 == 0 else (tb.entrant_a, tb.entrant_b)
        )
        assert seats[0::2] == entrants[even] and seats[1::2] == entrants[odd]
    dealt = [await hands(org, tb) for tb in rnd.tables]
    assert dealt[0] == dealt[1] == dealt[2]
    # Each game was set up with the round's deck and dealt from it (checked from its
    # stored setup and log, as platform.duplicate does for an organiser).
    store = org.server.store
    setups = {tb.game_id: (await store.setup_of(tb.game_id)) for tb in rnd.tables}
    first = setups[rnd.tables[0].game_id]
    assert first.deck is not None and len(first.deck) in (104, 108)
    deck = tuple(first.deck)
    dup = DuplicateRound(1, first.rules.jokers, deck, first.seed)
    logs = {gid: [r.action for r in await store.log(gid)] for gid in setups}
    checks = check_tables(dup, {gid: (setups[gid], logs[gid]) for gid in setups})
    assert all(c.ok for c in checks), checks
    # The next round is dealt another deck, again the same at every table.
    await org.play_round(tid, rnd)
    rnd2 = await org.start(tid, 2)
    assert (await store.setup_of(rnd2.tables[0].game_id)).deck != first.deck
    dealt2 = [await hands(org, tb) for tb in rnd2.tables]
    assert dealt2[0] == dealt2[1] == dealt2[2] != dealt[0]
    t = await org.get(tid)
    # Round 1 is over: its deck is shown; round 2 is being played: its deck is not.
    assert [list(r.deck) for r in t.rounds] == [[card_text(c) for c in deck], []]


async def test_partnership_tables_without_duplicate_deal_differently(org: Organiser) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, table_size=4)
    rnd = await org.start(created.tournament_id, 1)
    assert not rnd.deck
    one, two = [await hands(org, tb) for tb in rnd.tables]
    assert one != two


async def test_duplicate_round_from_the_organisers_deck(org: Organiser) -> None:
    """Issue 7 item 8: "a fixed deck order from the organiser"."""
    from tranca_rules.presets import PRESETS

    deck = [card_text(c) for c in shuffled_deck(PRESETS[PRESET].jokers, 4242)]
    created = await org.create(
        pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        4,
        table_size=4,
        duplicate=True,
        round_decks=[" ".join(deck)],
    )
    rnd = await org.start(created.tournament_id, 1)
    assert not rnd.deck
    dealt = [await hands(org, tb) for tb in rnd.tables]
    assert dealt[0] == dealt[1]
    for tb in rnd.tables:
        setup = await org.server.store.setup_of(tb.game_id)
        assert setup.deck == [parse_card(c) for c in deck]
    await org.play_round(created.tournament_id, rnd)
    assert list((await org.get(created.tournament_id)).rounds[0].deck) == deck


async def test_round_decks_need_the_fixed_deck_permission(org: Organiser, server: Running) -> None:
    _, key = await server.store.create_app(f"plain-{uuid.uuid4().hex[:6]}")
    deck = " ".join(["AS"] * 104)
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await org.stub.CreateTournament(
            pb.CreateTournamentRequest(
                format=pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
                entrants=[pb.Entrant(id=f"e{i}", player_ids=[f"p{i}"]) for i in range(2)],
                table_size=2,
                rules=gpb.Rules(preset=PRESET),
                duplicate=True,
                round_decks=[deck],
            ),
            metadata=(("x-api-key", key),),
        )
    assert exc.value.code() == Code.PERMISSION_DENIED
    assert error_reason(exc.value) == "FIXED_DECK_NOT_ALLOWED"


async def test_duplicate_even_tables_swap_directions(org: Organiser) -> None:
    """At a duplicate round side B sits on the game's side 0 at the even tables (as
    duplicate bridge turns the boards), and the game's result is mapped back."""
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, duplicate=True)
    tid = created.tournament_id
    players = {e.id: e.player_ids[0] for e in created.entrants}
    rnd = await org.start(tid, 1)
    one, two = rnd.tables
    assert [s.player_id for s in one.seats] == [players[one.entrant_a], players[one.entrant_b]]
    assert [s.player_id for s in two.seats] == [players[two.entrant_b], players[two.entrant_a]]
    setup = await org.server.store.setup_of(two.game_id)
    view = await view_as(org, two.game_id, two.seats[0].player_token)
    assert view.seats[0].player_name == players[two.entrant_b] and setup.players == 2
    # Seat 1 resigns at both tables: the game's side 0 wins both, which is side A at
    # table 1 and side B at table 2.
    await org.play_round(tid, rnd, loser_seat=1)
    t = await org.get(tid)
    assert [tb.outcome for tb in t.rounds[0].tables] == [
        pb.TABLE_OUTCOME_A_WINS,
        pb.TABLE_OUTCOME_B_WINS,
    ]
    check_standings(t)


async def test_partnership_tables_without_duplicate_keep_side_a_on_seat_0(org: Organiser) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, table_size=4)
    entrants = {e.id: list(e.player_ids) for e in created.entrants}
    rnd = await org.start(created.tournament_id, 1)
    for tb in rnd.tables:
        seats = [s.player_id for s in tb.seats]
        assert seats[0::2] == entrants[tb.entrant_a] and seats[1::2] == entrants[tb.entrant_b]


async def replay(org: Organiser, game_id: str, token: str) -> gpb.GetReplayResponse:
    return await org.client.stub.GetReplay(
        gpb.GetReplayRequest(game_id=game_id), metadata=org.client.player(token)
    )


async def test_duplicate_round_cards_stay_hidden_while_a_table_plays(org: Organiser) -> None:
    """GUARANTEES: "an app sees no hand". The tables of a duplicate round share their
    seed and decks: a player who resigns at once must not read them from the replay
    (nor the app from the round) while another table still plays them."""
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, duplicate=True)
    tid = created.tournament_id
    rnd = await org.start(tid, 1)
    one, two = rnd.tables
    setup = await org.server.store.setup_of(one.game_id)
    await org.resign(one, 0)
    await org.settle([one.game_id])
    for seat in one.seats:
        early = await replay(org, one.game_id, seat.player_token)
        assert early.seed == 0 and not any(d.deck for d in early.deals)
        assert early.moves  # the game's own moves stay visible
    app_replay = await org.client.stub.GetReplay(
        gpb.GetReplayRequest(game_id=one.game_id), metadata=org.md
    )
    assert app_replay.seed == 0 and not any(d.deck for d in app_replay.deals)
    # Table 1 has its result, table 2 plays on: no deck in the round's answers.
    assert (await org.get(tid)).rounds[0].tables[0].outcome == pb.TABLE_OUTCOME_B_WINS
    assert not (await org.get(tid)).rounds[0].deck
    assert not (await org.start(tid, 1)).deck
    # Once every table has finished, the seed and the deck are shown.
    await org.resign(two, 1)
    await org.settle([two.game_id])
    late = await replay(org, one.game_id, one.seats[0].player_token)
    assert late.seed == setup.seed != 0
    assert all(d.deck for d in late.deals)
    assert setup.deck is not None
    shown = [card_text(c) for c in setup.deck]
    assert list((await org.get(tid)).rounds[0].deck) == shown
    assert list((await org.start(tid, 1)).deck) == shown


async def test_a_game_of_no_tournament_shows_its_seed_when_over(org: Organiser) -> None:
    """The hold-back is for duplicate rounds only: a non-duplicate table's replay shows
    its seed once its match is over."""
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4)
    rnd = await org.start(created.tournament_id, 1)
    one = rnd.tables[0]
    await org.resign(one, 0)
    await org.settle([one.game_id])
    done = await replay(org, one.game_id, one.seats[0].player_token)
    assert done.seed == (await org.server.store.setup_of(one.game_id)).seed


async def test_a_forfeited_table_still_playing_keeps_the_deck_hidden(org: Organiser) -> None:
    """Every table has a result once the organiser records a forfeit, but the forfeited
    table's game may go on: its cards are still hidden, so the deck waits for it."""
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, duplicate=True)
    tid = created.tournament_id
    rnd = await org.start(tid, 1)
    one, two = rnd.tables
    await org.forfeit(tid, 1, 1, pb.TABLE_OUTCOME_A_FORFEITS)
    await org.resign(two, 0)
    await org.settle([two.game_id])
    t = await org.get(tid)
    assert all(tb.outcome for tb in t.rounds[0].tables) and not t.rounds[0].deck
    assert (await replay(org, two.game_id, two.seats[0].player_token)).seed == 0
    await org.resign(one, 0)
    await org.settle([one.game_id])
    assert (await org.get(tid)).rounds[0].deck
    assert (await replay(org, two.game_id, two.seats[0].player_token)).seed != 0


async def test_a_duplicate_round_with_a_table_that_never_started_shows_its_deck(
    org: Organiser,
) -> None:
    """Issue 27: "A round's deck is published when every table of the round is over,
    however it ended." A staked table whose start is refused (a seat without the chips)
    and recorded as a double no-show is closed (its game can no longer be started and
    dealt the round's cards), so once the other table ends the deck is shown."""
    created = await org.create(
        pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        4,
        duplicate=True,
        table=gpb.TableOptions(competitive=True, stake=10),
    )
    tid = created.tournament_id
    for player in ("p01", "p02", "p03"):  # p04 has no chips
        await grant(org, player, 100)
    rnd = await org.start(tid, 1)
    stuck = next(tb for tb in rnd.tables if "e04" in (tb.entrant_a, tb.entrant_b))
    played = next(tb for tb in rnd.tables if tb is not stuck)
    view = await view_as(org, stuck.game_id, stuck.seats[0].player_token)
    assert view.status == gpb.GAME_STATUS_WAITING
    await org.forfeit(tid, 1, stuck.number, pb.TABLE_OUTCOME_DOUBLE_NO_SHOW)
    view = await view_as(org, stuck.game_id, stuck.seats[0].player_token)
    assert view.status == gpb.GAME_STATUS_FINISHED
    assert view.match_result.reason == "not_started"
    with pytest.raises(grpc.aio.AioRpcError) as exc:  # never dealt the round's cards
        await org.client.stub.StartGame(
            gpb.StartGameRequest(game_id=stuck.game_id),
            metadata=org.client.player(stuck.seats[0].player_token),
        )
    assert error_reason(exc.value) == "GAME_OVER"
    await org.resign(played, 0)
    await org.settle([played.game_id, stuck.game_id])
    t = await org.get(tid)
    assert t.rounds[0].deck and all(tb.outcome for tb in t.rounds[0].tables)
    late = await replay(org, played.game_id, played.seats[0].player_token)
    setup = await org.server.store.setup_of(played.game_id)
    assert late.seed == setup.seed != 0 and all(d.deck for d in late.deals)
