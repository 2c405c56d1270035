"""A seat's table actions: Heartbeat and ReclaimSeat (presence and robots),
SetAutomatic (automatic mode: table/automatic.py), VoteAnnul and AddEntropy.

The last three are logged actions of the game ("return", "annul_vote", "entropy");
the game's own logic (``tranca.table.game.apply_action``) decides whether they are
allowed. Here: who may call, the request's shape, and the answer. A retry with the
same request id gets the first answer (``Moves`` finds it in the log)."""

from __future__ import annotations

from dataclasses import dataclass

from .. import metrics
from ..reasons import Reason
from ..table.action_kinds import ActionKind
from ..table.game import ANNULLED, BY_AUTO, FINISHED, MAX_ENTROPY_BYTES, Action, GameState
from .access import Credentials, require_player
from .errors import Refusal, Refused, malformed
from .games import Games, Shown
from .policy import AppPolicies, AppPolicy


@dataclass(frozen=True)
class Annulment:
    version: int
    votes: list[int]
    annulled: bool


class Tables:
    def __init__(self, games: Games, policies: AppPolicies | None = None) -> None:
        self.games = games
        self.moves = games.moves
        self.presence = games.presence
        # The apps' policies: the robot level automatic mode may play at most (None:
        # every app has the defaults).
        self.policies = policies

    async def heartbeat(self, credentials: Credentials, game_id: str) -> bool:
        """The seat's player is there: recorded (tables with robots only). Whether a
        robot holds the seat now (the player then calls ReclaimSeat)."""
        loaded = await self.games.seat_of(credentials, game_id)
        seat = loaded.player.seat
        # A heartbeat is the client's explicit word: written whatever this process wrote
        # lately (the client chooses its own pace, within the rate limit).
        await self.presence.touch(game_id, seat, loaded.state, force=True)
        return seat in loaded.state.robots

    async def reclaim(self, credentials: Credentials, game_id: str, request_id: str) -> Shown:
        """The player takes their seat back from the robot (a "return" in the log). If
        it is their turn, the turn's clock starts again from now (``next_deadline``)."""
        loaded = await self.games.seat_of(credentials, game_id)
        seat = loaded.player.seat
        # Present first, so that no sweep takes the seat again before the return is read.
        await self.presence.touch(game_id, seat, loaded.state, force=True)
        done = await self.moves.apply(
            game_id, Action(ActionKind.RETURN, seat), request_id=request_id or None
        )
        if not done.replayed:
            metrics.SEATS_RECLAIMED.inc()
        deadline = done.deadline_at if done.deadline_set else loaded.deadline_at
        return await self.games.shown(game_id, done.version, done.state, seat, deadline)

    async def set_automatic(
        self, credentials: Credentials, game_id: str, on: bool, request_id: str
    ) -> Shown:
        """Automatic mode (003: "Juego en modo automático"): ``on``, the server's robot
        plays the caller's seat from now (a "robot" by BY_AUTO in the log, at the
        table's robot level bounded by the app's ``automatic_robot_level``); off, the
        player takes it back (a "return", as ReclaimSeat). The seat's player only
        (a spectator or the app's key is refused by ``seat_of``)."""
        loaded = await self.games.seat_of(credentials, game_id)
        seat = loaded.player.seat
        if on:
            policy = await self._policy(loaded.app_id)
            action = Action(ActionKind.ROBOT, seat, by=BY_AUTO, text=policy.automatic_robot_level)
        else:
            if seat not in loaded.state.automatic:
                raise Refused(
                    Refusal.PRECONDITION,
                    Reason.AUTOMATIC_NOT_ON,
                    f"seat {seat} is not in automatic mode",
                )
            # Present first, so that no sweep takes the seat over again at once.
            await self.presence.touch(game_id, seat, loaded.state, force=True)
            action = Action(ActionKind.RETURN, seat)
        done = await self.moves.apply(game_id, action, request_id=request_id or None)
        if not done.replayed:
            metrics.AUTOMATIC_SWITCHES.labels("on" if on else "off").inc()
        deadline = done.deadline_at if done.deadline_set else loaded.deadline_at
        return await self.games.shown(game_id, done.version, done.state, seat, deadline)

    async def _policy(self, app_id: str) -> AppPolicy:
        found = None if self.policies is None else await self.policies.app_policy(app_id)
        return found or AppPolicy()

    async def vote_annul(
        self, credentials: Credentials, game_id: str, request_id: str
    ) -> Annulment:
        """003: "Todos los jugadores deben estar de acuerdo en que la partida finalice";
        the match is annulled once every seat played by a person has voted."""
        caller = await self.games.access.identify(credentials)
        game = await self.games.game_for(caller, game_id)
        player = require_player(caller, game.id)  # apps and spectators do not vote
        done = await self.moves.apply(
            game.id, Action(ActionKind.ANNUL_VOTE, player.seat), request_id=request_id or None
        )
        g = done.state
        annulled = g.status == FINISHED and g.result_reason == ANNULLED
        if not done.replayed:
            metrics.ANNUL_VOTES.inc()
            if annulled:
                metrics.ANNULMENTS.inc()
        return Annulment(done.version, sorted(g.annul_votes), annulled)

    async def add_entropy(
        self, credentials: Credentials, game_id: str, text: str, request_id: str
    ) -> GameState:
        """Mix the caller's string into a verifiable table's deals (before the start
        only: the game refuses it later with GAME_STARTED). The game afterwards."""
        caller = await self.games.access.identify(credentials)
        game = await self.games.game_for(caller, game_id)
        if not text or len(text.encode("utf-8")) > MAX_ENTROPY_BYTES:
            raise malformed(f"entropy is 1 to {MAX_ENTROPY_BYTES} bytes of UTF-8")
        # The game's app (the organiser) or a seated player; spectators only watch.
        seat = -1 if caller.player is None else require_player(caller, game.id).seat
        done = await self.moves.apply(
            game.id, Action(ActionKind.ENTROPY, seat, text=text), request_id=request_id or None
        )
        if not done.replayed:
            metrics.ENTROPY_ADDED.inc()
        return done.state
