"""The fake of the games' ports: create, read, list, log, commit once per request id."""

from __future__ import annotations

import uuid

from tranca.platform import chips
from tranca.services.errors import DuplicateRequest, NotFound
from tranca.services.paging import Position
from tranca.services.ports import (
    GameChange,
    GameRecord,
    LogRecord,
    NewGame,
)
from tranca.table.game import Action, Setup

from .notifications import NotificationsMemory
from .records import StoredGame, _copy


class GamesMemory(NotificationsMemory):
    """The games' ports, in memory."""

    # ----- games ------------------------------------------------------------------------

    async def create_game(self, new: NewGame) -> str:
        game_id = new.game_id or uuid.uuid4().hex
        self.games[game_id] = StoredGame(
            game_id,
            new.app_id,
            0,
            _copy(new.state),
            new.label,
            self.now / 1000 + next(self._order) * 1e-6,
            new.invite_hash,
            owner_id=new.owner_id,
        )
        return game_id

    def _stored(self, game_id: str) -> StoredGame:
        g = self.games.get(game_id)
        if g is None:
            raise NotFound(f"no game {game_id}")
        return g

    def _record(self, g: StoredGame) -> GameRecord:
        status = str(g.state.status)
        return GameRecord(
            g.id, g.app_id, status, g.version, g.label, g.created_at, _copy(g.state),
            g.deadline_at,
        )  # fmt: skip

    async def game(self, game_id: str) -> GameRecord:
        return self._record(self._stored(game_id))

    async def setup_of(self, game_id: str) -> Setup:
        # As created, as the store's column keeps it (the table head's changes are in
        # the log).
        return self._stored(game_id).state.created

    async def current_version(self, game_id: str) -> int:
        g = self.games.get(game_id)
        return -1 if g is None else g.version

    async def invite_hash(self, game_id: str) -> str | None:
        return self._stored(game_id).invite_hash

    async def list_games(
        self, app_id: str, status: str | None, limit: int, offset: int, open_only: bool = False
    ) -> list[GameRecord]:
        games = [g for g in self.games.values() if g.app_id == app_id]
        if status:
            games = [g for g in games if g.state.status == status]
        if open_only:
            games = [
                g
                for g in games
                if g.state.status == "waiting"
                and g.invite_hash is None
                and sum(1 for s in g.state.seats if s.taken) < g.state.setup.players
            ]
        games.sort(key=lambda g: (-g.created_at, g.id))
        return [self._record(g) for g in games[offset : offset + limit]]

    async def waiting_tables(
        self, app_id: str, preset: str, players: int, after: Position | None, limit: int
    ) -> list[tuple[GameRecord, Position]]:
        found = [
            (g, Position(round(g.created_at * 1e6), g.id))
            for g in self.games.values()
            if g.app_id == app_id
            and g.state.status == "waiting"
            and g.invite_hash is None
            and (not preset or g.state.setup.rules.name == preset)
            and (not players or g.state.setup.players == players)
        ]
        found.sort(key=lambda gc: (gc[1].created, gc[1].row_id))
        if after is not None:
            found = [
                gc for gc in found if (gc[1].created, gc[1].row_id) > (after.created, after.row_id)
            ]
        return [(self._record(g), c) for g, c in found[:limit]]

    async def log(self, game_id: str, after: int = 0, upto: int | None = None) -> list[LogRecord]:
        rows = self._stored(game_id).log
        return [r for r in rows if after < r.version and (upto is None or r.version <= upto)]

    async def logged_request(self, game_id: str, request_id: str) -> tuple[int, Action] | None:
        for row in self._stored(game_id).log:
            if row.request_id == request_id:
                return row.version, row.action
        return None

    async def deadline_of(self, game_id: str) -> tuple[int, int | None]:
        g = self.games.get(game_id)
        return (-1, None) if g is None else (g.version, g.deadline_at)

    async def duplicate_round_in_play(self, game_id: str) -> bool:
        return False  # no tournaments here

    async def in_tournament(self, game_id: str) -> bool:
        return False  # no tournaments here

    async def commit(self, change: GameChange) -> float | None:
        """As each database's change: all or nothing, at the version read only."""
        g = self._stored(change.game_id)
        if g.version != change.version:
            return None
        rows = ((change.action, change.request_id), *change.then)
        for _, rid in rows:
            if rid and any(r.request_id == rid for r in g.log):
                raise DuplicateRequest(f"request id {rid} is in the log")
        if change.stake is not None:
            s = change.stake
            for player in s.player_ids:
                balance = self.chips.get((s.app_id, player), 0)
                if balance < s.amount:
                    raise chips.InsufficientChips(player, balance, s.amount)
            for player in s.player_ids:
                self.chips[(s.app_id, player)] -= s.amount
        g.state = _copy(change.state)
        if change.deadline_set:
            g.deadline_at = change.deadline_at
        for action, rid in rows:  # a turn's moves: each its own row and version
            g.version += 1
            g.log.append(
                LogRecord(g.version, action.seat, action, rid, change.actor, self.now / 1000)
            )
        if change.revoke_seat is not None:
            for stored in self.tokens.values():
                if stored.game_id == g.id and stored.token.seat == change.revoke_seat:
                    stored.revoked = True
        if change.new_token is not None:
            await self.add_token(g.id, change.new_token)
        self._write_events(g.app_id, change.events)
        self.commits += 1
        return self.now / 1000
