"""What the contract cases build: a table's first state, its setup, a seat's token."""

from __future__ import annotations

import uuid

from tranca.services.credentials import hash_secret
from tranca.services.ports import GameChange, NewGame, SeatToken
from tranca.table.game import Action, GameState, Setup, new_game
from tranca_rules.presets import make_rules

# A token that works for a day from now, whatever clock the store reads (the fake's
# is in 2023, the databases' is the machine's).
FAR_FUTURE_MS = 4_000_000_000_000


def setup(seed: int = 7) -> Setup:
    return Setup(make_rules("tranca-000"), 2, seed)


def state(seed: int = 7) -> GameState:
    return new_game(setup(seed))


def new_table(app_id: str, label: str = "", seed: int = 7) -> NewGame:
    return NewGame(app_id, setup(seed), state(seed), label)


def join(
    game_id: str,
    version: int,
    seat: int = 0,
    *,
    request_id: str | None = None,
    token: str | None = None,
    expires_at: int = FAR_FUTURE_MS,
) -> GameChange:
    """Seat ``seat`` at ``version``, with a token of the seat if ``token`` is given."""
    new_token = (
        None
        if token is None
        else SeatToken(hash_secret(token), seat, f"p{seat}", expires_at=expires_at)
    )
    return GameChange(
        game_id,
        version,
        state(),
        Action("join", seat, name=f"p{seat}"),
        request_id=request_id,
        new_token=new_token,
    )


def request_id() -> str:
    return uuid.uuid4().hex
