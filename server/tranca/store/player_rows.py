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

from ..platform.chips import Purpose
from ..platform.tournament_events import CANCELLED, FINISHED
from ..services.player_erasure import GameMovedOn, StillPlaying
from ..services.player_rewrite import PlayerRewrite
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


async def seated_games(conn: AsyncConnection, app_id: str, player_id: str) -> list[str]:
    """The app's games the player was given a token of (a seat or a spectator's)."""
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
    unfinished = []
    if games:
        q = select(Game.id, Game.snapshot).where(
            Game.id.in_(list(games)), Game.status != GameStatus.FINISHED.value
        )
        for r in await conn.execute(q):
            if player_id in loads(r.snapshot).get("player_ids", {}).values():
                unfinished.append(r.id)
    tournaments = []
    q = select(TournamentRecord.id, TournamentRecord.events).where(
        TournamentRecord.app_id == app_id,
        TournamentRecord.status.not_in(CLOSED_TOURNAMENTS),
        TournamentRecord.events.contains(player_id, autoescape=True),
    )
    for r in await conn.execute(q):
        if entered(loads(r.events), player_id):
            tournaments.append(r.id)
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
    return StillPlaying(tuple(sorted(unfinished)), tuple(sorted(tournaments)), queued)


def entered(events: list[dict[str, Any]], player_id: str) -> bool:
    """Whether the player is still entered: registered in an entrant whose
    registration was neither withdrawn nor the entrant withdrawn since."""
    entrants: set[str] = set()
    for e in events:
        if e.get("type") == "register" and player_id in e.get("players", ()):
            entrants.add(str(e["entrant"]))
        elif e.get("type") in ("unregister", "withdraw"):
            entrants.discard(str(e.get("entrant")))
    return bool(entrants)


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
    rolls the whole erasure back (``GameMovedOn``)."""
    if not games:
        return
    tokens = await conn.execute(
        update(PlayerToken)
        .where(PlayerToken.game_id.in_(list(games)), PlayerToken.player_id == rewrite.player_id)
        .values(
            player_id=rewrite.replacement, player_name=rewrite.replacement, address="", revoked=True
        )
    )
    rows["player_tokens"] = tokens.rowcount
    logged = 0
    q = select(MoveLog.game_id, MoveLog.version, MoveLog.action).where(
        MoveLog.game_id.in_(list(games)),
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
    erased = 0
    stored = select(Game.id, Game.version, Game.status, Game.snapshot, Game.setup).where(
        Game.id.in_(list(games))
    )
    for game in (await conn.execute(stored)).all():
        before = loads(game.snapshot)
        after = rewrite.snapshot(before)
        if after == before:
            continue
        state = GameState.from_dict(after, setup_from_text(game.setup))
        seats = [i for i, s in enumerate(state.seats) if s.player_id == rewrite.replacement]
        if not seats:
            # Named only among the removed players: nothing any view shows.
            await conn.execute(update(Game).where(Game.id == game.id).values(snapshot=dumps(after)))
            erased += 1
            continue
        (seat,) = seats  # a player holds one seat of a game
        # An erasure names the seat by the pseudonym; a merge keeps the seat's name.
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
            raise GameMovedOn(game.id)
        erased += 1
        logged += 1
    rows["games"] = erased
    rows["move_log"] = logged


async def rename_grants(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, account: str
) -> int:
    """The grants made to the player whose ids hold the player's id: the id in both
    of the grant's entries (the mint's and the player's) and in the operation's key
    renamed (``PlayerRewrite.key``). The number of grants renamed."""
    q = select(ChipEntry.reference).where(
        ChipEntry.app_id == app_id,
        ChipEntry.account == account,
        ChipEntry.purpose == Purpose.GRANT.value,
        ChipEntry.reference.contains(rewrite.player_id, autoescape=True),
    )
    references = sorted({r.reference for r in await conn.execute(q)})
    for reference in references:
        renamed = rewrite.key(reference)
        await conn.execute(
            update(ChipEntry)
            .where(
                ChipEntry.app_id == app_id,
                ChipEntry.purpose == Purpose.GRANT.value,
                ChipEntry.reference == reference,
            )
            .values(reference=renamed)
        )
        await conn.execute(
            update(ChipOperation)
            .where(ChipOperation.app_id == app_id, ChipOperation.key == f"grant:{reference}")
            .values(key=f"grant:{renamed}")
        )
    return len(references)


async def rewrite_tournaments(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    player = rewrite.player_id
    q = select(
        TournamentRecord.id,
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
            await conn.execute(
                update(TournamentRecord)
                .where(TournamentRecord.id == r.id)
                .values(version=TournamentRecord.version + 1, **values)
            )
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
        payload = rewrite.value(loads(r.payload))
        await conn.execute(
            update(PlayerEvent)
            .where(PlayerEvent.id == r.id)
            .values(player_id=rewrite.value(r.player_id), payload=dumps(payload))
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
