"""The Python SDK's chat against a real server (SQLite and PostgreSQL), on the
asyncio and the blocking clients: players talk at their table and a spectator
follows them, a message sent again with its id is kept once, an edit arrives as an
amendment, quick phrases in a language, and typed refusals."""

from __future__ import annotations

import asyncio

import pytest

from tranca_client import (
    AsyncTrancaClient,
    PermissionDenied,
    RuleRejected,
    TrancaClient,
    chpb,
    lobby_room,
    pb,
    spectators_room,
    table_room,
)


async def test_players_talk_and_a_spectator_follows_them(app: AsyncTrancaClient) -> None:
    game = await app.create_game("tranca-000", players=2, spectators_allowed=True)
    ana = await app.join(game.game_id, 0, player_name="Ana")
    bia = await app.join(game.game_id, 1, player_name="Bia")
    await app.start_game(game.game_id)
    watcher = await app.join(game.game_id, -1, player_name="Watcher", spectator=True)
    room = table_room(game.game_id)
    stream = watcher.watch_chat(room)
    sent = await ana.send_chat_message(room, text="Boa sorte!", client_message_id="one")
    again = await ana.send_chat_message(room, text="Boa sorte!", client_message_id="one")
    assert again.id == sent.id
    await bia.send_chat_message(room, phrase="thanks")
    await ana.edit_chat_message(room, sent.id, "Boa sorte, Bia!")
    seen = [await asyncio.wait_for(anext(stream), 10) for _ in range(3)]
    await stream.aclose()
    # The stream opened at its first read, after the edit: the message as it is now,
    # then the amendment.
    assert [(m.kind, m.text or m.phrase) for m in seen] == [
        ("text", "Boa sorte, Bia!"),
        ("phrase", "thanks"),
        ("edit", "Boa sorte, Bia!"),
    ]
    history = await bia.chat_messages(room)
    assert [m.text or m.phrase for m in history.messages] == ["Boa sorte, Bia!", "thanks"]
    # Refusals are typed: a spectator in the players' room, another's message.
    with pytest.raises(PermissionDenied) as spectator:
        await watcher.send_chat_message(room, text="from the stands")
    assert spectator.value.reason == "CHAT_NOT_ALLOWED"
    with pytest.raises(PermissionDenied) as not_hers:
        await bia.delete_chat_message(room, sent.id)
    assert not_hers.value.reason == "NOT_YOUR_MESSAGE"
    assert (await watcher.send_chat_message(spectators_room(game.game_id), text="go")).seat == -1
    phrases = {p.id: p.text for p in await ana.quick_phrases("es")}
    assert phrases["good_game"] == "¡Buena partida!"


async def test_a_phrases_only_table_refuses_text_on_the_blocking_client_too(
    address: str, api_key: str, app: AsyncTrancaClient
) -> None:
    phrases_only = pb.TableOptions(chat=pb.CHAT_MODE_PHRASES)
    game = await app.create_game("tranca-000", players=2, table=phrases_only)
    token = (await app.join_game(game.game_id, 0, player_name="Ana")).player_token
    await app.join(game.game_id, 1, player_name="Bia")
    await app.start_game(game.game_id)
    await asyncio.to_thread(_blocking_chat, address, api_key, game.game_id, token)


def _blocking_chat(address: str, api_key: str, game_id: str, token: str) -> None:
    with TrancaClient(address, api_key=api_key) as app:
        ana = app.with_token(token)
        kept = ana.send_chat_message(table_room(game_id), phrase="hello")
        assert kept.phrase == "hello"
        assert [m.phrase for m in ana.chat_messages(table_room(game_id)).messages] == ["hello"]
        with pytest.raises(RuleRejected) as refused:
            ana.send_chat_message(table_room(game_id), text="free text")
        assert refused.value.reason == "CHAT_PHRASES_ONLY"


async def test_a_report_goes_to_the_apps_queue_and_a_mute_holds(app: AsyncTrancaClient) -> None:
    ana = app.with_token((await app.create_player_session("ana-m", "Ana")).access_token)
    bia = app.with_token((await app.create_player_session("bia-m", "Bia")).access_token)
    rude = await bia.send_chat_message(lobby_room(), text="palavrão")
    assert await ana.mute_chat_player("bia-m") is True
    assert await ana.muted_chat_players() == ["bia-m"]
    assert (await ana.chat_messages(lobby_room())).messages == []
    report = await ana.report_chat_message(lobby_room(), rude.id, "ofensa")
    queue = await app.chat_reports(chpb.REPORT_STATUS_OPEN)
    assert [r.id for r in queue.reports] == [report.id]
    done = await app.resolve_chat_report(
        report.id, chpb.RESOLUTION_MUTE, seconds=300, note="sem ofensas"
    )
    assert done.status == chpb.REPORT_STATUS_RESOLVED
    with pytest.raises(PermissionDenied) as muted:
        await bia.send_chat_message(lobby_room(), text="?")
    assert muted.value.reason == "CHAT_MUTED"
    assert await ana.mute_chat_player("bia-m", muted=False) is True
