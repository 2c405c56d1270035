"""A game's view at a version is encoded once for all its viewers on a replica
(api/shared_views.py): every viewer must still get exactly the message built for it
alone, its own hand and no one else's, whoever was shown the version first."""

from __future__ import annotations

import asyncio
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tranca.api.convert import logged_to_pb, view_to_pb
from tranca.api.shared_views import VERSIONS_KEPT, SharedViews
from tranca.server import Running
from tranca.services.games import LoggedChange, Shown, WatchUpdate
from tranca.services.ports import LogRecord
from tranca.table.game import (
    Action,
    GameState,
    Setup,
    TableOptions,
    apply_action,
    new_game,
    play_action,
)
from tranca.v1 import game_pb2 as pb
from tranca_rules.engine import legal_moves
from tranca_rules.presets import PRESETS
from tranca_rules.views import SPECTATOR, hand_of, view_of

from .conftest import Client, move_first_legal
from .test_hint_rows import watched

TABLES = {
    "plain": TableOptions(),
    "timed": TableOptions(turn_seconds=30),
    "verifiable": TableOptions(verifiable=True),
}


def _started(preset: str, players: int, seed: int, table: str) -> tuple[GameState, int]:
    secret = "5e" * 16 if table == "verifiable" else None
    g = new_game(Setup(PRESETS[preset], players, seed, table=TABLES[table], server_secret=secret))
    version = 0
    for seat in range(players):
        version += 1
        apply_action(g, Action("join", seat, name=f"p{seat}"), version)
    version += 1
    apply_action(g, Action("start", 0), version)
    return g, version


def _reference(shown: Shown, change: LoggedChange | None) -> pb.WatchGameResponse:
    """The watch message as built for one viewer alone."""
    out = pb.WatchGameResponse(
        view=view_to_pb(shown.game_id, shown.version, shown.state, shown.seat, shown.deadline_at)
    )
    if change is not None:
        out.move.CopyFrom(logged_to_pb(change))
    return out


def _unclocked(message: pb.WatchGameResponse | pb.GameView) -> pb.WatchGameResponse | pb.GameView:
    """The message without ``server_time_ms``: each message carries the server's clock
    as it is written, so two builds a millisecond apart differ there and nowhere else."""
    view = message.view if isinstance(message, pb.WatchGameResponse) else message
    view.ClearField("server_time_ms")
    return message


presets = st.sampled_from(sorted(PRESETS))


@settings(max_examples=60, deadline=None)
@given(
    preset=presets,
    seed=st.integers(0, 10_000),
    table=st.sampled_from(sorted(TABLES)),
    four=st.booleans(),
    order_seed=st.integers(0, 1000),
)
def test_every_viewer_gets_the_message_built_for_it_alone(
    preset: str, seed: int, table: str, four: bool, order_seed: int
) -> None:
    rules = PRESETS[preset]
    players = 4 if four and 4 in rules.player_counts else rules.player_counts[0]
    g, version = _started(preset, players, seed, table)
    views = SharedViews()
    rng = random.Random(order_seed)
    viewers = [*range(players), SPECTATOR]
    deadline = 1_900_000_000_000
    change: LoggedChange | None = None
    for _ in range(40):
        # Viewers in a new order at each version: the first builds what the others
        # share, and answers (fill) and watch messages mix.
        rng.shuffle(viewers)
        for seat in viewers:
            shown = Shown("g1", version, g, seat, deadline if seat == viewers[0] else None)
            expected = _reference(shown, change)
            if rng.random() < 0.3:
                got = pb.GameView()
                views.fill(got, shown)
                assert _unclocked(got) == _unclocked(expected.view)
            else:
                got_message = views.watch_response(WatchUpdate(shown, change))
                assert _unclocked(got_message) == _unclocked(expected)
        deal = g.deal
        if g.status != "playing" or deal is None:
            break
        action = play_action(deal.turn, rng.choice(legal_moves(deal)))
        version += 1
        apply_action(g, action, version)
        row = LogRecord(version, action.seat, action, f"r{version}", action.actor, 1.7e9)
        change = LoggedChange(row, g.deal_number)


def test_a_seat_never_sees_the_hand_of_the_viewer_shown_the_version_first() -> None:
    g, version = _started("tranca-000", 4, 7, "plain")
    deal = g.deal
    assert deal is not None
    views = SharedViews()
    first = pb.GameView()
    views.fill(first, Shown("g1", version, g, 0, None))
    assert list(first.hand) == hand_of(deal, 0)
    for seat in (1, 2, 3):
        got = views.watch_response(WatchUpdate(Shown("g1", version, g, seat, None)))
        assert got.view.seat == seat
        assert list(got.view.hand) == hand_of(deal, seat)
    watcher = views.watch_response(WatchUpdate(Shown("g1", version, g, SPECTATOR, None)))
    assert watcher.view.seat == SPECTATOR and not watcher.view.hand
    assert views.built == 1  # one public view built, five viewers shown it


def test_a_seat_sees_what_a_spectator_sees_and_its_own_hand() -> None:
    """What makes the sharing sound (tranca_rules/views.py): a seat's view and a spectator's
    differ in the seat and the hand alone."""
    rng = random.Random(5)
    for preset in sorted(PRESETS):
        players = PRESETS[preset].player_counts[-1]
        g, version = _started(preset, players, rng.randrange(1000), "plain")
        for _ in range(60):
            deal = g.deal
            if g.status != "playing" or deal is None:
                break
            public = view_of(deal, SPECTATOR).to_dict()
            for seat in range(players):
                seen = view_of(deal, seat).to_dict()
                assert seen["hand"] == hand_of(deal, seat) and seen["hand"] is not None
                assert {**seen, "seat": SPECTATOR, "hand": None} == public
            version += 1
            apply_action(g, play_action(deal.turn, rng.choice(legal_moves(deal))), version)


def _played(g: GameState, version: int, moves: int, seed: int) -> list[tuple[int, GameState]]:
    """The game after each of ``moves`` random moves: (version, a copy of the state)."""
    rng = random.Random(seed)
    out = []
    for _ in range(moves):
        deal = g.deal
        assert deal is not None and g.status == "playing"
        version += 1
        apply_action(g, play_action(deal.turn, rng.choice(legal_moves(deal))), version)
        out.append((version, GameState.from_dict(g.to_dict())))
    return out


def test_the_kept_games_are_bounded_and_a_kept_of_zero_keeps_nothing() -> None:
    games = {gid: _started("tranca-000", 2, n, "plain") for n, gid in enumerate("abcde")}
    views = SharedViews(kept=3)
    for gid, (g, version) in games.items():
        views.fill(pb.GameView(), Shown(gid, version, g, 0, None))
        assert len(views) <= 3
    assert len(views) == 3
    views.fill(pb.GameView(), Shown("a", games["a"][1], games["a"][0], 1, None))
    assert views.built == 6  # "a" was dropped first: built again
    none = SharedViews(kept=0)
    g, version = games["b"]
    got = pb.GameView()
    none.fill(got, Shown("b", version, g, 1, None))
    assert got == view_to_pb("b", version, g, 1) and len(none) == 0


def test_two_games_at_the_same_version_are_not_confused() -> None:
    (g1, v1), (g2, v2) = (
        _started("tranca-000", 2, 1, "plain"),
        _started("tranca-000", 2, 2, "plain"),
    )
    assert v1 == v2
    views = SharedViews()
    views.fill(pb.GameView(), Shown("g1", v1, g1, 0, None))
    got = pb.GameView()
    views.fill(got, Shown("g2", v2, g2, 0, None))
    assert got == view_to_pb("g2", v2, g2, 0) and views.built == 2


def test_a_turns_versions_are_each_built_once_for_its_watchers() -> None:
    """SubmitTurn's answer shows a turn's last version first; then every watcher
    delivers each of its versions in order."""
    g, version = _started("tranca-000", 2, 3, "plain")
    turn = _played(g, version, 5, seed=3)
    views = SharedViews()
    last_version, last = turn[-1]
    views.fill(pb.GameView(), Shown("g1", last_version, last, 0, None))
    for seat in (0, 1, SPECTATOR):
        for v, state in turn:
            row = LogRecord(v, 0, Action("resign", 0), None, "player", 1.7e9)
            change = LoggedChange(row, state.deal_number)
            got = views.watch_response(WatchUpdate(Shown("g1", v, state, seat, None), change))
            assert got.view == view_to_pb("g1", v, state, seat)
    assert views.built == len(turn)  # one public view a version, for every viewer


def test_a_viewer_far_behind_gets_its_own_message_and_keeps_the_latest() -> None:
    g, version = _started("tranca-000", 2, 4, "plain")
    played = _played(g, version, VERSIONS_KEPT + 2, seed=4)
    views = SharedViews()
    latest_version, latest = played[-1]
    views.fill(pb.GameView(), Shown("g1", latest_version, latest, 0, None))
    old_version, old = played[0]  # further behind than the versions kept
    for _ in range(2):
        got = pb.GameView()
        views.fill(got, Shown("g1", old_version, old, 1, None))
        assert got == view_to_pb("g1", old_version, old, 1)
    assert views.built == 3  # built for each such viewer, never kept
    views.fill(pb.GameView(), Shown("g1", latest_version, latest, 1, None))
    assert views.built == 3  # the latest is still kept


async def test_a_watched_moves_answer_and_its_streams_share_one_built_view(
    server: Running, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the server: the mover's answer and both seats' watch streams of one
    move are shown one public view, built once, each with its own seat's hand."""
    built: list[tuple[str, int]] = []
    public = SharedViews._public

    def counted(views: SharedViews, shown: Shown) -> pb.GameView:
        built.append((shown.game_id, shown.version))
        return public(views, shown)

    monkeypatch.setattr(SharedViews, "_public", counted)
    gid, tokens = await client.new_game()
    streams = [await watched(client, gid, token) for token in tokens]
    try:
        for _ in range(3):
            built.clear()
            version = await move_first_legal(client, gid, tokens)
            for seat, (_, updates, _) in enumerate(streams):
                update = await asyncio.wait_for(anext(updates), 30)
                assert update.view.version == version and update.view.seat == seat
                shown = await client.stub.GetView(
                    pb.GetViewRequest(game_id=gid), metadata=client.player(tokens[seat])
                )
                assert list(update.view.hand) == list(shown.view.hand)
            assert built == [(gid, version)]  # GetView found it built too
    finally:
        for watch, _, _ in streams:
            watch.cancel()
