"""The fake of the played games' port (services/player_data.py), read from the
games' fake: a player's seats are the seat tokens that name it."""

from __future__ import annotations

from tranca.services.player_data import PlayedGame, PlayedMove
from tranca.store.codec import action_text, loads

from .records import MemoryState


class PlayedGamesMemory:
    """``PlayedGamesRepository`` over the in-memory games and seat tokens."""

    def __init__(self, state: MemoryState) -> None:
        self.state = state

    async def games_of_player(self, app_id: str, player_id: str) -> list[PlayedGame]:
        seats = sorted(
            {
                (self.state.games[t.game_id].created_at, t.game_id, t.token.seat)
                for t in self.state.tokens.values()
                if t.token.player_id == player_id
                and t.token.seat >= 0
                and self.state.games[t.game_id].app_id == app_id
            }
        )
        out: list[PlayedGame] = []
        for _, game_id, seat in seats:
            game = self.state.games[game_id]
            moves = tuple(
                PlayedMove(
                    r.version, loads(action_text(r.action)), r.actor, int(r.created_at * 1000)
                )
                for r in game.log
                if r.seat == seat
            )
            setup = game.state.setup
            out.append(
                PlayedGame(game_id, game.label, setup.rules.name, game.state.status, seat, moves)
            )
        return out
