"""A seat's table actions: VoteAnnul and AddEntropy (GameService).

Both are logged actions of the game ("annul_vote", "entropy"); the game's own logic
(``tranca.app.game.apply_action``) decides whether they are allowed. Here: who may
call, the request's shape, and the answer. A retry with the same request id gets the
first answer (``Store.commit_action`` finds it in the log)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..app.game import ANNULLED, FINISHED, MAX_ENTROPY_BYTES, Action
from ..v1 import game_pb2 as pb
from . import metrics
from .auth import require_player
from .convert import commitment_to_pb
from .errors import malformed

if TYPE_CHECKING:
    from .servicer import GameService


async def vote_annul(
    svc: GameService, request: pb.VoteAnnulRequest, context: Any
) -> pb.VoteAnnulResponse:
    """003: "Todos los jugadores deben estar de acuerdo en que la partida finalice";
    the match is annulled once every seat played by a person has voted."""
    caller = await svc._identify(context)
    game = await svc._game_for(caller, request.game_id)
    request_id = request.request_id or None
    player = require_player(caller, game.id)  # a seat's token: apps and spectators do not vote
    done = await svc.store.commit_action(
        game.id,
        Action("annul_vote", player.seat),
        expected_version=None,
        request_id=request_id,
    )
    g = done.state
    annulled = g.status == FINISHED and g.result_reason == ANNULLED
    if not done.replayed:
        metrics.ANNUL_VOTES.inc()
        if annulled:
            metrics.ANNULMENTS.inc()
    return pb.VoteAnnulResponse(
        version=done.version, votes=sorted(g.annul_votes), annulled=annulled
    )


async def add_entropy(
    svc: GameService, request: pb.AddEntropyRequest, context: Any
) -> pb.AddEntropyResponse:
    """Mix the caller's string into a verifiable table's deals (before the start only:
    the game refuses it later with GAME_STARTED)."""
    caller = await svc._identify(context)
    game = await svc._game_for(caller, request.game_id)
    request_id = request.request_id or None
    text = request.entropy
    if not text or len(text.encode("utf-8")) > MAX_ENTROPY_BYTES:
        raise malformed(f"entropy is 1 to {MAX_ENTROPY_BYTES} bytes of UTF-8")
    # The game's app (the organiser) or a seated player; spectators only watch.
    seat = -1 if caller.player is None else require_player(caller, game.id).seat
    done = await svc.store.commit_action(
        game.id,
        Action("entropy", seat, text=text),
        expected_version=None,
        request_id=request_id,
    )
    if not done.replayed:
        metrics.ENTROPY_ADDED.inc()
    return pb.AddEntropyResponse(commitment=commitment_to_pb(done.state))
