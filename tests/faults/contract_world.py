"""The contract fuzzer's world: a server on SQLite or PostgreSQL, and two apps with
objects of their own. App A is the one the fuzzer mostly calls as; app B has games,
a tournament, a session, chip entries, a quick-play ticket and failed webhook
deliveries whose ids and page tokens are fed to A's calls. Nothing a call makes
without B's key may change B's objects (``World.other_state``), and no answer to
another caller may hold the id of one of them."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor

from tests.harness.servers import ThreadedServer, server_config, threaded_server
from tranca.server import Running
from tranca.services.destinations import Destination, Destinations
from tranca.services.webhooks import Deliverer, DeliveryPolicy
from tranca.store.notifications_store import NotificationsStore
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc
from tranca.v1 import options_pb2
from tranca.v1 import platform_pb2 as ppb
from tranca.v1 import platform_pb2_grpc as ppb_grpc
from tranca.v1 import quick_play_pb2 as qpb
from tranca.v1 import quick_play_pb2_grpc as qpb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca_rules.cards import card_text, full_deck
from tranca_rules.presets import KNOB_RANGES, PRESETS

from ..usecases.fakes import FakeResolver
from .shapes import Family, Known, families, shape_of

APP_WATCHES = 6  # the world's cap on an API key's open watch streams
T = TypeVar("T")
Metadata = tuple[tuple[str, str], ...]
BAD = {
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.DATA_LOSS,
    grpc.StatusCode.UNIMPLEMENTED,
}
REAL_CARDS = sorted({card_text(c) for c in full_deck(True)})
DECK = " ".join(card_text(c) for c in full_deck(False))
KNOBS = sorted(
    {
        *KNOB_RANGES,
        "sequences",
        "sets",
        "jokers",
        "stock_out",
        "pile_view",
        "tie_break",
        "wild_replacement",
        "name",
        "canastra_bonus.nope",
    }
)


class Refusing:
    """A webhook receiver that answers every POST with a 500, without a network."""

    async def post(
        self, destination: Destination, body: bytes, headers: dict[str, str], timeout: float
    ) -> int:
        return 500


# The one host name the fuzz server resolves (to a public address, so that SetWebhook
# takes it): its own apps' webhooks. Every other name the fuzzer sends fails to
# resolve at once, and no delivery reaches a network (``Refusing``).
HOOKS = "hooks.example.test"


def hooks_resolver() -> FakeResolver:
    return FakeResolver({HOOKS: ["93.184.216.34"]})


@dataclass
class World:
    loop: asyncio.AbstractEventLoop
    server: Running
    channel: grpc.Channel
    key_a: str
    key_b: str
    game_a: str = ""
    waiting: str = ""
    game_b: str = ""
    tokens_a: list[str] = field(default_factory=list)
    spectator: str = ""
    tournament: str = ""
    app_a_id: str = ""
    app_b_id: str = ""
    session: str = ""  # app A's player's session: its access token
    refresh: str = ""  # and its refresh token
    other_games: list[str] = field(default_factory=list)  # app B's, game_b among them
    other_tournament: str = ""
    known: Known = field(default_factory=Known)
    created: list[str] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)
    last: Snapshot | None = None  # the world after the fuzzer's last call

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)

    @property
    def stub(self) -> pb_grpc.GameServiceStub:
        return pb_grpc.GameServiceStub(self.channel)

    def app(self, key: str | None = None) -> Metadata:
        return (("x-api-key", key or self.key_a),)

    def version(self, game_id: str) -> tuple[int, str]:
        g = self.run(self.server.store.game(game_id))
        return g.version, g.status

    def new_game_a(self) -> None:
        """Game A: started, 2 seats, spectators allowed; a fresh one whenever a fuzzed
        call ended it (a resignation, an annulment)."""
        stub, md = self.stub, self.app()
        gid = stub.CreateGame(
            pb.CreateGameRequest(
                rules=pb.Rules(preset="tranca-000"), players=2, seed=11, spectators_allowed=True
            ),
            metadata=md,
        ).game.game_id
        self.tokens_a = [
            stub.JoinGame(pb.JoinGameRequest(game_id=gid, seat=s), metadata=md).player_token
            for s in range(2)
        ]
        self.spectator = stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, spectator=True), metadata=md
        ).player_token
        stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=md)
        self.game_a = gid
        self.known.own_ids.append(gid)
        self.known.game_ids.append(gid)

    def turn_token(self) -> str:
        g = self.run(self.server.store.game(self.game_a))
        return self.tokens_a[g.state.deal.turn if g.state.deal is not None else 0]

    def games_state(self) -> dict[str, tuple[int, str]]:
        """App A's games and B's first, as stored: their versions and status."""
        return {g: self.version(g) for g in (self.game_a, self.game_b, self.waiting)}

    @property
    def other_object_ids(self) -> list[bytes]:
        """The ids of app B's games, tournament and ticket, as they would appear in
        an answer's bytes."""
        return [i.encode() for i in self.known.other_ids if i != self.app_b_id]

    def other_state(self) -> tuple[object, ...]:
        """App B's objects as stored: its games' versions, its tournament's version,
        its deliveries, its webhook and its player's chips."""

        async def read() -> tuple[object, ...]:
            store = self.server.store
            games = [(await store.game(g)).version for g in self.other_games]
            tournament = await self.server.tournament_store.tournament_version(
                self.other_tournament, self.app_b_id
            )
            notes = NotificationsStore(store)
            deliveries = [
                (d.id, d.status, d.attempts)
                for d in await notes.deliveries(self.app_b_id, None, None, 100)
            ]
            hook = await notes.webhook(self.app_b_id)
            chips = await store.chip_balance(self.app_b_id, "b0")
            return (games, tournament, deliveries, hook and hook.url, chips)

        return self.run(read())


def credentials(w: World, who: str) -> Metadata:
    if who == "app_a":
        return w.app()
    if who == "app_b":
        return w.app(w.key_b)
    if who == "turn":
        return (("authorization", f"Bearer {w.turn_token()}"),)
    if who == "seat":
        return (("authorization", f"Bearer {w.tokens_a[0]}"),)
    if who == "spectator":
        return (("authorization", f"Bearer {w.spectator}"),)
    if who == "session":
        return (("authorization", f"Bearer {w.session}"),)
    if who == "junk":
        return (("authorization", "Bearer tp_" + uuid.uuid4().hex),)
    if who == "junk_session":
        return (("authorization", "Bearer ts_" + uuid.uuid4().hex),)
    return ()


@dataclass(frozen=True)
class Answer:
    code: grpc.StatusCode  # OK for an answer
    body: bytes | None  # the answer's bytes (a stream's first message)
    details: str


def send(
    w: World, method: MethodDescriptor, body: bytes, md: Metadata, wait: float = 2.0
) -> Answer:
    """``body`` sent as ``method``'s request, bytes as they are on the wire; a stream
    that sends nothing within ``wait`` seconds ends DEADLINE_EXCEEDED."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    try:
        if method.server_streaming:
            watch: grpc.UnaryStreamMultiCallable[bytes, bytes] = w.channel.unary_stream(path)
            stream = watch(body, metadata=md, timeout=wait)
            try:
                return Answer(grpc.StatusCode.OK, next(stream), "")
            finally:
                stream.cancel()
        unary: grpc.UnaryUnaryMultiCallable[bytes, bytes] = w.channel.unary_unary(path)
        return Answer(grpc.StatusCode.OK, unary(body, metadata=md, timeout=10), "")
    except grpc.RpcError as e:
        return Answer(e.code(), None, e.details() or "")


@dataclass(frozen=True)
class Snapshot:
    """What a call may not change unless it succeeds, or unless app B makes it: app
    A's games and B's first (``World.games_state``), and B's objects
    (``World.other_state``)."""

    games: dict[str, tuple[int, str]]
    other: tuple[object, ...]


def snapshot(w: World) -> Snapshot:
    return Snapshot(w.games_state(), w.other_state())


def problems(
    w: World, method: MethodDescriptor, who: str, answer: Answer, before: Snapshot
) -> tuple[list[str], Snapshot]:
    """What is wrong with ``answer`` (nothing: []): an improper status, a hang, a
    refusal that changed a game, a call without app B's key that changed B's
    objects, or an answer to another caller that holds one of their ids; and the
    world as it is after the call."""
    name, code = method.name, answer.code
    after = snapshot(w)
    found = []
    waited = method.server_streaming and code == grpc.StatusCode.DEADLINE_EXCEEDED
    if code in BAD:
        found.append(f"{name} answered {code.name}: {answer.details}")
    if code == grpc.StatusCode.DEADLINE_EXCEEDED and not waited:
        found.append(f"{name} hung")
    if len(answer.details) > 1024:
        found.append(f"{name} answered {len(answer.details)} characters of details")
    if code != grpc.StatusCode.OK and not waited and after.games != before.games:
        found.append(f"a refused {name} changed a game")
    if who != "app_b":
        if after.other != before.other:
            found.append(f"{name} without app B's key changed app B's objects")
        if answer.body is not None and any(i in answer.body for i in w.other_object_ids):
            found.append(f"{name} answered another caller with an id of app B's")
    return found, after


def _tournament(channel: grpc.Channel, md: Metadata, name: str, prefix: str) -> str:
    return (
        ppb_grpc.TournamentServiceStub(channel)
        .CreateTournament(
            ppb.CreateTournamentRequest(
                name=name,
                format=ppb.TOURNAMENT_FORMAT_ROUND_ROBIN,
                entrants=[ppb.Entrant(id=f"e{i}", player_ids=[f"{prefix}{i}"]) for i in range(3)],
                table_size=2,
                rules=pb.Rules(preset="tranca-000"),
            ),
            metadata=md,
        )
        .tournament.tournament_id
    )


def _build_other_app(w: World) -> None:
    """App B's objects: two waiting tables (game_b one of them), a started game whose
    seats are B's players (their events make deliveries, which fail), two
    tournaments, chip grants, a session and a quick-play ticket."""
    md = w.app(w.key_b)
    stub = w.stub
    notify = npb_grpc.NotificationServiceStub(w.channel)
    known = w.known
    for _ in range(2):
        gid = stub.CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2), metadata=md
        ).game.game_id
        w.other_games.append(gid)
    w.game_b = w.other_games[0]
    notify.SetWebhook(npb.SetWebhookRequest(url=f"https://{HOOKS}/hook"), metadata=md)
    notify.SetWebhook(npb.SetWebhookRequest(url=f"https://{HOOKS}/hook"), metadata=w.app())
    for key, prefix in ((w.key_b, "b"), (w.key_a, "p")):
        gid = stub.CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2, seed=3),
            metadata=w.app(key),
        ).game.game_id
        for seat in range(2):
            stub.JoinGame(
                pb.JoinGameRequest(game_id=gid, seat=seat, player_id=f"{prefix}{seat}"),
                metadata=w.app(key),
            )
        stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=w.app(key))
        (w.other_games if key == w.key_b else known.own_ids).append(gid)
    # Every delivery attempted once, answered 500, and failed: RedeliverWebhook can
    # send them again.
    deliverer = Deliverer(
        NotificationsStore(w.server.store),
        Refusing(),
        Destinations(hooks_resolver()),
        DeliveryPolicy(max_attempts=1),
    )
    while w.run(deliverer.run_once()):
        pass
    for key, ids in ((w.key_b, known.other_deliveries), (w.key_a, known.own_deliveries)):
        listed = notify.ListWebhookDeliveries(
            npb.ListWebhookDeliveriesRequest(), metadata=w.app(key)
        )
        ids.extend(d.delivery_id for d in listed.deliveries)
    assert known.other_deliveries and known.own_deliveries, "no webhook delivery was made"
    w.other_tournament = _tournament(w.channel, md, "other", "b")
    _tournament(w.channel, md, "other 2", "b")
    players = ppb_grpc.PlayerServiceStub(w.channel)
    for n in range(2):
        players.GrantChips(
            ppb.GrantChipsRequest(player_id="b0", amount=5, grant_id=f"g{n}"), metadata=md
        )
    sessions = spb_grpc.SessionServiceStub(w.channel)
    opened = sessions.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id="b0"), metadata=md
    )
    sessions.CreatePlayerSession(spb.CreatePlayerSessionRequest(player_id="b0"), metadata=md)
    asked = uuid.uuid4().hex
    ticket = qpb_grpc.QuickPlayServiceStub(w.channel).AskQuickPlay(
        qpb.AskQuickPlayRequest(
            preset="tranca-000", players=2, player_ids=["b5"], request_id=asked
        ),
        metadata=md,
    )
    known.used_request_ids.append(asked)
    private = stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"), players=2, table=pb.TableOptions(private=True)
        ),
        metadata=md,
    )
    known.other_ids += [*w.other_games, w.other_tournament, ticket.ticket.ticket_id, w.app_b_id]
    known.game_ids += w.other_games
    known.secrets += [opened.session.refresh_token, private.invite_code, w.refresh]
    known.other_players += ["b0", "b1", "b5"]


def _mint_tokens(w: World) -> None:
    """A next_page_token of every paged call, for each app, under more than one
    filter: tokens a call would take from its own caller, fed to other calls,
    other apps and other filters."""
    tournaments = ppb_grpc.TournamentServiceStub(w.channel)
    players = ppb_grpc.PlayerServiceStub(w.channel)
    notify = npb_grpc.NotificationServiceStub(w.channel)
    sessions = spb_grpc.SessionServiceStub(w.channel)
    for key in (w.key_a, w.key_b):
        md = w.app(key)
        pages: list[Any] = [
            w.stub.ListGames(pb.ListGamesRequest(page_size=1), metadata=md),
            w.stub.ListGames(
                pb.ListGamesRequest(page_size=1, status=pb.GAME_STATUS_WAITING), metadata=md
            ),
            w.stub.ListOpenTables(pb.ListOpenTablesRequest(page_size=1), metadata=md),
            w.stub.ListOpenTables(pb.ListOpenTablesRequest(page_size=1, players=2), metadata=md),
            tournaments.ListTournaments(ppb.ListTournamentsRequest(page_size=1), metadata=md),
            notify.ListWebhookDeliveries(
                npb.ListWebhookDeliveriesRequest(page_size=1), metadata=md
            ),
            notify.ListWebhookDeliveries(
                npb.ListWebhookDeliveriesRequest(page_size=1, status=npb.DELIVERY_STATUS_FAILED),
                metadata=md,
            ),
            players.ListChipEntries(
                ppb.ListChipEntriesRequest(player_id="b0", page_size=1), metadata=md
            ),
            sessions.ListPlayerSessions(spb.ListPlayerSessionsRequest(page_size=1), metadata=md),
        ]
        w.known.minted += [p.next_page_token for p in pages if p.next_page_token]
    assert len(w.known.minted) >= 8, w.known.minted


def pools(w: World, f: FieldDescriptor) -> list[Any]:
    """Values of a field that make sense in this world, so that calls get past the
    first checks and reach the handlers, the rules and the database."""
    name = f.name
    if f.type in (FieldDescriptor.TYPE_STRING,):
        return {
            "game_id": [w.game_a, w.game_a, w.waiting, w.game_b, "0" * 32],
            "tournament_id": [w.tournament],
            "player_id": ["p0", "p1", "p2"],
            "player_ids": ["p0", "p1"],
            "entrant": ["e0", "e1"],
            "id": ["e0", "e1", "e9"],
            "preset": ["tranca-000", *sorted(PRESETS)],
            "request_id": [uuid.uuid4().hex],
            "page_token": ["", *w.known.minted],
            "cards": REAL_CARDS,
            "card": REAL_CARDS,
            "deck": REAL_CARDS,
            "round_decks": [DECK],
            "string_value": ["end_deal", "play_on", "top", "all", "draw", "extra_deal"],
            "label": ["fuzz"],
            "name": ["fuzz"],
            "player_name": ["Zé"],
            "grant_id": [uuid.uuid4().hex],
            "entropy": ["abc"],
            "app_id": [w.app_a_id, "0" * 32],
            "delivery_id": w.known.own_deliveries,
            "url": ["https://hooks.example.invalid/tranca"],
            "invite_code": ["ti_" + uuid.uuid4().hex],
            "device_id": [uuid.uuid4().hex, "short"],
            "refresh_token": [w.refresh, "tr_" + uuid.uuid4().hex],
            "display_name": ["Zé"],
            "display_names": ["Zé"],
            "ticket_id": [uuid.uuid4().hex],
        }.get(name, [])
    return {
        "players": [2, 4, 3],
        "seat": [-1, 0, 1, 2],
        "table_size": [2, 4],
        "round": [1, 2],
        "table": [1],
        "amount": [1, 10],
        "page_size": [0, 1, 500, 501],
        "limit": [0, 10],
        "meld_id": [0, 1],
        "from_version": [0, 1, 5],
        "expected_version": [w.version(w.game_a)[0]],
        "turn_seconds": [0, 0, 30],
        "robot_grace_seconds": [0, 0, 5],
        "stake": [0, 0, 0, 10],
        "point_limit": [0, 0, 500],
        "rounds": [0, 2],
        "token_lifetime_seconds": [0, 60],
        "seed": [0, 7],
    }.get(name, [])


def shape_families(w: World, f: FieldDescriptor) -> dict[str, Family]:
    """The families of values of the shape the server reads ``f`` as (none for free
    text)."""
    limit = int(f.GetOptions().Extensions[options_pb2.max_chars])
    shape = shape_of(f)
    assert shape is not None, f.full_name
    return families(shape, w.known, limit, DECK, [*sorted(PRESETS), *KNOBS])


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def world(request: pytest.FixtureRequest) -> Iterator[World]:
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    cfg = server_config(
        url,
        auth_failures_per_peer=0,
        sweep_interval=0,
        webhook_interval=0,
        max_watches_per_app=APP_WATCHES,
    )
    with threaded_server(cfg, resolver=hooks_resolver()) as threaded:
        yield from _world_on(threaded, str(request.param))


def _world_on(threaded: ThreadedServer, name: str) -> Iterator[World]:
    """The world of the contract fuzzers on ``threaded``, its channel closed after."""
    loop, server = threaded.loop, threaded.running
    created = [
        asyncio.run_coroutine_threadsafe(
            server.store.create_app(f"contract-{n}", frozenset({"fixed_deck"})), loop
        ).result()
        for n in "ab"
    ]
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    w = World(loop, server, channel, created[0][1], created[1][1])
    w.app_a_id, w.app_b_id = created[0][0], created[1][0]
    w.new_game_a()
    w.waiting = w.stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2), metadata=w.app()
    ).game.game_id
    w.known.own_ids.append(w.waiting)
    w.known.game_ids.append(w.waiting)
    opened = spb_grpc.SessionServiceStub(channel).CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id="p9"), metadata=w.app()
    )
    w.session, w.refresh = opened.session.access_token, opened.session.refresh_token
    w.tournament = _tournament(channel, w.app(), "fuzz", "p")
    w.known.own_ids.append(w.tournament)
    _build_other_app(w)
    _mint_tokens(w)
    # A request id in game A's log, for other games' and apps' calls.
    md = (("authorization", f"Bearer {w.turn_token()}"),)
    legal = w.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=w.game_a), metadata=md)
    rid = uuid.uuid4().hex
    w.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=w.game_a, expected_version=legal.version, request_id=rid, move=legal.moves[0]
        ),
        metadata=md,
    )
    w.known.used_request_ids.append(rid)
    yield w
    print(f"\ncontract fuzz ({name}): {dict(sorted(w.stats.items()))}")
    channel.close()
