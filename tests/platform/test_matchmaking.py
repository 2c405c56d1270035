"""Quick play's matching (platform/matchmaking.py): tables of one kind, oldest tickets
first, ratings within windows that widen with the wait, partners across the table,
robots only where the app allows them and only after its wait."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from tranca.platform.matchmaking import (
    Kind,
    Ticket,
    apart_key,
    compatible,
    match,
    robots_allowed,
    seat_order,
)

PAIRS = Kind("app", "tranca-000", 2, False, 0)
FOURS = Kind("app", "tranca-000", 4, False, 0)
RATED_FOURS = Kind("app", "tranca-000", 4, True, 0)


def ticket(
    n: int, kind: Kind = PAIRS, rating: float = 25.0, at: int = 0, party: int = 1, robots: int = 0
) -> Ticket:
    players = tuple(f"p{n}" if party == 1 else f"p{n}{c}" for c in "ab"[:party])
    return Ticket(f"t{n:03d}", kind, players, rating, at, robots)


def test_two_waiting_players_of_one_kind_make_a_table_oldest_first() -> None:
    tables = match([ticket(2, at=20), ticket(1, at=10), ticket(3, at=30)], now=40)
    assert len(tables) == 1
    assert [t.id for t in tables[0].tickets] == ["t001", "t002"]
    assert tables[0].seats == ("p1", "p2")


def test_tickets_of_different_kinds_never_share_a_table() -> None:
    rated = Kind("app", "tranca-000", 2, True, 0)
    other_app = Kind("other", "tranca-000", 2, False, 0)
    assert match([ticket(1), ticket(2, rated), ticket(3, other_app)], now=0) == []


def test_the_rating_window_widens_with_the_wait() -> None:
    strong, novice = ticket(1, rating=35.0, at=0), ticket(2, rating=25.0, at=0)
    assert not compatible(strong, novice, now=0)  # 10 points apart, windows of 3
    assert match([strong, novice], now=10_000) == []  # windows of 5.5
    # After 28 s both windows reach 10: they play.
    assert len(match([strong, novice], now=28_000)) == 1


def test_the_anchor_takes_the_closest_ratings_first() -> None:
    anchor = ticket(1, rating=25.0, at=0)
    near, far = ticket(2, rating=26.0, at=5), ticket(3, rating=27.5, at=1)
    (table,) = match([anchor, near, far], now=5)
    assert table.seats == ("p1", "p2")


def test_partners_sit_across_and_four_singles_make_the_most_even_pairs() -> None:
    party = ticket(1, FOURS, party=2)
    (with_party,) = match([party, ticket(2, FOURS), ticket(3, FOURS)], now=0)
    assert with_party.seats[0::2] == ("p1a", "p1b")
    singles = [ticket(n, FOURS, rating=r) for n, r in enumerate([30.0, 24.0, 27.0, 26.0])]
    (even,) = match(singles, now=60_000)
    # Strongest (30) with weakest (24) against the middle two (27 and 26).
    assert {even.seats[0], even.seats[2]} == {"p0", "p1"}
    assert {even.seats[1], even.seats[3]} == {"p2", "p3"}


def test_robots_fill_practice_tables_only_after_the_apps_wait() -> None:
    alone = ticket(1, FOURS, party=2, robots=30_000)
    assert match([alone], now=29_999) == []
    (table,) = match([alone], now=30_000)
    assert table.seats == ("p1a", None, "p1b", None)
    rated = ticket(2, RATED_FOURS, robots=30_000)
    assert not robots_allowed(RATED_FOURS)
    assert match([rated], now=10**9) == []
    never = ticket(3, FOURS)  # the app allows no robots
    assert match([never], now=10**9) == []


def test_seat_order_of_a_party_and_robots() -> None:
    assert seat_order(PAIRS, [ticket(1)]) == ("p1", None)
    assert seat_order(FOURS, [ticket(1, FOURS, party=2), ticket(2, FOURS, party=2)]) == (
        "p1a",
        "p2a",
        "p1b",
        "p2b",
    )


kinds = st.sampled_from([PAIRS, FOURS, RATED_FOURS])


@st.composite
def waiting(draw: st.DrawFn) -> list[Ticket]:
    n = draw(st.integers(0, 40))
    out = []
    for i in range(n):
        kind = draw(kinds)
        party = draw(st.sampled_from([1, 2])) if kind.players == 4 else 1
        out.append(
            ticket(
                i,
                kind,
                rating=draw(st.floats(10, 40)),
                at=draw(st.integers(0, 120_000)),
                party=party,
                robots=draw(st.sampled_from([0, 30_000])),
            )
        )
    return out


@given(waiting(), st.integers(0, 240_000))
def test_every_table_is_full_fair_and_takes_each_ticket_once(
    tickets: list[Ticket], now: int
) -> None:
    now = max([now, *(t.created_ms for t in tickets)])
    tables = match(tickets, now)
    used = [t.id for table in tables for t in table.tickets]
    assert len(used) == len(set(used))
    for table in tables:
        kind = table.kind
        assert all(t.kind == kind for t in table.tickets)
        assert len(table.seats) == kind.players
        people = [p for p in table.seats if p is not None]
        assert sorted(people) == sorted(p for t in table.tickets for p in t.player_ids)
        for t in table.tickets:
            if len(t.player_ids) == 2:
                a, b = (table.seats.index(p) for p in t.player_ids)
                assert a % 2 == b % 2  # partners on one side
        if len(people) < kind.players:
            anchor = min(table.tickets, key=lambda t: (t.created_ms, t.id))
            assert robots_allowed(kind) and anchor.robots_after_ms > 0
            assert anchor.waited(now) >= anchor.robots_after_ms
        for one in table.tickets:
            for other in table.tickets:
                assert compatible(one, other, now)


def test_two_parties_make_a_table_though_a_single_waits_between_them() -> None:
    # Rated 4-player tables, three newcomers' tickets (all rated 25): a party, a
    # single, a party. The single cannot sit with one party (three players), but the
    # two parties fill the table: they play, and the single waits.
    first = ticket(1, RATED_FOURS, at=0, party=2)
    single = ticket(2, RATED_FOURS, at=1)
    second = ticket(3, RATED_FOURS, at=2, party=2)
    (table,) = match([first, single, second], now=3)
    assert {t.id for t in table.tickets} == {"t001", "t003"}
    assert table.seats == ("p1a", "p3a", "p1b", "p3b")


def test_a_single_close_to_the_anchor_does_not_block_the_only_table() -> None:
    # Four fresh tickets (windows of 3): the anchor at 25 has a single at 26.5, a
    # party at 22.8 and a single at 22.5 within reach. The closest (26.5) is too far
    # from the other two to sit with them, and it leaves no table with the anchor; the
    # party and the other single fill the table with the anchor.
    anchor = ticket(1, RATED_FOURS, rating=25.0, at=0)
    close = ticket(2, RATED_FOURS, rating=26.5, at=0)
    low = ticket(3, RATED_FOURS, rating=22.5, at=0)
    party = ticket(4, RATED_FOURS, rating=22.8, at=0, party=2)
    (table,) = match([anchor, close, low, party], now=0)
    assert {t.id for t in table.tickets} == {"t001", "t003", "t004"}


def could_make_a_table(group: Sequence[Ticket], now: int) -> bool:
    """The oracle: whether some set of ``group`` (tickets of one kind) could fill a
    table by the rules, tried one set after another."""
    if not group:
        return False
    kind = group[0].kind
    for t in group:
        if robots_allowed(kind) and 0 < t.robots_after_ms <= t.waited(now):
            return True  # robots would fill the seats it leaves empty
    for size in range(1, kind.players + 1):
        for chosen in combinations(group, size):
            if sum(len(t.player_ids) for t in chosen) != kind.players:
                continue
            if all(compatible(a, b, now) for a, b in combinations(chosen, 2)):
                return True
    return False


@st.composite
def crowded(draw: st.DrawFn) -> tuple[list[Ticket], int]:
    """Up to 12 tickets of few kinds, close in rating (windows of 3 to 8 apart), with
    parties, some allowed robots: a queue where tables could be made many ways."""
    n = draw(st.integers(0, 12))
    out = []
    for i in range(n):
        kind = draw(st.sampled_from([PAIRS, FOURS, RATED_FOURS, RATED_FOURS]))
        party = draw(st.sampled_from([1, 2])) if kind.players == 4 else 1
        out.append(
            ticket(
                i,
                kind,
                rating=draw(st.sampled_from([20.0, 22.5, 24.0, 25.0, 25.0, 26.5, 28.0, 31.0])),
                at=draw(st.integers(0, 20_000)),
                party=party,
                robots=draw(st.sampled_from([0, 0, 0, 15_000])),
            )
        )
    now = draw(st.integers(0, 40_000))
    return out, max([now, *(t.created_ms for t in out)])


@given(crowded())
@settings(max_examples=600)
def test_no_table_is_left_unmade_among_the_tickets_still_waiting(
    queue: tuple[list[Ticket], int],
) -> None:
    tickets, now = queue
    tables = match(tickets, now)
    placed = [t.id for table in tables for t in table.tickets]
    assert len(placed) == len(set(placed)), "a ticket placed twice"
    seated = [p for table in tables for p in table.seats if p is not None]
    assert len(seated) == len(set(seated)), "a player seated twice"
    for table in tables:
        for t in table.tickets:
            assert t in tickets
            if len(t.player_ids) == 2:  # partners together, across the table
                a, b = (table.seats.index(p) for p in t.player_ids)
                assert a != b and a % 2 == b % 2
        assert all(compatible(a, b, now) for a, b in combinations(table.tickets, 2))
    left = [t for t in tickets if t.id not in placed]
    for kind in {t.kind for t in left}:
        group = [t for t in left if t.kind == kind]
        assert not could_make_a_table(group, now), f"a table left unmade: {group}"


def test_two_players_kept_apart_by_a_block_never_share_a_table() -> None:
    apart = frozenset({apart_key("app", "p2", "p1")})
    assert match([ticket(1), ticket(2)], now=0, apart=apart) == []
    (table,) = match([ticket(1), ticket(2), ticket(3, at=1)], now=1, apart=apart)
    assert table.seats == ("p1", "p3")
    # At four, a party's players count one by one: p4a blocked p1, so the only table
    # with p1 (p1, one single and the party) is not made; p1 waits and the others play.
    apart4 = frozenset({apart_key("app", "p1", "p4a")})
    fours = [ticket(1, FOURS), ticket(2, FOURS), ticket(3, FOURS), ticket(4, FOURS, party=2)]
    (four,) = match(fours, now=0, apart=apart4)
    assert set(four.seats) == {"p2", "p3", "p4a", "p4b"}
    # Another app's block keeps no one apart here.
    assert len(match([ticket(1), ticket(2)], now=0, apart=frozenset({("other", "p1", "p2")}))) == 1
