"""Players' profiles (services/profiles.py), against the fakes: a player reads and
changes its own, others of the app read its public part, and what a profile may
hold is checked (names, unique ones where the app asks, avatars from its hosts,
locales, countries)."""

from __future__ import annotations

import pytest

from tranca.services.access import Credentials
from tranca.services.errors import Refused
from tranca.services.games import Joining
from tranca.services.policy import AppPolicy
from tranca.services.profiles import ProfileChange, Profiles, display_name

from .conftest import World
from .fakes import ProfilesMemory


@pytest.fixture
async def profiles(world: World) -> Profiles:
    await world.sessions.set_policy(
        world.as_app(),
        AppPolicy(unique_display_names=True, avatar_hosts=("cdn.example.com",)),
    )
    return Profiles(world.access, ProfilesMemory(world.repo.sessions), lambda: world.repo.now)


async def session(world: World, player_id: str, name: str) -> Credentials:
    opened = await world.sessions.create(world.as_app(), player_id, name)
    return Credentials(token=opened.access_token, peer=lambda: "198.51.100.1")


async def refused(reason: str, call: object) -> Refused:
    with pytest.raises(Refused) as caught:
        await call  # type: ignore[misc]
    assert caught.value.reason == reason, caught.value.message
    return caught.value


async def test_a_player_reads_its_sessions_name_until_it_sets_a_profile(
    world: World, profiles: Profiles
) -> None:
    ana = await session(world, "ana", "Ana")
    assert (await profiles.own(ana))[1].display_name == "Ana"
    player_id, changed = await profiles.update(
        ana,
        ProfileChange(
            display_name="  Ana   Souza ",
            avatar_url="https://img.cdn.example.com/a.png",
            locale="PT-br",
            country="br",
        ),
    )
    assert player_id == "ana"
    assert (changed.display_name, changed.locale, changed.country) == ("Ana Souza", "pt-BR", "BR")
    # A field left out is kept.
    _, kept = await profiles.update(ana, ProfileChange(country="PT"))
    assert (kept.display_name, kept.avatar_url, kept.country) == (
        "Ana Souza",
        "https://img.cdn.example.com/a.png",
        "PT",
    )
    # Others of the app see its public part: never its locale.
    public = await profiles.public(world.as_app(), "ana")
    assert (public.display_name, public.country) == ("Ana Souza", "PT")
    bia = await session(world, "bia", "Bia")
    assert (await profiles.public(bia, "ana")).avatar_url.endswith("/a.png")
    await refused("PROFILE_NOT_FOUND", profiles.public(bia, "nobody"))


async def test_a_unique_name_is_one_players_without_regard_to_case(
    world: World, profiles: Profiles
) -> None:
    ana = await session(world, "ana", "Ana")
    bia = await session(world, "bia", "Bia")
    await profiles.update(ana, ProfileChange(display_name="Estrela"))
    await refused("DISPLAY_NAME_TAKEN", profiles.update(bia, ProfileChange(display_name="ESTRELA")))
    await profiles.update(ana, ProfileChange(display_name="Estrela"))  # its own again: fine
    await profiles.update(ana, ProfileChange(display_name="Lua"))
    await profiles.update(bia, ProfileChange(display_name="estrela"))  # freed


@pytest.mark.parametrize(
    "text",
    ["", "   ", "x" * 33, "Ana\u200bSouza", "Ana\x07", "...", "\u202eAna"],
)
def test_names_out_of_shape_are_refused(text: str) -> None:
    with pytest.raises(Refused) as caught:
        display_name(text)
    assert caught.value.reason == "MALFORMED_REQUEST"


async def test_avatars_locales_and_countries_out_of_shape_are_refused(
    world: World, profiles: Profiles
) -> None:
    ana = await session(world, "ana", "Ana")
    await refused(
        "AVATAR_HOST_NOT_ALLOWED",
        profiles.update(ana, ProfileChange(avatar_url="https://evil.example.net/a.png")),
    )
    await refused(
        "AVATAR_HOST_NOT_ALLOWED",
        profiles.update(ana, ProfileChange(avatar_url="https://notcdn.example.com/a.png")),
    )
    for bad in [
        ProfileChange(avatar_url="http://cdn.example.com/a.png"),
        ProfileChange(avatar_url="https://user:pw@cdn.example.com/a.png"),
        ProfileChange(locale="portuguese"),
        ProfileChange(country="BRA"),
    ]:
        await refused("MALFORMED_REQUEST", profiles.update(ana, bad))
    _, cleared = await profiles.update(ana, ProfileChange(avatar_url="", locale="", country=""))
    assert (cleared.avatar_url, cleared.locale, cleared.country) == ("", "", "")


async def test_a_profile_needs_a_session_and_a_policys_hosts_are_host_names(
    world: World, profiles: Profiles
) -> None:
    await refused("SESSION_TOKEN_REQUIRED", profiles.own(world.as_app()))
    await refused(
        "MALFORMED_REQUEST",
        world.sessions.set_policy(world.as_app(), AppPolicy(avatar_hosts=("https://cdn.x",))),
    )
    stored = await world.sessions.set_policy(
        world.as_app(), AppPolicy(avatar_hosts=("CDN.Example.com.", "cdn.example.com"))
    )
    assert stored.avatar_hosts == ("cdn.example.com",)


async def test_a_new_name_is_the_name_of_the_seats_taken_after(
    world: World, profiles: Profiles
) -> None:
    ana = await session(world, "ana", "Ana")
    before = await world.table()
    await world.games.join(ana, before, Joining(0))
    await profiles.update(ana, ProfileChange(display_name="Estrela"))
    after = await world.table()
    await world.games.join(ana, after, Joining(0))
    names = [
        (await world.games.view(world.as_app(), game)).state.seats[0].name
        for game in (before, after)
    ]
    assert names == ["Ana", "Estrela"]


async def test_a_name_never_set_holds_no_place_among_unique_names(
    world: World, profiles: Profiles
) -> None:
    one = await session(world, "one", "player")
    two = await session(world, "two", "player")
    await profiles.update(one, ProfileChange(country="BR"))
    _, changed = await profiles.update(two, ProfileChange(country="AR"))
    assert (changed.display_name, changed.country) == ("player", "AR")


async def test_several_public_profiles_are_read_at_once_in_the_order_asked(
    world: World, profiles: Profiles
) -> None:
    for player_id, country in (("ana", "BR"), ("bia", "AR")):
        own = await session(world, player_id, player_id.title())
        change = ProfileChange(display_name=player_id.title(), country=country)
        await profiles.update(own, change)
    bia = await session(world, "bia", "Bia")
    shown = await profiles.public_many(bia, ["bia", "nobody", "ana", "bia"])
    assert [(p.player_id, p.display_name, p.country) for p in shown] == [
        ("bia", "Bia", "AR"),
        ("ana", "Ana", "BR"),
    ]
    await refused("MALFORMED_REQUEST", profiles.public_many(bia, []))
    await refused("MALFORMED_REQUEST", profiles.public_many(bia, [f"p{i}" for i in range(101)]))
    await refused("MALFORMED_REQUEST", profiles.public_many(bia, ["ana", ""]))
