"""The change feed on NATS (``tranca serve --change-feed nats://HOST:PORT``): hints
that a game changed, carried between replicas by a NATS server instead of
PostgreSQL's ``NOTIFY``.

Why: every notifying commit takes one lock for the whole PostgreSQL server and holds
it through its WAL flush (store/watch_leases.py), so watched games' moves commit one
at a time. With the feed on, no replica takes a watch lease, so no move's statement
sends a ``NOTIFY`` (``WRITE_CHANGE_SQL`` sends one only while ``games.watched_until``
is in the future), and no replica LISTENs.

How: after a change commits, the replica that made it publishes the game's new
version on core NATS, subject ``tranca.games.<game>`` (payload: the version in
decimal, then the rows the commit logged, ``payload``); a replica subscribes to a
game's subject while it has a watch stream open on it (the first watcher
subscribes, the last one leaving unsubscribes), and every message wakes that game's
watchers through the hub. Core NATS, not JetStream: a hint is worth nothing once a
watcher has re-read the log, so nothing is stored.

What the rows are for: a watcher woken by a message whose rows follow on from its
version takes them instead of reading the log (``Hub.rows_after``): they are the
rows the commit wrote, so the log stays the truth, and a watcher reads the log
whenever they do not follow on from its version (a message lost before them) and
on every timed re-read. The bus therefore carries what the log holds (each change:
the moves, and a join's player name and id): keep it as private as the database
(``nats://user:password@host``, TLS, a network policy; docs/OPERATIONS.md). A
replica that cannot read the rows (a payload it cannot decode) takes the message as
a hint without them; one that cannot read the version either (an empty message: a
write whose outcome the writer does not know, ``Moves._hint_unknown``; or a replica
of an older version reading a message with rows) as a hint that has every watcher
of the game read the log.

What a lost message costs: a watcher re-reads the log on its timer (and at the next
message, whose rows then do not follow on), so a hint lost only delays it until
then: every ``WATCH_POLL_STEADY_SECONDS`` (60) while this replica's connection is up (a
message lost on a live connection: a slow consumer), every ``WATCH_POLL_SECONDS``
(10) from the moment the connection is seen down (the bus gone, this replica cut off
from it), when every watcher here is woken to re-read at once.
When this replica's connection comes back every watcher here re-reads at once (what
was published meanwhile is lost), and nats-py sends this replica's subscriptions
again. A watch stream, before it first reads the log, waits until its game's
subscription is registered by the server (a flush: PING answered by PONG), so a
move either committed before that read (and is read) or publishes after it (and is
delivered); if the bus is out of reach it does not wait (``hold``).

All replicas of one deployment must use the same feed: a replica on ``NOTIFY``
does not publish on NATS, and one on NATS takes no lease.

What a watched game costs here: one ``_Interest`` (about 150 bytes), not a nats-py
``Subscription``, whose queue and task of its own cost about 4.5 KB. nats-py's
client keeps its subscriptions in ``Client._subs`` by id: it hands each message to
``sub._pending_queue.put_nowait`` and, after a reconnection, sends ``SUB`` again for
every entry. An ``_Interest`` is such an entry, reading its hint at once, with the
few attributes the client reads of a subscription; SUB and UNSUB go through the
client's command buffer. That is nats-py's inside, not its API: the version is
pinned (pyproject.toml), and tests/server/test_nats_feed.py checks hints, the bus
going away and coming back, and the unsubscription of a game left.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

import orjson
import structlog

from ..services.ports import LogRecord
from .codec import action_from_text, action_text
from .hints import Hub

log = structlog.get_logger("tranca.nats_feed")

SUBJECT_PREFIX = "tranca.games"
# A subject's token may not hold dots, spaces or wildcards: game ids made by the
# service are hex, and any other id is named by its hash.
_PLAIN_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")
# How long a watch stream waits for its subscription to be registered before it
# reads the log anyway (and relies on its timer).
HOLD_SECONDS = 2.0


def subject(game_id: str, prefix: str = SUBJECT_PREFIX) -> str:
    """The subject that carries ``game_id``'s hints.

    >>> subject("0f3a")
    'tranca.games.0f3a'
    >>> subject("a.b")
    'tranca.games.h_69f6642c9d71b463485b4faf4e989dc3fe77a8c6'
    """
    token = game_id if _PLAIN_ID.fullmatch(game_id) else "h_" + _sha1(game_id)
    return f"{prefix}.{token}"


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


def payload(version: int, rows: Sequence[LogRecord] = ()) -> bytes:
    """A hint's message: the version in decimal, then (if the rows are known) a
    newline and the rows as JSON, ``[version, seat, action, request id, actor,
    logged at]`` each, the action in the log's own notation.

    >>> payload(7)
    b'7'
    """
    head = str(version).encode()
    if not rows:
        return head
    listed = [
        [r.version, r.seat, action_text(r.action), r.request_id, r.actor, r.created_at]
        for r in rows
    ]
    return head + b"\n" + orjson.dumps(listed)


def read_payload(data: bytes) -> tuple[int | None, tuple[LogRecord, ...]]:
    """A message's version and rows: no rows where they are missing, unreadable or
    do not end at the version without gaps (the watchers read the log then), and no
    version either where that is unreadable (a hint that wakes them all)."""
    head, _, body = data.partition(b"\n")
    if not head.isdigit():
        return None, ()
    version = int(head)
    if not body:
        return version, ()
    try:
        rows = tuple(
            LogRecord(int(v), int(seat), action_from_text(text), rid, actor, float(at))
            for v, seat, text, rid, actor, at in orjson.loads(body)
        )
        if not all(
            isinstance(r.actor, str) and (r.request_id is None or isinstance(r.request_id, str))
            for r in rows
        ):
            raise ValueError("a row's actor or request id is not text")
    except Exception:  # anything unreadable: the hint without its rows
        log.warning("change_feed_rows_unreadable", version=version)
        return version, ()
    follows = all(b.version == a.version + 1 for a, b in itertools.pairwise(rows))
    if not rows or rows[-1].version != version or not follows:
        return version, ()
    return version, rows


class _Interest:
    """One game's subscription as nats-py's client sees it (the module's docstring):
    a message for it calls the feed at once, in the client's reading task."""

    __slots__ = ("_id", "_received", "_subject", "feed", "game_id", "live", "ready")

    # What the client reads of any subscription, constant here: no queue group, no
    # message limit, not JetStream, not a request's, no pending-bytes limit (the
    # message is handled before ``put_nowait`` returns), nothing to stop on close.
    _queue = ""
    _max_msgs = 0
    _jsi = None
    _future = None
    _pending_bytes_limit = 0
    _wait_for_msgs_task = None
    _message_iterator = None
    _pending_next_msgs_calls = None

    def __init__(self, sid: int, subject: str, feed: NatsFeed, game_id: str) -> None:
        self._id = sid
        self._subject = subject
        self._received = 0
        self.feed = feed
        self.game_id = game_id
        self.live = True  # False once the game's last watcher here left
        # Done once the server has the subscription (a flush after its SUB).
        self.ready: asyncio.Future[None] | None = None

    @property
    def _pending_size(self) -> int:
        return 0

    @_pending_size.setter
    def _pending_size(self, _value: int) -> None:
        pass

    @property
    def _pending_queue(self) -> _Interest:
        return self

    def put_nowait(self, msg: Any) -> None:
        self.feed._hint(self.game_id, msg.data)


class NatsFeed:
    """This replica's connection to NATS: publishes its changes, and subscribes for
    the games its hub has watchers of. It is the service's notifier (``publish``)
    and its watch leases (``hold``) when the feed is on."""

    def __init__(
        self,
        url: str,
        hub: Hub,
        on_state: Callable[[bool], None] | None = None,
        on_hint: Callable[[], None] | None = None,
        prefix: str = SUBJECT_PREFIX,
    ) -> None:
        self.url = url
        self.hub = hub
        self.prefix = prefix
        self._on_state = on_state
        self._on_hint = on_hint
        self._nc: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        # Hints waiting for the publisher task: (subject, payload).
        self._outbox: list[tuple[str, bytes]] = []
        self._wake = asyncio.Event()
        # The games watched here, and the SUB and UNSUB waiting for the publisher task.
        self._interests: dict[str, _Interest] = {}
        self._to_subscribe: list[_Interest] = []
        self._to_unsubscribe: list[int] = []
        # The tasks that confirm a batch of subscriptions with the server (a flush).
        self._confirming: set[asyncio.Task[None]] = set()
        self.published = 0  # hints sent on the bus
        self.dropped = 0  # hints not sent: the connection was down
        self.received = 0  # hints from the bus
        hub.on_game = self._on_game

    # ----- the notifier ---------------------------------------------------------------

    def publish(self, game_id: str, version: int | None, rows: Sequence[LogRecord] = ()) -> None:
        """After a commit: this process's watchers now, the other replicas' through
        NATS (from the publisher task, which sends whatever has gathered at once).
        Without a version, an empty message: a hint that has every watcher read."""
        self.hub.publish(game_id, version, rows)
        message = b"" if version is None else payload(version, rows)
        self._outbox.append((subject(game_id, self.prefix), message))
        self._wake.set()

    # ----- the watch leases -------------------------------------------------------------

    async def hold(self, game_id: str) -> None:
        """Return once this replica's subscription to ``game_id`` is registered with
        the NATS server (the hub's first watcher of the game started it), or at once
        if the bus is out of reach: the watcher then catches up on its timer."""
        interest = self._interests.get(game_id)
        if interest is None or interest.ready is None or not self.connected:
            return
        with contextlib.suppress(Exception, TimeoutError):
            await asyncio.wait_for(asyncio.shield(interest.ready), HOLD_SECONDS)

    # ----- the connection ---------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._nc is not None and bool(self._nc.is_connected)

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="nats-feed")

    async def stop(self) -> None:
        self._stopping = True
        self.hub.on_game = None
        for task in list(self._confirming):
            task.cancel()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._nc is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._nc.close(), 2)

    async def _run(self) -> None:
        """Connect (again and again until it works), then publish for ever; nats-py
        reconnects by itself after that, and sends the subscriptions again."""
        import nats

        delay = 0.2
        while self._nc is None:
            try:
                self._nc = await nats.connect(
                    self.url,
                    name="tranca",
                    connect_timeout=2,
                    allow_reconnect=True,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=0.5,
                    ping_interval=5,
                    max_outstanding_pings=2,
                    # Hints published while the connection is down are dropped rather
                    # than buffered: once it is back every watcher re-reads anyway.
                    pending_size=0,
                    # This replica's own hints are not sent back to it: its hub had
                    # them at the commit.
                    no_echo=True,
                    disconnected_cb=self._disconnected,
                    reconnected_cb=self._reconnected,
                    error_cb=self._error,
                )
            except Exception as exc:  # out of reach: try again
                log.warning("change_feed_unreachable", url=self.url, error=str(exc))
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
        self._state(True)
        self.hub.steady = True
        # Watchers that opened before the connection did: subscribe for them now, and
        # have every watcher re-read (anything published before is in the log).
        for game_id in self.hub.watched_games():
            if game_id not in self._interests:
                self._on_game(game_id, True)
        self.hub.wake_all()
        await self._publish_forever()

    async def _publish_forever(self) -> None:
        nc = self._nc
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._outbox = self._outbox, []
            await self._send_interest(nc)
            if not nc.is_connected:
                self.dropped += len(batch)
                continue
            try:
                for subj, payload in batch:
                    await nc.publish(subj, payload)
                self.published += len(batch)
            except Exception as exc:  # the connection dropped meanwhile
                self.dropped += len(batch)
                log.warning("change_feed_publish_failed", error=str(exc))

    async def _send_interest(self, nc: Any) -> None:
        """The SUB and UNSUB gathered since the last pass, then a flush that confirms
        the new subscriptions (in a task of its own: hints are not held up by it).
        While the connection is down they wait in the client's buffer, and on
        reconnection it sends SUB again for every subscription it holds anyway."""
        from nats.protocol.command import sub_cmd, unsub_cmd

        subscribe, self._to_subscribe = self._to_subscribe, []
        unsubscribe, self._to_unsubscribe = self._to_unsubscribe, []
        if not subscribe and not unsubscribe:
            return
        try:
            for sid in unsubscribe:
                await nc._send_command(unsub_cmd(sid, 0))
            sent = [i for i in subscribe if i.live]
            for interest in sent:
                await nc._send_command(sub_cmd(interest._subject, "", interest._id))
            await nc._flush_pending()
        except Exception as exc:  # the connection dropped meanwhile: sent again then
            log.warning("change_feed_subscribe_unsent", error=str(exc))
            sent = []
        if sent:
            task = asyncio.ensure_future(self._confirm(nc, sent))
            self._confirming.add(task)
            task.add_done_callback(self._confirming.discard)

    async def _confirm(self, nc: Any, interests: list[_Interest]) -> None:
        try:
            await nc.flush(timeout=HOLD_SECONDS)  # registered on the server
        except Exception as exc:  # the bus went away: nats-py subscribes again later
            log.warning("change_feed_subscribe_unconfirmed", games=len(interests), error=str(exc))
        finally:
            for interest in interests:
                ready, interest.ready = interest.ready, None
                if ready is not None and not ready.done():
                    ready.set_result(None)

    def _state(self, up: bool) -> None:
        if self._on_state is not None:
            self._on_state(up)

    async def _disconnected(self) -> None:
        if not self._stopping:
            log.warning("change_feed_lost", url=self.url)
            self._state(False)
            # Back to the short re-read: every watcher re-reads now and then waits
            # WATCH_POLL_SECONDS, not the steady period, until the feed is back.
            self.hub.steady = False
            self.hub.wake_all()

    async def _reconnected(self) -> None:
        log.info("change_feed_back", url=self.url)
        self._state(True)
        self.hub.steady = True
        # nats-py has sent our subscriptions again; hints published while we were
        # away are lost, so every watcher here re-reads the log now.
        self.hub.wake_all()

    async def _error(self, exc: Exception) -> None:
        log.warning("change_feed_error", error=str(exc))

    # ----- subscriptions ----------------------------------------------------------------

    def _on_game(self, game_id: str, watched: bool) -> None:
        """The hub's first watcher of ``game_id`` came (subscribe) or its last one left
        (unsubscribe): registered with the client at once, sent by the publisher."""
        nc = self._nc
        if watched:
            if nc is None:
                return  # subscribed once connected (``_run``)
            nc._sid += 1
            interest = _Interest(nc._sid, subject(game_id, self.prefix), self, game_id)
            interest.ready = asyncio.get_running_loop().create_future()
            nc._subs[interest._id] = interest
            self._interests[game_id] = interest
            self._to_subscribe.append(interest)
            self._wake.set()
            return
        gone = self._interests.pop(game_id, None)
        if gone is None or nc is None:
            return
        gone.live = False
        nc._subs.pop(gone._id, None)
        if gone.ready is not None and not gone.ready.done():
            gone.ready.set_result(None)
        gone.ready = None
        self._to_unsubscribe.append(gone._id)
        self._wake.set()

    def _hint(self, game_id: str, data: bytes) -> None:
        """A hint from the bus (``_Interest.put_nowait``)."""
        self.received += 1
        version, rows = read_payload(data)
        self.hub.publish(game_id, version, rows)
        if self._on_hint is not None:
            self._on_hint()
