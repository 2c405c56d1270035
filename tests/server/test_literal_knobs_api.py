"""The literal-reading knobs (docs/RULES.md, "Literal readings") through the public
API, on SQLite and PostgreSQL: ListPresets shows each with its value in every preset,
a game is created with them as overrides, and the engine's refusal under 004's letter
reaches the client as a typed reason."""

from __future__ import annotations

from tests.server.api_calls import DRAW, Code, app_view, create, join, plain_deck, refused, submit
from tranca.v1 import game_pb2 as pb

from .conftest import Client

LITERAL_KNOBS = {
    "aces_wild": False,
    "pile_unfreezes_when_covered": False,
    "one_meld_per_turn": False,
    "threes_in_runs": True,
    "untaken_morto_is_penalised": True,
}


async def test_list_presets_shows_the_literal_knobs_at_the_presets_values(client: Client) -> None:
    """The presets stay as they are: each knob at the value that keeps the preset's
    reading, in every preset, for an app to offer the letter as an override."""
    presets = (
        await client.stub.ListPresets(pb.ListPresetsRequest(), metadata=client.app())
    ).presets
    for preset in presets:
        for knob, value in LITERAL_KNOBS.items():
            assert preset.knobs[knob].WhichOneof("value") == "bool_value", (preset.name, knob)
            assert preset.knobs[knob].bool_value is value, (preset.name, knob)


def two_runs_each() -> list[str]:
    """A deck that deals each player 4C 5C 6C and 7H 8H 9H (the cards go round one at a
    time from the top, so each card is doubled)."""
    runs = ["4C", "5C", "6C", "7H", "8H", "9H"]
    deck = plain_deck()
    for card in runs:
        deck.remove(card)
        deck.remove(card)
    return [c for card in runs for c in (card, card)] + deck


async def test_one_meld_a_turn_through_the_api(client: Client) -> None:
    """004: "Após cada compra o jogador poderá baixar uma combinação de cartas - jogo -
    antes de descartar (jogar fora) uma carta da sua mão." With the knob, a second new
    meld in the turn is refused (FAILED_PRECONDITION, ONE_MELD_PER_TURN), changes
    nothing, and is not among the legal moves."""
    knobs = {"one_meld_per_turn": pb.KnobValue(bool_value=True)}
    rules = pb.Rules(preset="tranca-004", overrides=knobs)
    gid = await create(client, rules=rules, deck=two_runs_each())
    tokens = [(await join(client, gid, seat)).player_token for seat in range(2)]
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    view = await app_view(client, gid)
    token = tokens[view.turn]
    await submit(client, gid, token, DRAW, view.version)
    legal = await client.stub.ListLegalMoves(
        pb.ListLegalMovesRequest(game_id=gid), metadata=client.player(token)
    )
    melds = [m for m in legal.moves if m.WhichOneof("kind") == "create_meld"]
    first = melds[0]
    second = next(m for m in melds if not set(m.create_meld.cards) & set(first.create_meld.cards))
    view = await app_view(client, gid)
    await submit(client, gid, token, first, view.version)
    view = await app_view(client, gid)
    legal = await client.stub.ListLegalMoves(
        pb.ListLegalMovesRequest(game_id=gid), metadata=client.player(token)
    )
    assert not [m for m in legal.moves if m.WhichOneof("kind") == "create_meld"]
    assert [m for m in legal.moves if m.WhichOneof("kind") == "discard"]
    e = await refused(
        submit(client, gid, token, second, view.version),
        Code.FAILED_PRECONDITION,
        "ONE_MELD_PER_TURN",
    )
    assert "one new meld" in (e.details() or "")
    assert (await app_view(client, gid)).version == view.version
