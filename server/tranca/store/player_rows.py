"""A player's rows across the database, found and rewritten inside the caller's
transaction: the games they sat at (their seat tokens, logged joins, and a logged
change of each game whose seat they hold), tournaments, quick-play tickets, chip
operations and events. For an erasure (``erasure_store.py``) and a merge of two
accounts (``merge_store.py``); what the rewrite does to each document is
``services/player_rewrite.py``'s.

The games are found by the player's seat tokens (every join issues one, kept
revoked after the seat is left); tournaments, tickets, chip operations and other
players' events by a text search of their JSON for the id (these actions are rare,
and a full search of one app's rows is what finds every mention). Text is stored as
UTF-8 JSON (``codec.dumps``), so the id is found as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform.tournament_events import CANCELLED, FINISHED, still_entered
from ..services.player_rewrite import ChangedMeanwhile, PlayerRewrite, StillPlaying
from ..services.quick_play import TicketStatus
from ..table.action_kinds import ActionKind
from ..table.game import Action, GameState, GameStatus, apply_action
from .codec import action_text, dumps, loads, setup_from_text, state_text
from .models import (
    ChipEntry,
    ChipOperation,
    Game,
    MatchTicket,
    MoveLog,
    PlayerEvent,
    PlayerTicket,
    PlayerToken,
    TournamentRecord,
)
from .move_path import MoveWrite
from .repository import Store

OPEN_TICKETS = (TicketStatus.FORMING.value, TicketStatus.WAITING.value)
CLOSED_TOURNAMENTS = (FINISHED, CANCELLED)
# Games named in one statement: a player of many thousands of games is read and
# rewritten in parts, far below the databases' limits on a statement's parameters
# (PostgreSQL's 32,767).
GAMES_A_STATEMENT = 500


def in_parts(ids: Sequence[str]) -> list[list[str]]:
    """``ids`` in parts of at most ``GAMES_A_STATEMENT``."""
    return [list(ids[i : i + GAMES_A_STATEMENT]) for i in range(0, len(ids), GAMES_A_STATEMENT)]


async def games_with_tokens(conn: AsyncConnection, app_id: str, player_id: str) -> list[str]:
    """The app's games the player was given a token of (a seat's or a spectator's):
    every game they sat at, left or not, and every game they watched."""
    q = (
        select(PlayerToken.game_id)
        .join(Game, Game.id == PlayerToken.game_id)
        .where(Game.app_id == app_id, PlayerToken.player_id == player_id)
        .distinct()
    )
    return sorted(r.game_id for r in await conn.execute(q))


async def still_playing(
    conn: AsyncConnection, app_id: str, player_id: str, games: Sequence[str]
) -> StillPlaying:
    """Where the player still plays (``StillPlaying``): a game whose seat they hold
    (a seat the app removed them from, which a robot plays on, is not theirs) that is
    not over, or over and not yet settled (its settlement reads their seat: its
    address, its ranking points, its chips); a tournament not over that they are
    entered in; a quick-play ticket still open."""
    playing = []
    for part in in_parts(games):
        q = select(Game.id, Game.status, Game.settled, Game.snapshot).where(
            Game.id.in_(part),
            (Game.status != GameStatus.FINISHED.value) | (Game.settled.is_(False)),
        )
        for r in await conn.execute(q):
            snapshot = loads(r.snapshot)
            removed = {str(seat) for seat in snapshot.get("removed_seats", ())}
            held = {s for s, p in snapshot.get("player_ids", {}).items() if p == player_id}
            if held - removed:
                playing.append(r.id)
    tournaments = []
    open_entries = select(
        TournamentRecord.id, TournamentRecord.config, TournamentRecord.events
    ).where(
        TournamentRecord.app_id == app_id,
        TournamentRecord.status.not_in(CLOSED_TOURNAMENTS),
        TournamentRecord.events.contains(player_id, autoescape=True)
        | TournamentRecord.config.contains(player_id, autoescape=True),
    )
    for t in await conn.execute(open_entries):
        if still_entered(loads(t.config), loads(t.events), player_id):
            tournaments.append(t.id)
    q_ticket = (
        select(PlayerTicket.ticket_id)
        .join(MatchTicket, MatchTicket.id == PlayerTicket.ticket_id)
        .where(
            PlayerTicket.app_id == app_id,
            PlayerTicket.player_id == player_id,
            MatchTicket.status.in_(OPEN_TICKETS),
        )
        .limit(1)
    )
    queued = (await conn.execute(q_ticket)).first() is not None
    return StillPlaying(tuple(sorted(playing)), tuple(sorted(tournaments)), queued)


async def rewrite_games(
    conn: AsyncConnection,
    store: Store,
    rewrite: PlayerRewrite,
    games: Sequence[str],
    by: str,
    rows: dict[str, int],
) -> None:
    """The player's seats: their seat tokens revoked and renamed; the logged actions
    that name them (a join, a removal) rewritten; and every game whose snapshot
    names them changed by an ``erase`` action at its next version, written as every
    change of a game is (``Dialect.run_change``, a compare-and-swap): the new
    version tells every replica's kept views that the game is not what it was, and
    the log, replayed, still rebuilds the snapshot. A game that moved on meanwhile
    rolls the whole erasure back (``ChangedMeanwhile``)."""
    if not games:
        return
    tokens = logged = erased = 0
    for part in in_parts(games):
        done = await conn.execute(
            update(PlayerToken)
            .where(PlayerToken.game_id.in_(part), PlayerToken.player_id == rewrite.player_id)
            .values(
                player_id=rewrite.replacement,
                # A merge keeps the name a seat was taken with.
                **({"player_name": rewrite.replacement} if rewrite.names else {}),
                address="",
                revoked=True,
            )
        )
        tokens += done.rowcount
        logged += await _rewrite_log(conn, rewrite, part)
        changed = await _change_games(conn, store, rewrite, part, by)
        erased += changed
        logged += changed  # each change is a row of its game's log
    rows["player_tokens"] = tokens
    rows["move_log"] = logged
    rows["games"] = erased


async def _rewrite_log(conn: AsyncConnection, rewrite: PlayerRewrite, games: list[str]) -> int:
    """The logged actions of ``games`` that name the player (a join, a removal):
    rewritten; how many."""
    logged = 0
    q = select(MoveLog.game_id, MoveLog.version, MoveLog.action).where(
        MoveLog.game_id.in_(games),
        MoveLog.action.contains(rewrite.player_id, autoescape=True),
    )
    for entry in (await conn.execute(q)).all():
        before = loads(entry.action)
        after = rewrite.action(before)
        if after != before:
            await conn.execute(
                update(MoveLog)
                .where(MoveLog.game_id == entry.game_id, MoveLog.version == entry.version)
                .values(action=dumps(after))
            )
            logged += 1
    return logged


async def _change_games(
    conn: AsyncConnection, store: Store, rewrite: PlayerRewrite, games: list[str], by: str
) -> int:
    """Each of ``games`` whose snapshot names the player, changed by a logged
    ``erase`` (or ``merge``) at its next version; how many. The log rows written
    are one a game."""
    erased = 0
    stored = select(Game.id, Game.version, Game.status, Game.snapshot, Game.setup).where(
        Game.id.in_(games)
    )
    for game in (await conn.execute(stored)).all():
        before = loads(game.snapshot)
        after = rewrite.snapshot(before)
        if after == before:
            continue
        state = GameState.from_dict(after, setup_from_text(game.setup))
        held = [i for i, s in enumerate(state.seats) if s.player_id == rewrite.replacement]
        # An erasure names the seat by the pseudonym; a merge keeps the seat's name. A
        # player no seat names (one the app removed before the start) is named only
        # among the removed players: the change then holds no seat (-1), and is the
        # new version every replica must read the game at.
        seat = held[0] if held else -1  # a player holds one seat of a game
        kind, name = (
            (ActionKind.ERASE, rewrite.replacement) if rewrite.names else (ActionKind.MERGE, "")
        )
        action = Action(kind, seat, name=name, player_id=rewrite.replacement, by=by)
        apply_action(state, action, int(game.version) + 1)
        write = MoveWrite(
            game.id,
            int(game.version),
            game.status,
            state_text(state, store.snapshot_schema),
            seat,
            action_text(action),
            None,
            action.actor,
        )
        if await store.sql.run_change(conn, write, store.move_path.origin) is None:
            raise ChangedMeanwhile(f"game {game.id}")
        erased += 1
    return erased


async def rename_keys(conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite) -> int:
    """The chip entries' references and the chip operations' keys that hold the
    player's id as a word (a grant's id the app made with it, "g-ana-500"; a merge's
    key): renamed as ``PlayerRewrite.key`` says, both entries of a transfer alike.
    The number of keys renamed."""
    renamed = 0
    references = select(ChipEntry.reference).where(
        ChipEntry.app_id == app_id,
        ChipEntry.reference.contains(rewrite.player_id, autoescape=True),
    )
    for reference in sorted({r.reference for r in await conn.execute(references)}):
        new = rewrite.key(reference)
        if new != reference:
            await conn.execute(
                update(ChipEntry)
                .where(ChipEntry.app_id == app_id, ChipEntry.reference == reference)
                .values(reference=new)
            )
            renamed += 1
    keys = select(ChipOperation.key).where(
        ChipOperation.app_id == app_id,
        ChipOperation.key.contains(rewrite.player_id, autoescape=True),
    )
    for key in sorted(r.key for r in await conn.execute(keys)):
        new = rewrite.key(key)
        if new != key:
            await conn.execute(
                update(ChipOperation)
                .where(ChipOperation.app_id == app_id, ChipOperation.key == key)
                .values(key=new)
            )
            renamed += 1
    return renamed


async def rewrite_tournaments(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    player = rewrite.player_id
    q = select(
        TournamentRecord.id,
        TournamentRecord.version,
        TournamentRecord.config,
        TournamentRecord.events,
        TournamentRecord.standings,
    ).where(
        TournamentRecord.app_id == app_id,
        TournamentRecord.events.contains(player, autoescape=True)
        | TournamentRecord.config.contains(player, autoescape=True)
        | TournamentRecord.standings.contains(player, autoescape=True),
    )
    changed = 0
    for r in (await conn.execute(q)).all():
        values: dict[str, Any] = {}
        for column in ("config", "events", "standings"):
            text = getattr(r, column)
            if text is None:
                continue
            after = rewrite.value(loads(text))
            if after != loads(text):
                values[column] = dumps(after)
        if values:
            # A new version: every replica's kept view of the tournament is of the
            # version before (services/tournaments/core.py), and is read afresh.
            # At the version read (a result recorded meanwhile is not overwritten).
            done = await conn.execute(
                update(TournamentRecord)
                .where(TournamentRecord.id == r.id, TournamentRecord.version == r.version)
                .values(version=r.version + 1, **values)
            )
            if done.rowcount != 1:
                raise ChangedMeanwhile(f"tournament {r.id}")
            changed += 1
    rows["tournaments"] = changed


async def rewrite_tickets(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    """Quick-play tickets: the player's place in ``player_ids``, and their name at
    the same place in ``display_names``; the seats the ticket was given."""
    q = select(
        MatchTicket.id, MatchTicket.player_ids, MatchTicket.display_names, MatchTicket.seats
    ).where(
        MatchTicket.app_id == app_id,
        MatchTicket.player_ids.contains(rewrite.player_id, autoescape=True),
    )
    changed = 0
    for r in (await conn.execute(q)).all():
        ids = loads(r.player_ids)
        if rewrite.player_id not in ids:
            continue
        names = loads(r.display_names)
        for i, p in enumerate(ids):
            if p == rewrite.player_id:
                ids[i] = rewrite.replacement
                if i < len(names):
                    names[i] = rewrite.replacement
        values = {"player_ids": dumps(ids), "display_names": dumps(names)}
        if r.seats is not None:
            values["seats"] = dumps(rewrite.value(loads(r.seats)))
        await conn.execute(update(MatchTicket).where(MatchTicket.id == r.id).values(**values))
        changed += 1
    rows["match_tickets"] = changed


async def rewrite_events(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    """The player's own events under the pseudonym, and every event whose payload
    names the player (another player's, about a table they shared)."""
    q = select(PlayerEvent.id, PlayerEvent.player_id, PlayerEvent.payload).where(
        PlayerEvent.app_id == app_id,
        (PlayerEvent.player_id == rewrite.player_id)
        | PlayerEvent.payload.contains(rewrite.player_id, autoescape=True),
    )
    changed = 0
    for r in (await conn.execute(q)).all():
        before = loads(r.payload)
        payload = rewrite.value(before)
        player = rewrite.value(r.player_id)
        if payload == before and player == r.player_id:
            continue  # the text search matched letters of another word
        await conn.execute(
            update(PlayerEvent)
            .where(PlayerEvent.id == r.id)
            .values(player_id=player, payload=dumps(payload))
        )
        changed += 1
    rows["player_events"] = changed


async def rewrite_chip_operations(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite
) -> int:
    """The chip operations whose detail names the player (a grant's player, a
    tournament's payments by player): rewritten; how many."""
    changed = 0
    q = select(ChipOperation.key, ChipOperation.detail).where(
        ChipOperation.app_id == app_id,
        ChipOperation.detail.contains(rewrite.player_id, autoescape=True),
    )
    for r in (await conn.execute(q)).all():
        before = loads(r.detail)
        after = rewrite.value(before)
        if after != before:
            await conn.execute(
                update(ChipOperation)
                .where(ChipOperation.app_id == app_id, ChipOperation.key == r.key)
                .values(detail=dumps(after))
            )
            changed += 1
    return changed
