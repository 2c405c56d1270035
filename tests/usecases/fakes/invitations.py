"""The fake of the invitations' port (services/invitations.py): the invitations in a
dict by id, the events each change writes kept in order, the tables and owners read
from the games' fake and the pairs of players from the friends' fake. No lock: the
fakes run one call at a time."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tranca.platform.friendships import Pair, Relation
from tranca.platform.invitations import InvitationKind, Status, admits
from tranca.services.invitations import (
    CheckCounts,
    Direction,
    Events,
    InvitationRecord,
    TableFacts,
    stage_of,
    with_status,
)
from tranca.services.paging import Position
from tranca.services.profiles import PublicProfile
from tranca.table.events import Event

from .friends import FriendsMemory
from .records import StoredGame


class InvitationsMemory:
    """``InvitationsRepository`` (and ``PrivateTableGuests``) in memory."""

    def __init__(
        self, games: dict[str, StoredGame], friends: FriendsMemory, clock: Callable[[], int]
    ) -> None:
        self.games = games
        self.friends = friends
        self.clock = clock
        self.rows: dict[str, InvitationRecord] = {}
        self.events: list[Event] = []

    async def player_known(self, app_id: str, player_id: str) -> bool:
        return await self.friends.player_known(app_id, player_id)

    async def profiles_of(self, app_id: str, player_ids: Sequence[str]) -> dict[str, PublicProfile]:
        return await self.friends.profiles_of(app_id, player_ids)

    async def pair(self, app_id: str, player_id: str, other_id: str) -> Pair:
        sides = self.friends.sides
        mine = sides.get((app_id, player_id, other_id), (Relation.NONE, 0))[0]
        theirs = sides.get((app_id, other_id, player_id), (Relation.NONE, 0))[0]
        return Pair(mine, theirs)

    async def owner_of(self, game_id: str) -> str | None:
        game = self.games.get(game_id)
        return None if game is None else game.owner_id

    def _live(self, r: InvitationRecord, now: int) -> bool:
        return r.status == Status.PENDING and r.expires_ms > now

    async def add_invitation(
        self, new: InvitationRecord, check: CheckCounts, events: Events, now: int
    ) -> tuple[InvitationRecord, bool]:
        for r in self.rows.values():
            if (r.game_id, r.invitee_id) == (new.game_id, new.invitee_id) and self._live(r, now):
                return r, False
        live = [r for r in self.rows.values() if r.app_id == new.app_id and self._live(r, now)]
        check(
            sum(r.inviter_id == new.inviter_id for r in live),
            sum(r.invitee_id == new.invitee_id for r in live),
        )
        self.rows[new.id] = new
        self.events += events(new)
        return new, True

    async def invitation(self, app_id: str, invitation_id: str) -> InvitationRecord | None:
        found = self.rows.get(invitation_id)
        return found if found is not None and found.app_id == app_id else None

    async def set_status(
        self, invitation_id: str, status: Status, now: int, events: Events
    ) -> InvitationRecord | None:
        found = self.rows[invitation_id]
        if found.status != Status.PENDING:
            return None
        done = self.rows[invitation_id] = with_status(found, status, now)
        self.events += events(done)
        return done

    async def invitations(
        self,
        app_id: str,
        player_id: str,
        direction: Direction,
        status: Status | None,
        now: int,
        before: Position | None,
        limit: int,
    ) -> list[InvitationRecord]:
        def wanted(r: InvitationRecord) -> bool:
            mine = (direction != Direction.SENT and r.invitee_id == player_id) or (
                direction != Direction.RECEIVED and r.inviter_id == player_id
            )
            if r.app_id != app_id or not mine:
                return False
            if before is not None and (r.created_ms, r.id) >= (before.created, before.row_id):
                return False
            if status == Status.PENDING:
                return self._live(r, now)
            if status == Status.EXPIRED:
                return r.status == Status.PENDING
            return status is None or r.status == status

        rows = sorted(
            (r for r in self.rows.values() if wanted(r)),
            key=lambda r: (r.created_ms, r.id),
            reverse=True,
        )
        return rows[:limit]

    async def tables(self, game_ids: Sequence[str]) -> dict[str, TableFacts]:
        out: dict[str, TableFacts] = {}
        for game_id in game_ids:
            g = self.games.get(game_id)
            if g is not None:
                setup = g.state.setup
                out[game_id] = TableFacts(
                    setup.rules.name, setup.players, g.label, stage_of(g.state)
                )
        return out

    async def admitted(self, app_id: str, game_id: str, player_id: str, spectator: bool) -> bool:
        now = self.clock()
        for r in self.rows.values():
            if (r.app_id, r.game_id, r.invitee_id) != (app_id, game_id, player_id):
                continue
            live = r.status == Status.ACCEPTED or self._live(r, now)
            if live and admits(InvitationKind(r.kind), spectator):
                return True
        owner = await self.owner_of(game_id)
        if owner is None:
            return False
        if owner == player_id:
            return True
        return (await self.pair(app_id, owner, player_id)).mine == Relation.FRIEND
