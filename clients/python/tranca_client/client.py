"""The clients: ``AsyncTrancaClient`` (asyncio) and ``TrancaClient`` (blocking).

Both wrap ``tranca.v1.GameService`` (and, for an app, ``PlayerService`` and
``TournamentService``; quick play's ``QuickPlayService`` in ``quick_play.py``) with
typed errors (``tranca_client.errors``), per-call credentials, a default deadline,
and retries that are safe:

- reads (``get_view``, ``legal_moves``, ``get_replay``, ``list_games``,
  ``list_presets``, ``get_tournament``, ``list_tournaments``,
  ``export_tournament``...) are retried after UNAVAILABLE or DEADLINE_EXCEEDED;
- ``submit_move`` and ``leave_game`` carry a request id made by the client (a UUID
  unless you pass one); a retry reuses the same id, so a move whose answer was lost
  is applied once and the retry gets the first answer (``replayed`` is then true);
- ``start_game`` is retried, and a retry finding the game started returns its view;
- a seat's table actions (``reclaim_seat``, ``vote_annul``, ``add_entropy``) carry a
  request id as ``submit_move`` does; ``grant_chips`` is idempotent by its grant id;
- a tournament's changes (``start_round``, ``record_forfeit``, ``withdraw_entrant``,
  ``register_entrant``, ``check_in_entrant``, ``cancel_tournament``,
  ``correct_result``) are retried, after ABORTED too (TOURNAMENT_CONFLICT: it kept
  changing under the call, nothing was done): the server makes a repeat of each
  change nothing; ``create_tournament`` is not retried (a lost answer may have made
  the tournament, and a retry would make a second);
- ``create_game`` and ``join_game`` are not retried after UNAVAILABLE or
  DEADLINE_EXCEEDED (a lost answer could have made a game or taken a seat): they
  raise ``Unavailable`` and the caller decides;
- calls that send no expected version (``join_game``, ``start_game``,
  ``leave_game``) are retried after ABORTED: another write won the race to the
  game's row and nothing was done;
- ABORTED (another move got in first) is never retried blindly: ``submit_move``
  fetches a fresh view and raises ``VersionConflict`` carrying it;
- RESOURCE_EXHAUSTED with reason RATE_LIMITED (refused before anything was done) is
  retried by every call, after the server's ``retry_after_ms`` hint.

Retries are bounded (``RetryPolicy.max_attempts``) with exponential backoff and
jitter; each attempt has its own deadline (``timeout``).

Credentials: an API key (``x-api-key``) identifies an app, a player token
(``authorization: Bearer``) one seat of one game. A client may hold both: calls that
need an app send the key, calls that need a seat send the token, and calls that take
either (``start_game``, ``get_view``, ``get_replay``, ``watch``) send the token when
there is one. ``with_token`` makes a client for another seat on the same connection.
"""

from __future__ import annotations

from .async_client import AsyncTrancaClient, KnobOverride, knob_value
from .connection import (
    API_KEY_HEADER,
    DEFAULT_ADDRESS,
    DEFAULT_TIMEOUT,
    RATE_LIMITED,
    RetryPolicy,
    is_loopback,
)
from .platform_calls import AsyncPlatformCalls
from .sync_client import TrancaClient

__all__ = [
    "API_KEY_HEADER",
    "DEFAULT_ADDRESS",
    "DEFAULT_TIMEOUT",
    "RATE_LIMITED",
    "AsyncPlatformCalls",
    "AsyncTrancaClient",
    "KnobOverride",
    "RetryPolicy",
    "TrancaClient",
    "is_loopback",
    "knob_value",
]
