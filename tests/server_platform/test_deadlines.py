"""A sweeper tells its own lease from a deadline a write set by the value alone
(``Sweeper._act_once``): the two must never be equal, whatever the clocks read. A 30 s
turn and a 30 s lease taken in the same millisecond would otherwise look alike, and the
sweeper would play a timeout on a turn that had just begun."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tranca.table.deadlines import lease_deadline, turn_deadline

MS = st.integers(min_value=0, max_value=2**62)


@given(MS, MS)
def test_a_lease_never_equals_a_deadline_a_write_sets(written: int, leased: int) -> None:
    assert turn_deadline(written) != lease_deadline(leased)


@given(MS)
def test_both_are_within_a_millisecond_of_the_time_asked_for(ms: int) -> None:
    assert 0 <= ms - turn_deadline(ms) <= 1
    assert 0 <= lease_deadline(ms) - ms <= 1
