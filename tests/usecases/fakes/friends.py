"""The fake of the friends' port (services/friends.py): both sides of each pair in a
dict, changed under no lock (the fakes run one call at a time), and the events each
change writes kept in order."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tranca.platform.friendships import Counts, Outcome, Pair, Relation
from tranca.services.friends import Applied, Decide, Relationship
from tranca.services.profiles import PublicProfile
from tranca.table.events import Event

from .records import StoredSession


class FriendsMemory:
    """``FriendsRepository`` in memory. A player is known by a session of theirs."""

    def __init__(self, sessions: dict[str, StoredSession]) -> None:
        self.sessions = sessions
        # (app, player, other) -> (relation, since)
        self.sides: dict[tuple[str, str, str], tuple[Relation, int]] = {}
        self.events: list[tuple[str, Event]] = []

    async def player_known(self, app_id: str, player_id: str) -> bool:
        return any(
            (s.new.app_id, s.new.player_id) == (app_id, player_id) for s in self.sessions.values()
        )

    def _counts(self, app_id: str, player_id: str) -> Counts:
        mine = [r for (a, p, _), (r, _) in self.sides.items() if (a, p) == (app_id, player_id)]
        return Counts(
            mine.count(Relation.FRIEND),
            mine.count(Relation.REQUEST_SENT),
            mine.count(Relation.BLOCKED),
        )

    async def change_pair(
        self,
        app_id: str,
        actor: str,
        other: str,
        decide: Decide,
        events: Callable[[Pair, Outcome], Sequence[Event]],
        now: int,
    ) -> Applied:
        mine = self.sides.get((app_id, actor, other), (Relation.NONE, 0))
        theirs = self.sides.get((app_id, other, actor), (Relation.NONE, 0))
        before = Pair(mine[0], theirs[0])
        outcome = decide(before, self._counts(app_id, actor), self._counts(app_id, other))
        if outcome.change is None:
            return Applied(before, outcome, mine[1])
        for key, was, now_is in (
            ((app_id, actor, other), before.mine, outcome.after.mine),
            ((app_id, other, actor), before.theirs, outcome.after.theirs),
        ):
            if was == now_is:
                continue
            if now_is == Relation.NONE:
                self.sides.pop(key, None)
            else:
                self.sides[key] = (now_is, now)
        self.events += [(app_id, e) for e in events(before, outcome)]
        since = now if outcome.after.mine != before.mine else mine[1]
        return Applied(before, outcome, since)

    async def relations(
        self,
        app_id: str,
        player_id: str,
        kinds: frozenset[Relation],
        after: str,
        limit: int,
    ) -> list[Relationship]:
        rows = sorted(
            (
                Relationship(o, r, since)
                for (a, p, o), (r, since) in self.sides.items()
                if (a, p) == (app_id, player_id) and o > after and (not kinds or r in kinds)
            ),
            key=lambda row: row.player_id,
        )
        return rows[:limit]

    async def profiles_of(self, app_id: str, player_ids: Sequence[str]) -> dict[str, PublicProfile]:
        out: dict[str, PublicProfile] = {}
        for s in self.sessions.values():
            if s.new.app_id == app_id and s.new.player_id in player_ids:
                out[s.new.player_id] = PublicProfile(s.new.player_id, s.new.display_name, "", "")
        return out
