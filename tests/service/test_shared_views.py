"""A game's view at a version is encoded once for all its viewers on a replica
(api/shared_views.py): every viewer must still get exactly the message built for it
alone, its own hand and no one else's, whoever was shown the version first."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tranca.api.convert import logged_to_pb, view_to_pb
from tranca.api.shared_views import SharedViews
from tranca.app.game import (
    Action,
    GameState,
    Setup,
    TableOptions,
    apply_action,
    new_game,
    play_action,
)
from tranca.rules.engine import legal_moves
from tranca.rules.presets import PRESETS
from tranca.rules.views import SPECTATOR, hand_of, view_of
from tranca.services.games import LoggedChange, Shown, WatchUpdate
from tranca.services.ports import LogRecord
from tranca.v1 import game_pb2 as pb

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
                assert got == expected.view
            else:
                assert views.watch_response(WatchUpdate(shown, change)) == expected
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
    """What makes the sharing sound (rules/views.py): a seat's view and a spectator's
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


def test_the_kept_views_are_bounded_and_a_viewer_behind_keeps_the_latest() -> None:
    games = {gid: _started("tranca-000", 2, n, "plain") for n, gid in enumerate("abcde")}
    views = SharedViews(kept=3)
    for gid, (g, version) in games.items():
        views.fill(pb.GameView(), Shown(gid, version, g, 0, None))
        assert len(views) <= 3
    assert len(views) == 3
    # Game "e" moves on; a viewer still at its earlier version is shown that version
    # without displacing the latest, which the next viewer finds built.
    g, version = games["e"]
    deal = g.deal
    assert deal is not None
    before = view_to_pb("e", version, g, 1)
    earlier = g.to_dict()
    apply_action(g, play_action(deal.turn, legal_moves(deal)[0]), version + 1)
    views.fill(pb.GameView(), Shown("e", version + 1, g, 0, None))
    built = views.built
    behind = pb.GameView()
    views.fill(behind, Shown("e", version, GameState.from_dict(earlier), 1, None))
    assert behind == before
    views.fill(pb.GameView(), Shown("e", version + 1, g, 1, None))
    assert views.built == built + 1  # the earlier version only
