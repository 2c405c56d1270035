"""Chat's moderation (services/chat_moderation.py), against the fakes: a mute hides
a player's messages from the muter (a block too), a report keeps the messages
around the one reported, and the app resolves it once: a warning told, a mute
that stops the author's messages until its end, a ban, each audited."""

from __future__ import annotations

import pytest

from tranca.platform.chat import RoomKind
from tranca.platform.chat_moderation import ReportStatus, Resolution
from tranca.services.access import Credentials
from tranca.services.chat import Chat, RoomRef
from tranca.services.chat_moderation import ChatModeration
from tranca.services.errors import Refused
from tranca.services.limits import WatchCounts

from .conftest import World
from .fakes import ChatMemory, FriendsMemory, ModerationMemory
from .fakes.hub import hub_thrice


@pytest.fixture
def chat_store(world: World) -> ChatMemory:
    return ChatMemory(world.repo, FriendsMemory(world.repo.sessions))


@pytest.fixture
def chat(world: World, chat_store: ChatMemory) -> Chat:
    return Chat(
        world.access,
        chat_store,
        world.repo,
        lambda text: (text, False),
        lambda: world.repo.now,
        WatchCounts(8, 10),
        *hub_thrice(),
    )


@pytest.fixture
def store(chat_store: ChatMemory) -> ModerationMemory:
    return ModerationMemory(chat_store)


@pytest.fixture
def moderation(world: World, chat: Chat, store: ModerationMemory) -> ChatModeration:
    return ChatModeration(world.access, chat, store, lambda: world.repo.now)


async def session(world: World, player_id: str) -> Credentials:
    opened = await world.sessions.create(world.as_app(), player_id, player_id.title())
    return Credentials(token=opened.access_token)


async def refused(reason: str, call: object) -> Refused:
    with pytest.raises(Refused) as caught:
        await call  # type: ignore[misc]
    assert caught.value.reason == reason, caught.value.message
    return caught.value


LOBBY = RoomRef(RoomKind.LOBBY, "main")


async def test_a_muted_player_is_hidden_from_the_muter_only(
    world: World, chat: Chat, moderation: ChatModeration
) -> None:
    ana, bia, cid = [await session(world, p) for p in ("ana", "bia", "cid")]
    await chat.post(bia, LOBBY, "1", text="spam spam")
    assert await moderation.mute(ana, "bia", True) is True
    assert await moderation.mute(ana, "bia", True) is False
    assert await moderation.muted(ana) == ["bia"]
    assert (await chat.history(ana, LOBBY, 0, 0)).messages == ()
    assert len((await chat.history(cid, LOBBY, 0, 0)).messages) == 1
    await moderation.mute(ana, "bia", False)
    assert len((await chat.history(ana, LOBBY, 0, 0)).messages) == 1
    await refused("MALFORMED_REQUEST", moderation.mute(ana, "ana", True))


async def test_a_report_keeps_the_messages_around_and_is_made_once(
    world: World, chat: Chat, moderation: ChatModeration
) -> None:
    ana, bia = await session(world, "ana"), await session(world, "bia")
    for n in range(15):
        await chat.post(bia if n == 12 else ana, LOBBY, f"m{n}", text=f"line {n}")
        world.repo.now += 2000
    report = await moderation.report(ana, LOBBY, 13, "insulting")
    assert (report.reported_id, report.message_id, report.reason) == ("bia", 13, "insulting")
    assert [m.id for m in report.evidence] == list(range(3, 16))
    again = await moderation.report(ana, LOBBY, 13, "again")
    assert again.id == report.id
    await refused("MALFORMED_REQUEST", moderation.report(ana, LOBBY, 1, "my own"))
    await refused("MESSAGE_NOT_FOUND", moderation.report(ana, LOBBY, 99, ""))


async def test_the_app_resolves_a_report_once_and_a_mute_holds_until_its_end(
    world: World, chat: Chat, moderation: ChatModeration, store: ModerationMemory
) -> None:
    ana, bia = await session(world, "ana"), await session(world, "bia")
    await chat.post(bia, LOBBY, "1", text="rude words")
    report = await moderation.report(ana, LOBBY, 1, "rude")
    await refused(
        "APP_KEY_REQUIRED", moderation.resolve(ana, report.id, Resolution.MUTE, 60, "calm down")
    )
    await refused(
        "MALFORMED_REQUEST",
        moderation.resolve(world.as_app(), report.id, Resolution.MUTE, 0, "no length"),
    )
    done = await moderation.resolve(world.as_app(), report.id, Resolution.MUTE, 60, "calm down")
    assert done.status == ReportStatus.RESOLVED and done.until_ms == world.repo.now + 60_000
    error = await refused("CHAT_MUTED", chat.post(bia, LOBBY, "2", text="why?"))
    assert error.metadata["until_ms"] == str(done.until_ms)
    await refused(
        "REPORT_RESOLVED",
        moderation.resolve(world.as_app(), report.id, Resolution.BAN, 0, "twice"),
    )
    (entry,) = store.audit
    assert (entry.action, entry.subject, entry.detail["resolution"]) == (
        "resolve_chat_report",
        "bia",
        "mute",
    )
    assert [(e.player_id, e.kind) for e in store.events] == [("bia", "chat_sanction")]
    world.repo.now += 60_001
    assert (await chat.post(bia, LOBBY, "3", text="sorry")).text == "sorry"
    queue, token = await moderation.queue(world.as_app(), ReportStatus.RESOLVED, 0, "")
    assert [r.id for r in queue] == [report.id] and token == ""


async def test_a_warning_is_told_and_a_ban_without_an_end_holds(
    world: World, chat: Chat, moderation: ChatModeration, store: ModerationMemory
) -> None:
    ana, bia = await session(world, "ana"), await session(world, "bia")
    for n in (1, 2):
        await chat.post(bia, LOBBY, str(n), text=f"bad {n}")
    first = await moderation.report(ana, LOBBY, 1, "")
    second = await moderation.report(ana, LOBBY, 2, "")
    await moderation.resolve(world.as_app(), first.id, Resolution.WARN, 0, "first warning")
    await moderation.resolve(world.as_app(), second.id, Resolution.BAN, 0, "enough")
    assert [(e.kind, e.payload.get("note")) for e in store.events] == [
        ("chat_warning", "first warning"),
        ("chat_sanction", "enough"),
    ]
    world.repo.now += 10 * 60_000  # within the session's life; the ban has no end
    await refused("CHAT_BANNED", chat.post(bia, LOBBY, "3", text="hello?"))
