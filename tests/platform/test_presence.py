"""A player's presence (platform/presence.py): the status their last sighting and
their own say give at a moment, who may see it, and the tables a game's seats say
they hold. The properties: as time passes with no sighting a status only falls
(online, then away, then offline), "away" by choice is never shown online, and a
player who blocked the viewer, or chose nobody, shows them nothing at all."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from tranca.platform.presence import (
    AWAY_WINDOW_MS,
    MAX_TABLES,
    ONLINE_WINDOW_MS,
    Audience,
    Settings,
    Shown,
    Status,
    Table,
    Visibility,
    may_see,
    seated_at,
    shown,
    status_at,
)
from tranca.table.game import FINISHED, PLAYING, GameState, Seat, Setup, new_game
from tranca_rules.presets import PRESETS

NOW = 1_800_000_000_000
RANK = {Status.OFFLINE: 0, Status.AWAY: 1, Status.ONLINE: 2}


def test_seen_a_moment_ago_is_online_then_away_then_offline() -> None:
    seen = Settings(last_seen_ms=NOW)
    assert status_at(seen, NOW + 1_000) == Status.ONLINE
    assert status_at(seen, NOW + ONLINE_WINDOW_MS) == Status.ONLINE
    assert status_at(seen, NOW + ONLINE_WINDOW_MS + 1) == Status.AWAY
    assert status_at(seen, NOW + AWAY_WINDOW_MS) == Status.AWAY
    assert status_at(seen, NOW + AWAY_WINDOW_MS + 1) == Status.OFFLINE


def test_never_seen_is_offline_and_away_by_choice_is_away_while_seen() -> None:
    assert status_at(Settings(), NOW) == Status.OFFLINE
    assert status_at(Settings(last_seen_ms=NOW, away=True), NOW) == Status.AWAY
    # Away by choice still goes offline once the player has gone.
    assert status_at(Settings(NOW, away=True), NOW + AWAY_WINDOW_MS + 1) == Status.OFFLINE


@given(
    seen=st.integers(0, NOW),
    away=st.booleans(),
    first=st.integers(0, 2 * AWAY_WINDOW_MS),
    later=st.integers(0, 2 * AWAY_WINDOW_MS),
)
def test_with_no_new_sighting_a_status_only_falls(
    seen: int, away: bool, first: int, later: int
) -> None:
    settings = Settings(seen, away)
    before = status_at(settings, seen + first)
    after = status_at(settings, seen + first + later)
    assert RANK[after] <= RANK[before]
    if away:
        assert before != Status.ONLINE


@given(visibility=st.sampled_from(Visibility), audience=st.sampled_from(Audience))
def test_who_sees_a_presence(visibility: Visibility, audience: Audience) -> None:
    sees = may_see(visibility, audience)
    if audience == Audience.SELF:
        assert sees  # one's own, always
    elif audience == Audience.BLOCKED or visibility == Visibility.NOBODY:
        assert not sees
    elif visibility == Visibility.EVERYONE:
        assert sees
    else:
        assert sees == (audience == Audience.FRIEND)


@given(
    visibility=st.sampled_from(Visibility),
    away=st.booleans(),
    idle=st.integers(0, 2 * AWAY_WINDOW_MS),
)
def test_a_player_who_blocked_the_viewer_shows_them_nothing(
    visibility: Visibility, away: bool, idle: int
) -> None:
    table = Table("g1", True, True)
    view = shown("ana", Settings(NOW, away, visibility), Audience.BLOCKED, [table], NOW + idle)
    assert view == Shown("ana", visible=False)


def test_hidden_looks_alike_whatever_the_reason() -> None:
    """Blocked, not a friend, nobody, or a player never heard of: the same answer."""
    hidden = [
        shown("ana", Settings(NOW), Audience.BLOCKED, [], NOW),
        shown("ana", Settings(NOW), Audience.OTHER, [], NOW),
        shown("ana", Settings(NOW, visibility=Visibility.NOBODY), Audience.FRIEND, [], NOW),
        shown("ana", Settings(), Audience.OTHER, [], NOW),
    ]
    assert all(h == Shown("ana", visible=False) for h in hidden)


def test_own_presence_carries_the_choices_and_others_do_not() -> None:
    settings = Settings(NOW, away=True, visibility=Visibility.EVERYONE)
    mine = shown("ana", settings, Audience.SELF, [], NOW)
    theirs = shown("ana", settings, Audience.OTHER, [], NOW)
    assert (mine.status, mine.away, mine.visibility) == (Status.AWAY, True, Visibility.EVERYONE)
    assert (theirs.status, theirs.away, theirs.visibility) == (Status.AWAY, False, None)
    assert theirs.last_seen_ms == NOW


def test_a_presence_shows_at_most_the_latest_tables() -> None:
    tables = [Table(f"g{i}", False, False) for i in range(MAX_TABLES + 5)]
    view = shown("ana", Settings(NOW), Audience.FRIEND, tables, NOW)
    assert view.tables == tuple(tables[:MAX_TABLES])


def _game(spectators: bool) -> GameState:
    return new_game(Setup(PRESETS["tranca-000"], 2, 7, spectators_allowed=spectators))


def test_a_seat_is_the_players_while_they_hold_it() -> None:
    state = _game(spectators=True)
    assert seated_at("g1", state, "ana") is None
    state.seats[0] = Seat("Ana", taken=True, player_id="ana")
    assert seated_at("g1", state, "ana") == Table("g1", True, False)
    state.status = PLAYING
    assert seated_at("g1", state, "ana") == Table("g1", True, True)
    resigned = replace(state.seats[0], resigned=True)
    state.seats[0] = resigned
    assert seated_at("g1", state, "ana") is None


def test_no_table_once_removed_or_finished() -> None:
    state = _game(spectators=False)
    state.seats[1] = Seat("Bia", taken=True, player_id="bia")
    state.removed_players.add("bia")
    assert seated_at("g1", state, "bia") is None
    state.removed_players.clear()
    state.removed_seats.add(1)
    assert seated_at("g1", state, "bia") is None
    state.removed_seats.clear()
    assert seated_at("g1", state, "bia") == Table("g1", False, False)
    state.status = FINISHED
    assert seated_at("g1", state, "bia") is None
