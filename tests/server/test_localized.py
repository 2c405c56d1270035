"""Refusals in the players' languages: every reason the server can send is worded in
English, the Portuguese of Brazil and Spanish; the language follows the call's
accept-language; the reason codes and the English status message stay as they were,
and the refusal's particulars travel in the ErrorInfo's metadata."""

from __future__ import annotations

import string
import uuid

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from tranca.api.localized import LOCALES, MESSAGES, VARIANTS, localized, negotiate
from tranca.reasons import Reason
from tranca.v1 import game_pb2 as pb
from tranca_rules.errors import Reason as RulesReason

from .conftest import Client

# Particulars a template may name: those the refusals carry (tranca_rules/engine.py), and
# the server's own message (``detail``), which every refusal has.
PARTICULARS = {"card", "meld", "seat", "detail"}
# A string's broken limit (api/edge.py's breaks_limits) names these.
LIMIT_PARTICULARS = {"field", "max_chars"}


def test_the_server_lists_every_reason_of_the_rules_engine() -> None:
    """The rules engine keeps its own reasons (it imports nothing of the server); the
    server's vocabulary holds each of them, with the same code."""
    assert {r.value for r in RulesReason} <= {r.value for r in Reason}


def test_every_reason_is_worded_in_every_language() -> None:
    missing = sorted(set(Reason) - set(MESSAGES))
    assert not missing, f"reasons without their texts: {missing}"
    unknown = sorted(set(MESSAGES) - set(Reason))
    assert not unknown, f"texts of reasons the server does not have: {unknown}"
    for reason, texts in MESSAGES.items():
        assert len(texts) == len(LOCALES) and all(t.strip() for t in texts), reason
        for text in texts:
            fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
            assert fields <= PARTICULARS, (reason, fields)
    for reason, by_problem in VARIANTS.items():
        assert reason in MESSAGES
        for problem, texts in by_problem.items():
            assert len(texts) == len(LOCALES) and all(t.strip() for t in texts), problem
            for text in texts:
                fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
                assert fields <= PARTICULARS | LIMIT_PARTICULARS, (reason, problem, fields)


@pytest.mark.parametrize(
    ("header", "locale"),
    [
        ("pt-BR,pt;q=0.9,en;q=0.8", "pt-BR"),
        ("pt-PT", "pt-BR"),
        ("es-AR,es;q=0.9", "es"),
        ("en;q=0.5, pt;q=0.9", "pt-BR"),
        ("fr-FR, de;q=0.8, es;q=0.1", "es"),
        ("fr-FR, de", "en"),
        ("", "en"),
        ("es;q=0", "en"),
    ],
)
def test_the_language_follows_accept_language(header: str, locale: str) -> None:
    assert negotiate(header) == locale


def test_a_template_shows_the_refusals_particulars() -> None:
    assert localized("CARD_NOT_IN_HAND", "es", {"card": "QH"}) == "QH no está en tu mano."
    assert localized("NOT_YOUR_TURN", "pt-BR", {"seat": "1"}) == (
        "Não é a sua vez: é a vez do lugar 1."
    )
    assert localized("NO_SUCH_REASON", "es", {}) is None


def details(e: grpc.aio.AioRpcError) -> tuple[error_details_pb2.ErrorInfo, list[tuple[str, str]]]:
    """The refusal's ErrorInfo and its localized messages (locale, text)."""
    for key, value in e.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            info = error_details_pb2.ErrorInfo()
            texts = []
            for any_detail in status.details:
                message = error_details_pb2.LocalizedMessage()
                if any_detail.Unpack(message):
                    texts.append((message.locale, message.message))
                else:
                    assert any_detail.Unpack(info)
            return info, texts
    raise AssertionError("no status details")


async def refusal(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


async def test_a_refused_move_is_worded_in_the_language_asked_for(client: Client) -> None:
    gid, tokens = await client.new_game(players=2)
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    waiting = view.turn ^ 1
    move = pb.SubmitMoveRequest(
        game_id=gid,
        expected_version=view.version,
        request_id=uuid.uuid4().hex,
        move=pb.Move(draw=pb.DrawMove()),
    )
    for header, locale, text in (
        ("pt-BR,pt;q=0.9", "pt-BR", f"Não é a sua vez: é a vez do lugar {view.turn}."),
        ("es-419", "es", f"No es tu turno: juega el asiento {view.turn}."),
        (None, "en", f"It is not your turn: seat {view.turn} is to play."),
    ):
        md = client.player(tokens[waiting])
        if header is not None:
            md = (*md, ("accept-language", header))
        e = await refusal(client.stub.SubmitMove(move, metadata=md))
        info, texts = details(e)
        assert e.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert info.reason == "NOT_YOUR_TURN"  # the code apps switch on is unchanged
        assert dict(info.metadata) == {"seat": str(view.turn)}
        assert texts == [(locale, text)]
        assert e.details() == f"it is seat {view.turn}'s turn"  # the server's message


async def test_a_card_not_in_hand_names_the_card_in_every_language(client: Client) -> None:
    gid, tokens = await client.new_game(players=2)
    view = (
        await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.player(tokens[0]))
    ).view
    md = client.player(tokens[view.turn])
    legal = await client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=md)
    await client.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=gid,
            expected_version=legal.version,
            request_id=uuid.uuid4().hex,
            move=pb.Move(draw=pb.DrawMove()),
        ),
        metadata=md,
    )
    mine = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=md)).view
    absent = next(c for c in ("AS", "AH", "AD", "AC", "KS") if c not in mine.hand)
    e = await refusal(
        client.stub.SubmitMove(
            pb.SubmitMoveRequest(
                game_id=gid,
                expected_version=mine.version,
                request_id=uuid.uuid4().hex,
                move=pb.Move(discard=pb.DiscardMove(card=absent)),
            ),
            metadata=(*md, ("accept-language", "es")),
        )
    )
    info, texts = details(e)
    assert info.reason == "CARD_NOT_IN_HAND" and dict(info.metadata) == {"card": absent}
    assert texts == [("es", f"{absent} no está en tu mano.")]


async def test_a_refusal_at_the_edge_is_worded_too(client: Client) -> None:
    e = await refusal(
        client.stub.GetView(
            pb.GetViewRequest(game_id="x" * 65),
            metadata=(*client.app(), ("accept-language", "pt-BR")),
        )
    )
    info, texts = details(e)
    assert info.reason == "MALFORMED_REQUEST"
    assert texts == [("pt-BR", "game_id é longo demais: no máximo 64 caracteres.")]


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "player_name is too long: at most 100 characters."),
        ("pt-BR", "player_name é longo demais: no máximo 100 caracteres."),
        ("es", "player_name es demasiado largo: como máximo 100 caracteres."),
    ],
)
async def test_a_string_over_its_limit_names_the_field_and_the_limit_in_every_language(
    client: Client, language: str, text: str
) -> None:
    gid, _ = await client.new_game(players=2)
    e = await refusal(
        client.stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, seat=0, player_name="x" * 101),
            metadata=(*client.app(), ("accept-language", language)),
        )
    )
    info, texts = details(e)
    assert info.reason == "MALFORMED_REQUEST"
    assert dict(info.metadata) == {
        "field": "player_name",
        "max_chars": "100",
        "problem": "too_long",
    }
    assert texts == [(language, text)]


@pytest.mark.parametrize(
    ("language", "opening"),
    [
        ("en", "The request is not well formed: "),
        ("pt-BR", "A requisição está mal formada: "),
        ("es", "La solicitud está mal formada: "),
    ],
)
async def test_a_malformed_request_keeps_what_was_wrong_in_every_language(
    client: Client, language: str, opening: str
) -> None:
    """A use case's MALFORMED_REQUEST (here a page size over its bound) keeps its
    particulars, the field and the bound, whatever the language."""
    e = await refusal(
        client.stub.ListGames(
            pb.ListGamesRequest(page_size=501),
            metadata=(*client.app(), ("accept-language", language)),
        )
    )
    info, texts = details(e)
    assert info.reason == "MALFORMED_REQUEST"
    assert texts == [(language, f"{opening}{e.details()}.")]
    assert "page_size" in texts[0][1] and "500" in texts[0][1]
