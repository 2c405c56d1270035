"""Tournaments in the database: their configuration and events, from which
``tranca.platform.tournaments`` rebuilds them, and the games of their tables.

A tournament row holds what it was created with (``config``, JSON) and every change
since (``events``, a JSON list, oldest first):

- ``{"type": "pair", "round": r, "tables": [[a, b], ...], "byes": [...]}``: round
  ``r`` was paired and its games created;
- ``{"type": "result", "round": r, "table": t, "outcome": "a_wins", "source":
  "game" | "forfeit"}``: a table's result;
- ``{"type": "withdraw", "entrant": e}``.

The pure ``Tournament`` is rebuilt from both on every load: pairing is deterministic
given the config (its seed) and the events before it, and the stored pairs are
checked against the rebuilt ones. Every change is a compare-and-swap on
``tournaments.version`` (``UPDATE ... WHERE version = :read``), so two concurrent
changes never both apply to the same version: the loser re-reads and sees the other's.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..app.game import FINISHED as GAME_FINISHED
from ..app.game import Action, GameState, Setup
from ..platform.duplicate import DuplicateRound, round_from_deck, round_from_seed, round_seed
from ..platform.tournaments import (
    Entrant,
    Format,
    Outcome,
    Table,
    Tournament,
    outcome_of_game,
)
from ..rules.match import DRAWN
from ..rules.presets import Rules, rules_from_dict
from .codec import action_text, dumps, loads, state_text
from .direct import SeatToken
from .models import Game, MoveLog, PlayerToken, TournamentGame, TournamentRecord
from .repository import Store

REGISTERED, RUNNING, FINISHED = "registered", "running", "finished"

# How often a change re-reads and retries after losing the compare-and-swap to
# another change of the same tournament before giving up (each retry sees the
# winner's change, so this is reached only under a storm of concurrent changes).
CAS_ATTEMPTS = 8


class TournamentConflict(Exception):
    """The tournament kept changing under a change: the caller may retry."""


class PairingMismatch(Exception):
    """A stored round's pairs are not what the rebuilt tournament pairs (the pairing
    code changed under a running tournament): refuse rather than guess."""


# ----- configuration and rebuilding (pure) ----------------------------------------------


@dataclass(frozen=True)
class TournamentConfig:
    """What a tournament was created with."""

    format: Format
    entrants: tuple[Entrant, ...]
    table_size: int
    seed: int
    rounds: int | None  # Swiss only; None: the format's own count
    rules: dict[str, Any]  # Rules.to_dict() of every game (express / point limit applied)
    table: dict[str, Any]  # TableOptions.to_dict()
    duplicate: bool = False
    round_decks: tuple[tuple[int, ...], ...] = ()  # the organiser's first-deal decks

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format.value,
            "entrants": [{"id": e.id, "players": list(e.players)} for e in self.entrants],
            "table_size": self.table_size,
            "seed": self.seed,
            "rounds": self.rounds,
            "rules": self.rules,
            "table": self.table,
            "duplicate": self.duplicate,
            "round_decks": [list(d) for d in self.round_decks],
        }

    def sides_swapped(self, table_no: int) -> bool:
        """Whether side B sits on the game's side 0 at table ``table_no``: at every
        even-numbered table of a duplicate round, as duplicate bridge turns the boards
        between rooms, so a deck that favours the game's side 0 favours side A at half
        the tables and side B at the other half, and the luck cancels out."""
        return self.duplicate and table_no % 2 == 0

    def seats(self, t: Tournament, table: Table) -> tuple[str, ...]:
        """The table's players in seat order: side A on the even seats (the game's
        side 0) and B on the odd ones, swapped at a duplicate round's even tables."""
        seats = t.seats(table)
        if not self.sides_swapped(table.number):
            return seats
        # seats is A, B, A, B...: each consecutive pair swapped gives B, A, B, A...
        return tuple(p for i in range(0, len(seats), 2) for p in (seats[i + 1], seats[i]))

    def outcome_of_game(self, table_no: int, winner_side: int) -> Outcome:
        """The table's outcome for A and B from its game's winning side."""
        if winner_side in (0, 1) and self.sides_swapped(table_no):
            winner_side = 1 - winner_side
        return outcome_of_game(winner_side)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TournamentConfig:
        return cls(
            Format(d["format"]),
            tuple(Entrant(e["id"], tuple(e["players"])) for e in d["entrants"]),
            int(d["table_size"]),
            int(d["seed"]),
            None if d.get("rounds") is None else int(d["rounds"]),
            dict(d["rules"]),
            dict(d.get("table") or {}),
            bool(d.get("duplicate", False)),
            tuple(tuple(int(c) for c in deck) for deck in d.get("round_decks") or ()),
        )

    def game_rules(self) -> Rules:
        return rules_from_dict(self.rules)

    def new_tournament(self) -> Tournament:
        """The tournament before any event (raises ValueError for a bad config)."""
        return Tournament(
            self.format,
            self.entrants,
            table_size=self.table_size,
            seed=self.seed,
            rounds=self.rounds,
        )

    def duplicate_round(self, round_no: int) -> DuplicateRound | None:
        """The deck and match seed every table of round ``round_no`` is dealt, with
        duplicate deals; None otherwise. The organiser's deck for the round if it gave
        one, else a deck shuffled from the round's seed (fixed by the tournament's)."""
        if not self.duplicate:
            return None
        jokers = self.game_rules().jokers
        seed = round_seed(self.seed, round_no)
        if round_no <= len(self.round_decks):
            return round_from_deck(round_no, jokers, self.round_decks[round_no - 1], seed)
        return round_from_seed(round_no, jokers, seed)


def rebuild(config: TournamentConfig, events: Sequence[dict[str, Any]]) -> Tournament:
    """The tournament as its events left it."""
    t = config.new_tournament()
    for event in events:
        kind = event["type"]
        if kind == "pair":
            rnd = t.pair_next_round()
            stored = [tuple(p) for p in event["tables"]]
            if rnd.number != event["round"] or stored != [(tb.a, tb.b) for tb in rnd.tables]:
                raise PairingMismatch(f"round {event['round']} does not pair as it was stored")
        elif kind == "result":
            t.record(int(event["round"]), int(event["table"]), Outcome(event["outcome"]))
        elif kind == "withdraw":
            t.withdraw(str(event["entrant"]))
    return t


def status_of(t: Tournament) -> str:
    if t.is_over:
        return FINISHED
    return RUNNING if t.rounds else REGISTERED


def pair_event(t: Tournament) -> dict[str, Any]:
    """The event of the round just paired (the latest)."""
    rnd = t.rounds[-1]
    return {
        "type": "pair",
        "round": rnd.number,
        "tables": [[tb.a, tb.b] for tb in rnd.tables],
        "byes": list(rnd.byes),
        "at": _now_ms(),
    }


def result_event(round_no: int, table_no: int, outcome: Outcome, source: str) -> dict[str, Any]:
    return {
        "type": "result",
        "round": round_no,
        "table": table_no,
        "outcome": outcome.value,
        "source": source,
        "at": _now_ms(),
    }


def withdraw_event(entrant: str) -> dict[str, Any]:
    return {"type": "withdraw", "entrant": entrant, "at": _now_ms()}


def _now_ms() -> int:
    return int(time.time() * 1000)


# ----- rows -------------------------------------------------------------------------------


@dataclass
class TournamentRow:
    id: str
    app_id: str
    name: str
    version: int
    config: TournamentConfig
    events: list[dict[str, Any]]

    def rebuild(self) -> Tournament:
        return rebuild(self.config, self.events)


@dataclass
class TableGame:
    """A tournament table's new game: its setup, its state once every seat joined, the
    joins (logged as versions 1..n) and the seats' tokens (their hashes)."""

    round_no: int
    table_no: int
    game_id: str
    label: str
    setup: Setup
    state: GameState
    joins: list[Action]
    tokens: list[SeatToken] = field(default_factory=list)


def _row(r: Any) -> TournamentRow:
    return TournamentRow(
        r.id,
        r.app_id,
        r.name,
        int(r.version),
        TournamentConfig.from_dict(loads(r.config)),
        list(loads(r.events)),
    )


async def create_tournament(store: Store, app_id: str, name: str, config: TournamentConfig) -> str:
    tournament_id = uuid.uuid4().hex
    async with store.writing() as conn:
        await conn.execute(
            insert(TournamentRecord).values(
                id=tournament_id,
                app_id=app_id,
                name=name,
                status=REGISTERED,
                version=0,
                config=dumps(config.to_dict()),
                events="[]",
            )
        )
    return tournament_id


async def load_tournament(store: Store, tournament_id: str, app_id: str) -> TournamentRow | None:
    """The app's tournament; None for an unknown id or another app's tournament."""
    q = select(TournamentRecord).where(
        TournamentRecord.id == tournament_id, TournamentRecord.app_id == app_id
    )
    async with store.reading() as conn:
        r = (await conn.execute(q)).first()
    return None if r is None else _row(r)


async def table_games(store: Store, tournament_id: str) -> dict[tuple[int, int], str]:
    """The game of every table created so far, by (round, table)."""
    q = select(TournamentGame.round, TournamentGame.table_no, TournamentGame.game_id).where(
        TournamentGame.tournament_id == tournament_id
    )
    async with store.reading() as conn:
        rows = (await conn.execute(q)).all()
    return {(int(r.round), int(r.table_no)): str(r.game_id) for r in rows}


async def game_statuses(store: Store, game_ids: Sequence[str]) -> dict[str, str]:
    if not game_ids:
        return {}
    q = select(Game.id, Game.status).where(Game.id.in_(list(game_ids)))
    async with store.reading() as conn:
        rows = (await conn.execute(q)).all()
    return {str(r.id): str(r.status) for r in rows}


def round_dealt_out(
    round_no: int, games: dict[tuple[int, int], str], statuses: dict[str, str]
) -> bool:
    """Whether every game of round ``round_no`` is finished (``games`` and
    ``statuses`` as ``table_games`` and ``game_statuses`` read them). Until then a
    duplicate round's deck and match seed are hidden: they are the cards still being
    played at the round's other tables. Every table of a round is written in one
    transaction with its pairing (``write_round``), so ``games`` holds them all."""
    return all(
        statuses.get(game_id) == GAME_FINISHED
        for (number, _), game_id in games.items()
        if number == round_no
    )


async def duplicate_round_in_play(store: Store, game_id: str) -> bool:
    """Whether ``game_id`` is a table of a duplicate round some of whose games are not
    finished (GetReplay then hides the deals' decks and the seed: the other tables
    are dealt the same cards). False for a game of no tournament."""
    link_q = select(TournamentGame.tournament_id, TournamentGame.round).where(
        TournamentGame.game_id == game_id
    )
    async with store.reading() as conn:
        link = (await conn.execute(link_q)).first()
        if link is None:
            return False
        config_q = select(TournamentRecord.config).where(TournamentRecord.id == link.tournament_id)
        config = (await conn.execute(config_q)).scalar_one_or_none()
        if config is None or not TournamentConfig.from_dict(loads(config)).duplicate:
            return False
        round_q = (
            select(TournamentGame.table_no, Game.id, Game.status)
            .join(Game, Game.id == TournamentGame.game_id)
            .where(
                TournamentGame.tournament_id == link.tournament_id,
                TournamentGame.round == link.round,
            )
        )
        rows = (await conn.execute(round_q)).all()
    round_no = int(link.round)
    games = {(round_no, int(r.table_no)): str(r.id) for r in rows}
    return not round_dealt_out(round_no, games, {str(r.id): str(r.status) for r in rows})


async def add_seat_tokens(store: Store, tokens: Sequence[tuple[str, SeatToken]]) -> None:
    """More tokens for seats already taken (``(game_id, token)`` pairs): a StartRound
    retry's, for an organiser whose first answer was lost. The seat's earlier tokens
    stay valid; a seat's revocation (``revoke_seat``) revokes them all."""
    if not tokens:
        return
    async with store.writing() as conn:
        for game_id, token in tokens:
            await _insert_token(conn, game_id, token)


async def _insert_token(conn: AsyncConnection, game_id: str, token: SeatToken) -> None:
    await conn.execute(
        insert(PlayerToken).values(
            token_hash=token.token_hash,
            game_id=game_id,
            seat=token.seat,
            player_name=token.player_name,
            revoked=False,
            player_id=token.player_id,
            address=token.address,
            expires_at=token.expires_at,
        )
    )


async def count_running(store: Store) -> int:
    """Tournaments running now (every app's): the tranca_tournaments_running gauge."""
    q = select(func.count()).select_from(TournamentRecord).where(TournamentRecord.status == RUNNING)
    async with store.reading() as conn:
        return int((await conn.execute(q)).scalar_one())


async def _swap(
    conn: AsyncConnection, row: TournamentRow, events: list[dict[str, Any]], status: str
) -> bool:
    """The compare-and-swap of every change: written only if nobody changed the
    tournament since ``row`` was read."""
    done = await conn.execute(
        update(TournamentRecord)
        .where(TournamentRecord.id == row.id, TournamentRecord.version == row.version)
        .values(version=row.version + 1, status=status, events=dumps(events))
    )
    return done.rowcount == 1


async def append_events(
    store: Store, row: TournamentRow, new: list[dict[str, Any]], status: str
) -> bool:
    """Append events to the tournament as ``row`` read it; False if it changed since."""
    async with store.writing() as conn:
        return await _swap(conn, row, [*row.events, *new], status)


async def write_round(
    store: Store,
    row: TournamentRow,
    new: list[dict[str, Any]],
    status: str,
    games: Sequence[TableGame],
) -> bool:
    """The pairing of a round and all its games with their seats taken, in one
    transaction: a crash leaves either the whole round or nothing, and of two
    concurrent StartRounds exactly one writes (the other's swap fails first and it
    writes nothing). False if the tournament changed since ``row`` was read.

    The games are written as ``Store.create_game`` and the joins' ``commit_action``
    would write them (the games row, one log row and one token per join), only all at
    once; they are started afterwards through the store (``start_match``)."""
    async with store.writing() as conn:
        # The swap first: on PostgreSQL it locks the tournament's row, so a
        # concurrent StartRound waits here and then finds the version moved on.
        if not await _swap(conn, row, [*row.events, *new], status):
            return False
        for g in games:
            await conn.execute(
                insert(Game).values(
                    id=g.game_id,
                    app_id=row.app_id,
                    status=g.state.status,
                    version=len(g.joins),
                    preset=g.setup.rules.name,
                    players=g.setup.players,
                    label=g.label,
                    setup=dumps(g.setup.to_dict()),
                    snapshot=state_text(g.state, store.snapshot_schema),
                    snapshot_schema=store.snapshot_schema,
                    settled=False,
                )
            )
            for version, join in enumerate(g.joins, start=1):
                await conn.execute(
                    insert(MoveLog).values(
                        game_id=g.game_id,
                        version=version,
                        seat=join.seat,
                        action=action_text(join),
                        request_id=None,
                        actor="player",
                    )
                )
            for token in g.tokens:
                await _insert_token(conn, g.game_id, token)
            await conn.execute(
                insert(TournamentGame).values(
                    game_id=g.game_id,
                    tournament_id=row.id,
                    round=g.round_no,
                    table_no=g.table_no,
                )
            )
    return True


# ----- a game's result, inside the settlement's transaction -------------------------------


async def record_game_result(conn: AsyncConnection, game_id: str, winner: int, reason: str) -> None:
    """Record a finished game's result in its tournament, if it belongs to one, inside
    the caller's transaction (the settlement's).

    Left unrecorded, for the organiser to decide with RecordForfeit: an annulled game
    (``winner`` -1: 003 says an annulled match counts for no one, so it is neither
    side's win) and a drawn knockout table (a knockout needs a winner). Ignored: a
    game of a round that is no longer the latest (the tournament moved on), and a
    table that already has a result (a forfeit recorded while it was played)."""
    link = (
        await conn.execute(
            select(
                TournamentGame.tournament_id, TournamentGame.round, TournamentGame.table_no
            ).where(TournamentGame.game_id == game_id)
        )
    ).first()
    if link is None or winner not in (0, 1, DRAWN):
        return
    round_no, table_no = int(link.round), int(link.table_no)
    q = select(TournamentRecord).where(TournamentRecord.id == link.tournament_id)
    if conn.dialect.name == "postgresql":
        # Wait for (then block) any other change of the tournament, so that this
        # transaction's swap below cannot lose: the settlement is not retried lightly.
        # On SQLite the settlement's transaction holds the database's write lock.
        q = q.with_for_update()
    r = (await conn.execute(q)).first()
    if r is None:
        return
    row = _row(r)
    t = row.rebuild()
    # At a duplicate round's even tables side B holds the game's side 0.
    outcome = row.config.outcome_of_game(table_no, winner)
    if len(t.rounds) != round_no:
        return
    table = t.rounds[-1].tables[table_no - 1]
    if t.result(table) is not None:
        return
    if t.format == Format.SINGLE_ELIMINATION and outcome == Outcome.DRAW:
        return
    t.record(round_no, table_no, outcome)
    event = {**result_event(round_no, table_no, outcome, "game"), "game_id": game_id}
    event["reason"] = reason
    if not await _swap(conn, row, [*row.events, event], status_of(t)):
        raise TournamentConflict(f"tournament {link.tournament_id} kept changing")
