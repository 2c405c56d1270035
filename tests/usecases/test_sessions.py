"""Player sessions against the in-memory repository: an end user's client signs in
without the app's key, creates and joins tables as its app's policy allows, and
loses every credential at once when it signs out or the app revokes it
(docs/APP_GUIDE.md, "Players' own sessions")."""

from __future__ import annotations

import base64
from dataclasses import replace

import pytest

from tranca.services.access import Credentials
from tranca.services.errors import Refusal, Refused
from tranca.services.games import Joining, NewTable
from tranca.services.paging import LAST_MICROSECOND
from tranca.services.policy import AppPolicy
from tranca.services.sessions import Issued, device_player_id
from tranca.table.game import GameError, TableOptions
from tranca_rules.moves import draw

from .conftest import World


def as_session(issued: Issued, peer: str = "10.0.0.9") -> Credentials:
    return Credentials(token=issued.access_token, peer=lambda: peer)


async def open_session(world: World, player_id: str = "ana", name: str = "Ana") -> Issued:
    return await world.sessions.create(world.as_app(), player_id, name)


async def refused(reason: str, call: object) -> Refused:
    """The refusal ``call`` (an awaitable) ends with; its reason must be ``reason``."""
    with pytest.raises(Refused) as caught:
        await call  # type: ignore[misc]
    assert caught.value.reason == reason, caught.value.message
    return caught.value


def practice(preset: str = "tranca-000", players: int = 2, **table: object) -> NewTable:
    return NewTable(preset, {}, players, TableOptions(**table))  # type: ignore[arg-type]


async def test_the_apps_backend_opens_a_session_its_client_plays_with(world: World) -> None:
    ana = await open_session(world)
    assert ana.access_token.startswith("ts_") and ana.refresh_token.startswith("tr_")
    assert ana.access_expires_at == world.repo.now + 15 * 60 * 1000  # the default policy
    game, _ = await world.games.create(as_session(ana), practice())
    seated = await world.games.join(as_session(ana), game.id, Joining())
    stored = await world.repo.game(game.id)
    # The seat is the session's player, whatever the client would like to be called.
    assert stored.state.seats[seated.seat].player_id == "ana"
    assert stored.state.seats[seated.seat].name == "Ana"
    # The seat's token, not the session's, acts at the table.
    shown = await world.games.view(world.as_player(seated.token), game.id)
    assert shown.seat == seated.seat
    await refused("SEAT_TOKEN_REQUIRED", world.games.view(as_session(ana), game.id))
    await refused(
        "SEAT_TOKEN_REQUIRED",
        world.games.move(as_session(ana), game.id, draw(), expected_version=1, request_id="r"),
    )


async def test_only_the_apps_key_opens_a_session(world: World) -> None:
    ana = await open_session(world)
    await refused("APP_KEY_REQUIRED", world.sessions.create(as_session(ana), "bob", "Bob"))
    await refused("BAD_API_KEY", world.sessions.create(Credentials(api_key="tk_forged"), "b", ""))
    # Player ids the server makes up for devices and guests are not the app's to give.
    await refused("MALFORMED_REQUEST", world.sessions.create(world.as_app(), "guest:x", ""))
    await refused("MALFORMED_REQUEST", world.sessions.create(world.as_app(), "", ""))


async def test_a_session_does_only_what_the_apps_policy_allows(world: World) -> None:
    ana = await open_session(world)
    await world.sessions.set_policy(
        world.as_app(),
        AppPolicy(presets=("tranca-000",), competitive=False, max_stake=0),
    )
    await refused("PRESET_NOT_ALLOWED", world.games.create(as_session(ana), practice("tranca-003")))
    await refused(
        "COMPETITIVE_NOT_ALLOWED", world.games.create(as_session(ana), practice(competitive=True))
    )
    # A table the app itself created is joined by the same rules.
    rated, _ = await world.games.create(world.as_app(), practice(competitive=True))
    await refused("COMPETITIVE_NOT_ALLOWED", world.games.join(as_session(ana), rated.id, Joining()))
    await world.sessions.set_policy(world.as_app(), AppPolicy(max_stake=100))
    await refused(
        "STAKE_NOT_ALLOWED",
        world.games.create(as_session(ana), practice(competitive=True, stake=101)),
    )
    await world.sessions.set_policy(world.as_app(), AppPolicy(players_create_tables=False))
    await refused("PLAYERS_MAY_NOT_CREATE_TABLES", world.games.create(as_session(ana), practice()))
    # The app's key is not bound by its players' policy.
    assert (await world.games.create(world.as_app(), practice("tranca-003")))[0].id


async def test_a_session_seats_its_own_player_once_and_rejoins_its_seat(world: World) -> None:
    ana = await open_session(world)
    game, _ = await world.games.create(world.as_app(), practice(players=4))
    await refused(
        "NOT_YOUR_PLAYER", world.games.join(as_session(ana), game.id, Joining(player_id="bob"))
    )
    first = await world.games.join(as_session(ana), game.id, Joining())
    # Joining again (another device, or after signing out) gives the seat the player
    # holds a new token; never a second seat.
    tablet = await open_session(world)
    again = await world.games.join(as_session(tablet), game.id, Joining(seat=3))
    assert again.seat == first.seat and again.token != first.token
    for token in (first.token, again.token):
        assert (await world.games.view(world.as_player(token), game.id)).seat == first.seat
    stored = await world.repo.game(game.id)
    assert [s.player_id for s in stored.state.seats].count("ana") == 1
    # The app's key seats whom it names, and the game refuses a second seat.
    with pytest.raises(GameError) as caught:
        await world.games.join(world.as_app(), game.id, Joining(player_id="ana"))
    assert caught.value.reason == "PLAYER_SEATED"
    # Other apps' tables are invisible to it.
    _, other_key = world.repo.add_app("other")
    elsewhere, _ = await world.games.create(world.as_app(other_key), practice())
    await refused("GAME_NOT_FOUND", world.games.join(as_session(ana), elsewhere.id, Joining()))


async def test_no_seat_token_outlives_its_session(world: World) -> None:
    await world.sessions.set_policy(world.as_app(), AppPolicy(refresh_seconds=3600))
    ana = await open_session(world)
    game, _ = await world.games.create(as_session(ana), practice())
    seated = await world.games.join(as_session(ana), game.id, Joining())
    assert seated.expires_at == ana.refresh_expires_at == world.repo.now + 3_600_000


async def test_an_access_token_expires_and_a_refresh_rotates_both_tokens(world: World) -> None:
    ana = await open_session(world)
    world.repo.now += 15 * 60 * 1000
    await refused("BAD_SESSION", world.games.create(as_session(ana), practice()))
    renewed = await world.sessions.refresh(Credentials(), ana.refresh_token)
    assert renewed.session_id == ana.session_id and renewed.player_id == "ana"
    assert renewed.access_token != ana.access_token
    assert renewed.refresh_token != ana.refresh_token
    assert (await world.games.create(as_session(renewed), practice()))[0].id


async def test_a_refresh_token_used_twice_ends_the_session(world: World) -> None:
    """OAuth 2.0 refresh token rotation: a spent refresh token presented again means
    two parties hold it; neither keeps the session."""
    ana = await open_session(world)
    renewed = await world.sessions.refresh(Credentials(), ana.refresh_token)
    game, _ = await world.games.create(as_session(renewed), practice())
    seated = await world.games.join(as_session(renewed), game.id, Joining())
    await refused("REFRESH_TOKEN_REUSED", world.sessions.refresh(Credentials(), ana.refresh_token))
    await refused("BAD_SESSION", world.games.create(as_session(renewed), practice()))
    await refused("BAD_REFRESH_TOKEN", world.sessions.refresh(Credentials(), renewed.refresh_token))
    await refused("BAD_TOKEN", world.games.view(world.as_player(seated.token), game.id))


async def test_every_spent_refresh_token_of_a_session_ends_it_not_only_the_last(
    world: World,
) -> None:
    """A copy of any refresh token the session ever had, presented after it was spent,
    is a copy: r1 -> r2 -> r3, then r1 again ends the session r3 keeps."""
    ana = await open_session(world)
    second = await world.sessions.refresh(Credentials(), ana.refresh_token)
    third = await world.sessions.refresh(Credentials(), second.refresh_token)
    game, _ = await world.games.create(as_session(third), practice())
    seated = await world.games.join(as_session(third), game.id, Joining())
    error = await refused(
        "REFRESH_TOKEN_REUSED", world.sessions.refresh(Credentials(), ana.refresh_token)
    )
    assert error.kind is Refusal.UNAUTHENTICATED
    await refused("BAD_SESSION", world.games.create(as_session(third), practice()))
    await refused("BAD_TOKEN", world.games.view(world.as_player(seated.token), game.id))
    await refused("BAD_REFRESH_TOKEN", world.sessions.refresh(Credentials(), third.refresh_token))
    # The middle one, spent too, still says so.
    await refused(
        "REFRESH_TOKEN_REUSED", world.sessions.refresh(Credentials(), second.refresh_token)
    )
    listed, _ = await world.sessions.list(world.as_app(), "ana", False, 10, "")
    assert [(s.session_id, s.revoked) for s in listed] == [(ana.session_id, True)]


async def test_a_sessions_current_refresh_token_past_its_life_is_no_reuse(world: World) -> None:
    await world.sessions.set_policy(world.as_app(), AppPolicy(refresh_seconds=3600))
    ana = await open_session(world)
    bob = await open_session(world, "bob", "Bob")
    await world.sessions.sign_out(as_session(bob))
    await refused("BAD_REFRESH_TOKEN", world.sessions.refresh(Credentials(), bob.refresh_token))
    world.repo.now += 3_600_000
    await refused("BAD_REFRESH_TOKEN", world.sessions.refresh(Credentials(), ana.refresh_token))


async def test_forged_tokens_are_refused_and_throttled(world: World) -> None:
    forged = Credentials(token="ts_forged", peer=lambda: "6.6.6.6")
    for _ in range(25):
        with pytest.raises(Refused) as caught:
            await world.games.create(forged, practice())
    assert caught.value.reason == "RATE_LIMITED"
    error = await refused("BAD_REFRESH_TOKEN", world.sessions.refresh(Credentials(), "tr_forged"))
    assert error.kind is Refusal.UNAUTHENTICATED
    await refused("MALFORMED_REQUEST", world.sessions.refresh(Credentials(), "ts_not_a_refresh"))


async def test_signing_out_ends_the_session_and_its_seat_tokens_only(world: World) -> None:
    phone, tablet = await open_session(world), await open_session(world)
    game, _ = await world.games.create(world.as_app(), practice(players=4))
    other, _ = await world.games.create(world.as_app(), practice(players=4))
    on_phone = await world.games.join(as_session(phone), game.id, Joining())
    on_tablet = await world.games.join(as_session(tablet), other.id, Joining())
    ended = await world.sessions.sign_out(as_session(phone))
    assert (ended.sessions, ended.seat_tokens) == (1, 1)
    await refused("BAD_SESSION", world.games.create(as_session(phone), practice()))
    await refused("BAD_TOKEN", world.games.view(world.as_player(on_phone.token), game.id))
    # The player's other session and its seat are untouched.
    assert (await world.games.view(world.as_player(on_tablet.token), other.id)).seat >= 0
    await refused("SESSION_TOKEN_REQUIRED", world.sessions.sign_out(world.as_app()))


async def test_revoking_a_player_ends_every_session_and_seat_token_at_once(world: World) -> None:
    phone, tablet = await open_session(world), await open_session(world)
    game, _ = await world.games.create(world.as_app(), practice(players=4))
    other, _ = await world.games.create(world.as_app(), practice(players=4))
    by_session = await world.games.join(as_session(phone), game.id, Joining())
    # A seat the app's backend gave the same player with its key goes too.
    by_app = await world.games.join(world.as_app(), other.id, Joining(player_id="ana"))
    bob = await world.games.join(world.as_app(), game.id, Joining(player_id="bob"))
    done = await world.sessions.revoke_player(world.as_app(), "ana")
    assert (done.sessions, done.seat_tokens) == (2, 2)
    for issued in (phone, tablet):
        await refused("BAD_SESSION", world.games.create(as_session(issued), practice()))
    await refused("BAD_TOKEN", world.games.view(world.as_player(by_session.token), game.id))
    await refused("BAD_TOKEN", world.games.view(world.as_player(by_app.token), other.id))
    assert (await world.games.view(world.as_player(bob.token), game.id)).seat >= 0


async def test_revoking_the_app_ends_its_sessions(world: World) -> None:
    ana = await open_session(world)
    world.repo.revoke_app(world.app.id)
    await refused("BAD_SESSION", world.games.create(as_session(ana), practice()))
    await refused("BAD_REFRESH_TOKEN", world.sessions.refresh(Credentials(), ana.refresh_token))


async def test_device_sign_in_is_off_until_the_app_allows_it(world: World) -> None:
    device = "0f3c9a5e-6d1b-4f7e-9c2a-8b5d4e3f2a1c"
    sign_in = world.sessions.sign_in_device
    await refused("DEVICE_SIGN_IN_DISABLED", sign_in(Credentials(), world.app.id, device, "Ana"))
    await world.sessions.set_policy(world.as_app(), AppPolicy(device_sign_in=True))
    first = await sign_in(Credentials(), world.app.id, device, "Ana")
    again = await sign_in(Credentials(), world.app.id, device, "Ana")
    assert first.player_id == again.player_id == device_player_id(world.app.id, device)
    assert device not in first.player_id  # the id does not give the credential away
    assert first.session_id != again.session_id
    await refused("MALFORMED_REQUEST", sign_in(Credentials(), world.app.id, "short", "Ana"))
    await refused("APP_NOT_FOUND", sign_in(Credentials(), "0" * 32, device, "Ana"))


async def test_guests_are_new_players_each_time_where_allowed(world: World) -> None:
    guest = world.sessions.sign_in_guest
    await refused("GUEST_SIGN_IN_DISABLED", guest(Credentials(), world.app.id, "Visitor"))
    await world.sessions.set_policy(world.as_app(), AppPolicy(guest_sign_in=True))
    first = await guest(Credentials(), world.app.id, "Visitor")
    second = await guest(Credentials(), world.app.id, "Visitor")
    assert first.player_id.startswith("guest:") and first.player_id != second.player_id


async def test_the_admin_view_lists_the_apps_sessions_newest_first(world: World) -> None:
    older = await open_session(world, "ana")
    world.repo.now += 1000
    await open_session(world, "bob")
    world.repo.now += 1000
    newest = await open_session(world, "ana")
    page, token = await world.sessions.list(world.as_app(), "", False, 2, "")
    assert [s.player_id for s in page] == ["ana", "bob"] and token
    rest, token = await world.sessions.list(world.as_app(), "", False, 2, token)
    assert [s.session_id for s in rest] == [older.session_id] and not token
    await world.sessions.sign_out(as_session(newest))
    live, _ = await world.sessions.list(world.as_app(), "ana", True, 10, "")
    assert [s.session_id for s in live] == [older.session_id]


async def test_paging_the_sessions_keeps_its_place_while_they_are_refreshed(
    world: World,
) -> None:
    opened = []
    for n in range(5):
        opened.append(await open_session(world, f"p{n}"))
        world.repo.now += 1000
    first, token = await world.sessions.list(world.as_app(), "", False, 2, "")
    assert [s.session_id for s in first] == [o.session_id for o in opened[4:2:-1]]
    # The oldest session is refreshed between two pages: it keeps its place, last.
    await world.sessions.refresh(Credentials(), opened[0].refresh_token)
    seen = [s.session_id for s in first]
    while token:
        page, token = await world.sessions.list(world.as_app(), "", False, 2, token)
        seen += [s.session_id for s in page]
    assert seen == [o.session_id for o in reversed(opened)]


async def test_a_page_token_the_server_did_not_make_is_malformed(world: World) -> None:
    await open_session(world)
    bad = [
        "50",  # an offset, the page tokens of servers before
        "-1",
        "x" * 40,
        "!!!!",
        "\x00",
        base64.urlsafe_b64encode(b"18446744073709551616:ab").decode(),  # past 64 bits
        base64.urlsafe_b64encode(b"4611686018427387904:ab").decode(),  # past a BIGINT's use
        base64.urlsafe_b64encode(b"-5:ab").decode(),
        base64.urlsafe_b64encode(b"+5:ab").decode(),
        base64.urlsafe_b64encode(b"1_000:ab").decode(),
        base64.urlsafe_b64encode(b"5:a\x00b").decode(),
        base64.urlsafe_b64encode(b"5:").decode(),
        base64.urlsafe_b64encode(b"5:AB").decode(),
        base64.urlsafe_b64encode("5:é".encode()).decode(),
        base64.urlsafe_b64encode(b"\xff\xfe").decode(),
        base64.urlsafe_b64encode(b"5:ff").decode().rstrip("="),  # no session id's shape
        base64.urlsafe_b64encode(f"{LAST_MICROSECOND + 1}:{'f' * 32}".encode()).decode(),
    ]
    for token in bad:
        await refused("MALFORMED_REQUEST", world.sessions.list(world.as_app(), "", False, 5, token))
    last = f"{LAST_MICROSECOND}:{'f' * 32}".encode()  # the calendar's last instant
    edge = base64.urlsafe_b64encode(last).decode().rstrip("=")
    assert (await world.sessions.list(world.as_app(), "", False, 5, edge))[0]


async def test_a_policy_out_of_its_ranges_is_refused_and_changes_nothing(world: World) -> None:
    for bad in (
        AppPolicy(session_seconds=10),
        AppPolicy(refresh_seconds=60),
        AppPolicy(presets=("no-such-preset",)),
        AppPolicy(max_stake=-1),
        AppPolicy(robots_after_seconds=-5),
    ):
        await refused("MALFORMED_REQUEST", world.sessions.set_policy(world.as_app(), bad))
    assert await world.sessions.policy(world.as_app()) == AppPolicy()
    changed = replace(AppPolicy(), guest_sign_in=True)
    await world.sessions.set_policy(world.as_app(), changed)
    assert await world.sessions.policy(world.as_app()) == changed


async def test_sign_ins_without_a_credential_are_limited_per_address(world: World) -> None:
    await world.sessions.set_policy(world.as_app(), AppPolicy(guest_sign_in=True))
    crowd = Credentials(peer=lambda: "198.51.100.7")
    for _ in range(10):
        await world.sessions.sign_in_guest(crowd, world.app.id, "Visitor")
    error = await refused("RATE_LIMITED", world.sessions.sign_in_guest(crowd, world.app.id, "V"))
    assert int(error.metadata["retry_after_ms"]) > 0
    # Another address is not held back.
    other = Credentials(peer=lambda: "203.0.113.9")
    assert (await world.sessions.sign_in_guest(other, world.app.id, "Visitor")).player_id


async def test_refused_sign_ins_leave_the_addresss_sign_ins_as_they_were(world: World) -> None:
    """Sign-ins refused for what they are (off, an origin not listed, an unknown app, a
    malformed request) open nothing and guess nothing: they do not count."""
    device = "0f3c9a5e-6d1b-4f7e-9c2a-8b5d4e3f2a1c"
    crowd = Credentials(peer=lambda: "198.51.100.7")
    page = Credentials(peer=lambda: "198.51.100.7", origin="https://elsewhere.example")
    for _ in range(12):
        await refused(
            "DEVICE_SIGN_IN_DISABLED",
            world.sessions.sign_in_device(crowd, world.app.id, device, "Ana"),
        )
        await refused(
            "GUEST_SIGN_IN_DISABLED", world.sessions.sign_in_guest(crowd, world.app.id, "V")
        )
        await refused(
            "MALFORMED_REQUEST", world.sessions.sign_in_device(crowd, world.app.id, "short", "")
        )
    await world.sessions.set_policy(
        world.as_app(), AppPolicy(device_sign_in=True, guest_sign_in=True)
    )
    for _ in range(12):
        await refused(
            "ORIGIN_NOT_ALLOWED", world.sessions.sign_in_guest(page, world.app.id, "Visitor")
        )
    for _ in range(3):  # an unknown app is a failed authentication, 20 of which block
        await refused("APP_NOT_FOUND", world.sessions.sign_in_guest(crowd, "0" * 32, "V"))
    for n in range(10):
        await world.sessions.sign_in_device(crowd, world.app.id, f"{device}-{n}", "Ana")
    await refused("RATE_LIMITED", world.sessions.sign_in_guest(crowd, world.app.id, "V"))


async def test_device_ids_known_or_not_count_against_the_addresss_sign_ins(
    world: World,
) -> None:
    """A device id is a credential: each sign-in with one, the device's own again or a
    guess, is a sign-in that works, and counts."""
    await world.sessions.set_policy(world.as_app(), AppPolicy(device_sign_in=True))
    guesser = Credentials(peer=lambda: "192.0.2.66")
    known = "0f3c9a5e-6d1b-4f7e-9c2a-8b5d4e3f2a1c"
    for n in range(5):
        await world.sessions.sign_in_device(guesser, world.app.id, known, "")
        await world.sessions.sign_in_device(guesser, world.app.id, f"guess-{n:012d}", "")
    error = await refused(
        "RATE_LIMITED", world.sessions.sign_in_device(guesser, world.app.id, known, "")
    )
    assert int(error.metadata["retry_after_ms"]) > 0
