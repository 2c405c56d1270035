"""The Python SDK's sessions against a real server (SQLite and PostgreSQL), on the
asyncio and the blocking clients: an app sets its policy and opens a session for
its player; a client signs in as a device, a guest, and with a custom token the
app's backend signed (the same identity the same player, each token once), plays
with the session's token, refreshes it and signs out."""

from __future__ import annotations

import asyncio
import io
import time

import pytest
from PIL import Image

from tests.harness.identity import custom_key, custom_token, public_jwk
from tranca_client import (
    AlreadyExists,
    AsyncTrancaClient,
    PermissionDenied,
    RuleRejected,
    TrancaClient,
    Unauthenticated,
    pb,
    spb,
)


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (60, 40), (10, 120, 200)).save(out, "PNG")
    return out.getvalue()


async def allow_sign_ins(app: AsyncTrancaClient, key_jwk: str) -> spb.AppPolicy:
    policy = await app.app_policy()
    policy.device_sign_in = True
    policy.guest_sign_in = True
    policy.custom_token_keys.append(
        spb.CustomTokenKey(key_id="backend-1", algorithm="EdDSA", public_key=key_jwk)
    )
    return await app.set_app_policy(policy)


async def test_a_custom_token_signs_the_apps_player_in_once_per_token(
    app: AsyncTrancaClient, app_id: str
) -> None:
    key = custom_key("EdDSA")
    stored = await allow_sign_ins(app, public_jwk(key))
    assert [k.key_id for k in stored.custom_token_keys] == ["backend-1"]
    now = int(time.time())
    token = custom_token(key, "EdDSA", app_id, "player-7", now)
    signed = await app.sign_in_with_identity(app_id, "custom", token, display_name="Bia")
    assert signed.new_player and signed.session.player_id == "player-7"
    with pytest.raises(Unauthenticated) as replayed:
        await app.sign_in_with_identity(app_id, "custom", token)
    assert replayed.value.reason == "ID_TOKEN_REPLAYED"
    again = await app.sign_in_with_identity(
        app_id, "custom", custom_token(key, "EdDSA", app_id, "player-7", now)
    )
    assert not again.new_player and again.session.player_id == "player-7"
    # The session plays: it creates a table and sits at it.
    me = app.with_token(again.session.access_token)
    game = await me.create_game("tranca-000", players=2)
    assert game.status == pb.GAME_STATUS_WAITING


async def test_a_guest_links_a_custom_identity_and_signs_in_as_itself(
    app: AsyncTrancaClient, app_id: str
) -> None:
    key = custom_key("EdDSA")
    await allow_sign_ins(app, public_jwk(key))
    guest = await app.sign_in_guest(app_id, "Visitor")
    me = app.with_token(guest.access_token)
    now = int(time.time())
    # A custom identity's subject is the app's own player id.
    linked = await me.link_identity("custom", custom_token(key, "EdDSA", app_id, "kept-7", now))
    assert (linked.provider, linked.subject) == ("custom", "kept-7")
    assert [i.subject for i in await me.list_identities()] == ["kept-7"]
    signed = await app.sign_in_with_identity(
        app_id, "custom", custom_token(key, "EdDSA", app_id, "kept-7", now)
    )
    assert signed.session.player_id == guest.player_id
    await me.unlink_identity("custom", "kept-7")
    assert await me.list_identities() == []


async def test_device_guest_refresh_and_sign_out(app: AsyncTrancaClient, app_id: str) -> None:
    await allow_sign_ins(app, public_jwk(custom_key("EdDSA")))
    device = "d3c0a7e2-9b41-4f3a-8e6d-0c5b2a1f9e84"
    first = await app.sign_in_device(app_id, device, "Ana")
    assert (await app.sign_in_device(app_id, device)).player_id == first.player_id
    guest = await app.sign_in_guest(app_id, "Visitor")
    assert guest.player_id.startswith("guest:")
    renewed = await app.refresh_session(guest.refresh_token)
    assert renewed.session_id == guest.session_id and renewed.access_token != guest.access_token
    me = app.with_token(renewed.access_token)
    assert await me.sign_out() == 0
    # The session is over: its token is refused.
    with pytest.raises(Unauthenticated):
        await me.sign_out()


def _blocking_sign_ins(address: str, api_key: str, app_id: str) -> None:
    with TrancaClient(address, api_key=api_key) as app:
        policy = app.app_policy()
        policy.guest_sign_in = True
        app.set_app_policy(policy)
        guest = app.sign_in_guest(app_id, "Visitor")
        assert guest.player_id.startswith("guest:")
        session = app.create_player_session("ana", "Ana")
        assert session.player_id == "ana"


async def test_the_blocking_client_signs_in_too(address: str, api_key: str, app_id: str) -> None:
    # The server runs on this event loop: the blocking client waits on a thread.
    await asyncio.to_thread(_blocking_sign_ins, address, api_key, app_id)


async def test_a_player_sets_its_profile_and_others_read_it(
    app: AsyncTrancaClient,
) -> None:
    policy = await app.app_policy()
    policy.unique_display_names = True
    policy.avatar_hosts.append("cdn.example.com")
    await app.set_app_policy(policy)
    ana = app.with_token((await app.create_player_session("ana-p", "Ana")).access_token)
    assert (await ana.profile()).display_name == "Ana"
    changed = await ana.update_profile(
        display_name="Ana Souza", avatar_url="https://cdn.example.com/ana.png", locale="pt-BR"
    )
    assert (changed.display_name, changed.locale) == ("Ana Souza", "pt-BR")
    kept = await ana.update_profile(country="BR")
    assert (kept.display_name, kept.country) == ("Ana Souza", "BR")
    public = await app.player_profile("ana-p")
    assert (public.display_name, public.locale, public.country) == ("Ana Souza", "", "BR")
    many = await app.player_profiles(["nobody", "ana-p"])
    assert [(p.player_id, p.country) for p in many] == [("ana-p", "BR")]
    pictured = await ana.upload_avatar(_png())
    assert pictured.avatar_url.startswith("/avatars/") and pictured.country == "BR"
    bia = app.with_token((await app.create_player_session("bia-p", "Bia")).access_token)
    with pytest.raises(AlreadyExists) as taken:
        await bia.update_profile(display_name="ana souza")
    assert taken.value.reason == "DISPLAY_NAME_TAKEN"
    # The app exports a player's data; the player itself where the policy allows.
    exported = await app.export_player_data("ana-p")
    assert exported["profile"]["display_name"] == "Ana Souza"
    with pytest.raises(PermissionDenied):
        await ana.export_player_data()
    policy.player_data_rights = True
    await app.set_app_policy(policy)
    assert (await ana.export_player_data())["player_id"] == "ana-p"


async def test_a_player_is_erased_and_the_erasure_is_in_the_audit_log(
    app: AsyncTrancaClient,
) -> None:
    ana = app.with_token((await app.create_player_session("ana-e", "Ana")).access_token)
    await ana.update_profile(country="BR")
    # A player sitting at a table is still playing.
    game = await app.create_game("tranca-000", players=2)
    seated = await app.join(game.game_id, seat=0, player_name="Bia", player_id="bia-e")
    with pytest.raises(RuleRejected) as still:
        await app.erase_player("bia-e")
    assert still.value.reason == "PLAYER_STILL_PLAYING"
    await seated.leave_game(game.game_id)
    with pytest.raises(PermissionDenied):
        await ana.erase_player()  # the policy does not let sessions do it
    erased = await app.erase_player("ana-e")
    assert erased.pseudonym.startswith("erased-")
    # Her presence too: her session's calls saw her.
    assert dict(erased.rows) == {"player_presence": 1, "player_profiles": 1, "player_sessions": 1}
    with pytest.raises(Unauthenticated):
        await ana.profile()
    assert (await app.export_player_data("ana-e"))["profile"] is None
    entries = await app.audit_entries()
    # The copy asked for after held nothing: no entry (it would name the id again).
    assert [(e.action, e.actor, e.subject) for e in entries] == [
        ("erase_player", "app", erased.pseudonym)
    ]
    assert await app.audit_entries(after_id=entries[-1].id) == []


async def test_the_app_merges_two_accounts_of_one_player(app: AsyncTrancaClient) -> None:
    await app.grant_chips("kim-2", 40, grant_id="g-kim-2")
    await app.grant_chips("kim", 60, grant_id="g-kim")
    alt = app.with_token((await app.create_player_session("kim-2", "Kim")).access_token)
    rows = await app.merge_players("kim-2", "kim")
    assert rows == {"chip_entries": 2, "player_sessions": 1}
    assert (await app.get_player("kim")).chips == 100
    with pytest.raises(Unauthenticated):
        await alt.profile()
    assert await app.merge_players("kim-2", "kim") == {}
    (first, second) = await app.audit_entries()
    assert (first.action, first.subject, second.action) == ("merge_players", "kim", "merge_players")


def _blocking_erasure(address: str, api_key: str) -> None:
    with TrancaClient(address, api_key=api_key) as app:
        app.create_player_session("cid-e", "Cid")
        erased = app.erase_player("cid-e")
        assert dict(erased.rows) == {"player_sessions": 1}
        (entry,) = app.audit_entries()
        assert entry.subject == erased.pseudonym


async def test_the_blocking_client_erases_too(address: str, api_key: str) -> None:
    await asyncio.to_thread(_blocking_erasure, address, api_key)
