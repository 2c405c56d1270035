"""Refusals in the players' languages: every reason the server can send is worded in
English, the Portuguese of Brazil and Spanish; the language follows the call's
accept-language; the reason codes and the English status message stay as they were,
and the refusal's particulars travel in the ErrorInfo's metadata."""

from __future__ import annotations

import re
import string
import uuid
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from tranca.api.localized import LOCALES, MESSAGES, localized, negotiate
from tranca.rules.errors import Reason
from tranca.v1 import game_pb2 as pb

from .conftest import Client

SERVER = Path(__file__).resolve().parents[2] / "server" / "tranca"
# Particulars a template may name: those the refusals carry (rules/engine.py).
PARTICULARS = {"card", "meld", "seat"}


def reasons_in_the_code() -> set[str]:
    """Every reason code the server's sources refuse with."""
    found = {r.value for r in Reason}
    patterns = [
        r'Refused\(\s*Refusal\.\w+,\s*"([A-Z_]+)"',
        r'GameError\(\s*"([A-Z_]+)"',
        r'ApiError\(\s*[\w.]+,\s*"([A-Z_]+)"',
        r'refused\(\s*"([A-Z_]+)"',
    ]
    # Reasons kept in constants: GameError(INSUFFICIENT_CHIPS, ...).
    named = r"(?:GameError|Refused\(\s*Refusal\.\w+,)\(?\s*([A-Z][A-Z_]+),"
    constants: dict[str, str] = {}
    used: set[str] = set()
    for path in SERVER.rglob("*.py"):
        if "/v1/" in str(path):
            continue
        text = path.read_text()
        for pattern in patterns:
            found.update(re.findall(pattern, text, re.M))
        used.update(re.findall(named, text))
        constants.update(re.findall(r'^([A-Z_]+) = "([A-Z_]+)"$', text, re.M))
    found.update(constants[name] for name in used if name in constants)
    return found


def test_every_reason_in_the_code_is_worded_in_every_language() -> None:
    missing = sorted(reasons_in_the_code() - set(MESSAGES))
    assert not missing, f"reasons without their texts: {missing}"
    for reason, texts in MESSAGES.items():
        assert len(texts) == len(LOCALES) and all(t.strip() for t in texts), reason
        for text in texts:
            fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
            assert fields <= PARTICULARS, (reason, fields)


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
    assert texts == [("pt-BR", "A requisição está mal formada.")]
