"""Python SDK for the Tranca game service (tranca.v1).

A typed wrapper over the gRPC stubs of the contracts, which the distribution's build
generates into ``tranca_client.v1`` (``pb`` is ``tranca_client.v1.game_pb2``, ``ppb``
its ``platform_pb2``): an asyncio client, a blocking client, typed errors, safe
retries, a resuming watch, the move notation, and bots that play through the public
API.

Quick start (asyncio)
---------------------
::

    import asyncio
    from tranca_client import AsyncTrancaClient, GreedyBot, pb, run_bot

    async def main() -> None:
        async with AsyncTrancaClient("127.0.0.1:50051", api_key="dev-key-change-me") as app:
            game = await app.create_game("tranca-000", players=2, overrides={"target_score": 0})
            me = await app.join(game.game_id, 0, player_name="ana")
            other = await app.join(game.game_id, 1, player_name="bot")
            await app.start_game(game.game_id)
            bot = asyncio.create_task(run_bot(other, game.game_id, GreedyBot()))
            async for view in me.watch(game.game_id):        # resumes broken streams
                if view.status == pb.GAME_STATUS_PLAYING and view.turn == view.seat:
                    legal = await me.legal_moves(game.game_id)
                    await me.play(view, legal.moves[0])      # or the notation: "draw"
            await bot

    asyncio.run(main())

``TrancaClient`` has the same methods, blocking (``with TrancaClient(...) as app:``).

Connection options
------------------
``AsyncTrancaClient(address, *, api_key, token, insecure, root_certificates,
client_certificate, timeout, retry, channel_options, interceptors, channel)``:
``api_key`` for app calls, ``token`` (from ``join_game``) for a seat's calls;
plaintext to loopback addresses and TLS elsewhere unless ``insecure`` says otherwise
(``root_certificates``: PEM roots; ``client_certificate``: a (chain, key) PEM pair
for mutual TLS); ``timeout`` is the deadline of
each attempt (10 s); ``retry`` a ``RetryPolicy``. ``client.with_token(token)`` is a
client for another seat on the same connection; ``await app.join(game_id, seat)``
takes a seat and returns such a client.

Calls
-----
App (API key): ``list_presets``, ``create_game``, ``join_game``, ``join``,
``list_games``. Seat (token): ``legal_moves``, ``submit_move``, ``play``,
``leave_game``. Either: ``start_game``, ``get_view``, ``get_replay``, ``watch``,
``watch_updates``. Answers are the ``tranca.v1`` messages (``GameView``, ...), whose
fields are documented in ``proto/tranca/v1/game.proto``.

Quick play
----------
With a player's session token (``client.with_token(access_token)``) or the app's key
(naming ``player_ids``): ``ask_quick_play(preset, players)`` queues for a table and
returns the ticket (``qpb.Ticket``; retried with one request id, so a lost answer's
retry gets the same ticket); ``wait_for_ticket(ticket_id)`` follows it until it is
matched (``seats`` carries the caller's seat tokens) or ends; ``get_ticket``,
``cancel_ticket``; ``list_quick_play_tickets`` pages through a player's tickets,
newest first, and ``open_ticket()`` is the one still forming or waiting, if any: a
client that lost its ticket's id finds it there. An ``ALREADY_WAITING`` refusal
names the waiting ticket: ``waiting_ticket_id(error)``. See
``tranca_client.quick_play``.

Sessions
--------
A player's client talks to the service with a session, never the app's key:
``create_player_session(player_id)`` (the app's backend, with its key),
``sign_in_device(app_id, device_id)``, ``sign_in_guest(app_id)`` or
``sign_in_with_identity(app_id, provider, id_token)`` (an ID token from Sign in with
Apple, Google, Facebook Limited Login or an issuer the app names, or a custom token
its backend signed), where the app's policy (``app_policy``, ``set_app_policy``)
allows them; then ``client.with_token(session.access_token)``,
``refresh_session(refresh_token)`` and ``sign_out()``. Answers are ``spb`` messages
(``PlayerSession``). A player's data: ``export_player_data`` and ``erase_player``;
the app's audit log of erasures: ``audit_entries`` (``apb`` messages). See
``tranca_client.sessions``.

Errors
------
Every failed call raises a ``TrancaError`` subclass carrying ``code``, ``reason`` (the
service's machine code), ``message`` and ``metadata`` (the ErrorInfo's):
``InvalidRequest`` (INVALID_ARGUMENT), ``RuleRejected`` (FAILED_PRECONDITION, e.g.
``reason="NOT_YOUR_TURN"``), ``VersionConflict`` (ABORTED, with ``current_version``
and a fresh ``view``), ``AlreadyExists``, ``NotFound``, ``Unauthenticated``,
``PermissionDenied``, ``ResourceExhausted``, ``Unavailable`` and its subclass
``DeadlineExceeded``. See ``tranca_client.errors``.

Retries
-------
Reads are retried after UNAVAILABLE or DEADLINE_EXCEEDED, bounded, with exponential
backoff. ``submit_move`` makes a request id (or takes yours) and reuses it on every
retry, so a move whose answer was lost is applied once; the retry's answer has
``replayed=True``. ``create_game`` and ``join_game`` are not retried after a lost
answer (it may have made the game or taken the seat). An ABORTED move is not
retried: ``VersionConflict.view`` is the fresh view to decide from. A call refused
with RATE_LIMITED (nothing done) is retried after the server's hint. See
``tranca_client.client``.

Watching
--------
``async for view in client.watch(game_id, from_version=0)`` yields the caller's view
after every change, in order; a broken stream is reopened from the last version seen
(no gap, no duplicate); the iteration ends with the match. ``watch_updates`` yields
``WatchGameResponse`` (the view and the move that made it).

Moves
-----
``parse_move("meld 4H 5H 6H")`` builds a ``tranca.v1.Move`` from the notation
(``draw``, ``take @3``, ``take 5H 6H``, ``meld 4H 5H 6H``, ``add @2 7H``,
``replace @2 6H``, ``discard 9C``); ``move_text(move)`` shows one; the builders
``draw()``, ``take()``, ``meld()``, ``add()``, ``replace()``, ``discard()`` make them
from parts. See ``tranca_client.moves``.

Bots
----
``RandomBot`` and ``GreedyBot`` choose from a view and the legal moves only (a
template for your own: ``name`` and ``choose(view, moves)``); ``ExpertBot`` searches
from the same (the rules engine, which the extra ``expert`` installs: else
``ExpertUnavailable``, see ``tranca_client.expert``); ``run_bot(client,
game_id, bot)`` plays a seat to the end of the match; ``play_seat`` is the loop for
any chooser. See ``tranca_client.bots``. From a shell: ``tranca bot`` and
``tranca play`` (``tranca_client.cli``; the table is ``tranca_client.table``).
These bots run in the client's process and stop with it; the server's own robots,
which play on whatever happens to any client, are seated with
``join_game(game_id, seat, robot=True)`` at a practice table with robots (that is
what ``tranca play`` does).
"""

from .bots import BOT_LEVELS, Bot, Chooser, GreedyBot, RandomBot, make_bot, play_seat, run_bot
from .chat import direct_room, lobby_room, spectators_room, table_room
from .client import (
    DEFAULT_ADDRESS,
    DEFAULT_TIMEOUT,
    AsyncTrancaClient,
    KnobOverride,
    RetryPolicy,
    TrancaClient,
    knob_value,
)
from .errors import (
    AlreadyExists,
    DeadlineExceeded,
    InvalidRequest,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    RuleRejected,
    TrancaError,
    Unauthenticated,
    Unavailable,
    VersionConflict,
    error_from_rpc,
)
from .expert import ExpertBot, ExpertUnavailable
from .moves import (
    MoveSyntaxError,
    add,
    discard,
    draw,
    find_move,
    meld,
    move_key,
    move_kind,
    move_text,
    parse_card,
    parse_move,
    replace,
    same_move,
    take,
)
from .quick_play import OPEN_STATUSES, waiting_ticket_id
from .v1 import admin_pb2 as apb
from .v1 import chat_pb2 as chpb
from .v1 import game_pb2 as pb
from .v1 import invitations_pb2 as ipb
from .v1 import notifications_pb2 as npb
from .v1 import platform_pb2 as ppb
from .v1 import progression_pb2 as xpb
from .v1 import quick_play_pb2 as qpb
from .v1 import session_pb2 as spb
from .v1 import social_pb2 as sopb
from .v1 import tables_pb2 as tpb

__version__ = "0.1.0"

__all__ = [
    "BOT_LEVELS",
    "DEFAULT_ADDRESS",
    "DEFAULT_TIMEOUT",
    "OPEN_STATUSES",
    "AlreadyExists",
    "AsyncTrancaClient",
    "Bot",
    "Chooser",
    "DeadlineExceeded",
    "ExpertBot",
    "ExpertUnavailable",
    "GreedyBot",
    "InvalidRequest",
    "KnobOverride",
    "MoveSyntaxError",
    "NotFound",
    "PermissionDenied",
    "RandomBot",
    "ResourceExhausted",
    "RetryPolicy",
    "RuleRejected",
    "TrancaClient",
    "TrancaError",
    "Unauthenticated",
    "Unavailable",
    "VersionConflict",
    "add",
    "apb",
    "chpb",
    "direct_room",
    "discard",
    "draw",
    "error_from_rpc",
    "find_move",
    "ipb",
    "knob_value",
    "lobby_room",
    "make_bot",
    "meld",
    "move_key",
    "move_kind",
    "move_text",
    "npb",
    "parse_card",
    "parse_move",
    "pb",
    "play_seat",
    "ppb",
    "qpb",
    "replace",
    "run_bot",
    "same_move",
    "sopb",
    "spb",
    "spectators_room",
    "table_room",
    "take",
    "tpb",
    "waiting_ticket_id",
    "xpb",
]
