"""A hint's rows, in the hub and on the bus (store/hints.py, store/nats_feed.py):
the hub hands a watcher the rows after its version only while it holds every one
up to the latest version hinted; the bus's message carries them exactly, and a
message that cannot be read whole is a hint without rows (the watchers read the
log), never rows that are not the log's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tranca.services.ports import LogRecord
from tranca.store.hints import ROWS_KEPT, Hub, Subscribed
from tranca.store.nats_feed import payload, read_payload
from tranca.table.game import Action
from tranca_rules.moves import parse_move

MOVES = ["draw", "take 7H 7S", "discard 7H", "add @0 TS"]


def row(version: int, seat: int = 0, text: str = "draw", rid: str | None = "r") -> LogRecord:
    action = Action("move", seat, move=parse_move(text))
    return LogRecord(version, seat, action, rid, "player", 1_764_000_000.123456)


def watched(hub: Hub, game_id: str = "g") -> Subscribed:
    subscribed = hub.subscribe(game_id)
    subscribed.__enter__()
    return subscribed


def test_rows_that_follow_on_are_handed_out_up_to_the_latest_hint() -> None:
    hub = Hub()
    watched(hub)
    hub.publish("g", 5, [row(5)])
    hub.publish("g", 7, [row(6), row(7)])  # a turn: two rows in one hint
    assert [r.version for r in hub.rows_after("g", 4) or ()] == [5, 6, 7]
    assert [r.version for r in hub.rows_after("g", 6) or ()] == [7]
    assert hub.rows_after("g", 7) == ()  # caught up with the hints
    assert hub.rows_after("g", 3) is None  # version 4 was never hinted here


def test_a_gap_a_hint_without_rows_or_a_lost_connection_sends_watchers_to_the_log() -> None:
    hub = Hub()
    watched(hub)
    hub.publish("g", 5, [row(5)])
    hub.publish("g", 7, [row(7)])  # 6 was lost
    assert hub.rows_after("g", 5) is None
    assert [r.version for r in hub.rows_after("g", 6) or ()] == [7]
    hub.publish("g", 8)  # another replica's NOTIFY: no rows
    assert hub.rows_after("g", 7) is None
    hub.publish("g", 9, [row(9)])
    hub.wake_all()
    assert hub.rows_after("g", 8) is None


def test_only_watched_games_keep_rows_and_only_the_latest_few() -> None:
    hub = Hub()
    hub.publish("unwatched", 1, [row(1)])
    assert hub.rows_after("unwatched", 0) is None
    subscribed = watched(hub)
    for v in range(1, 20):
        hub.publish("g", v, [row(v)])
    assert [r.version for r in hub.rows_after("g", 19 - ROWS_KEPT) or ()] == list(
        range(20 - ROWS_KEPT, 20)
    )
    assert hub.rows_after("g", 18 - ROWS_KEPT) is None
    subscribed.__exit__(None, None, None)
    assert hub.rows_after("g", 18) is None  # gone with the game's last watcher


@given(
    st.integers(min_value=1, max_value=10**9),
    st.lists(
        st.tuples(
            st.integers(0, 3),
            st.sampled_from(MOVES),
            st.one_of(st.none(), st.text(max_size=40)),
            st.sampled_from(["player", "robot", "timeout"]),
            st.floats(min_value=0, max_value=4e9, allow_nan=False),
        ),
        max_size=6,
    ),
)
def test_a_message_carries_its_rows_exactly(
    first: int, listed: list[tuple[int, str, str | None, str, float]]
) -> None:
    rows = tuple(
        LogRecord(first + i, seat, Action("move", seat, move=parse_move(text)), rid, actor, at)
        for i, (seat, text, rid, actor, at) in enumerate(listed)
    )
    version = first + len(rows) - 1 if rows else first
    assert read_payload(payload(version, rows)) == (version, rows)


def test_a_message_read_in_part_is_a_hint_without_rows() -> None:
    good = payload(8, [row(7), row(8)])
    assert read_payload(good)[1]
    assert read_payload(b"8") == (8, ())  # an older replica's message
    assert read_payload(good[:-3]) == (8, ())  # cut short
    assert read_payload(payload(9, [row(7), row(8)])) == (9, ())  # not ending at 9
    assert read_payload(payload(8, [row(6), row(8)])) == (8, ())  # a gap
    assert read_payload(b'8\n[[8,0,"{}",null,"player",1]]') == (8, ())  # no kind
    assert read_payload(b"x\n[]") == (None, ())
