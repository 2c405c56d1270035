"""A player's erasure in the database, for ``services/player_erasure.py``
(``ErasureStore`` is its ``ErasureRepository``): what is deleted, what is
pseudonymised and how is decided there (``PlayerRewrite``); this module finds the
player's rows and rewrites them, all in one transaction with the audit entry, so
that an erasure is whole or not done.

The player's rows are found by their id: the sessions, identities, profile, rating,
ranking points, chip account and events by their keys; the games they sat at by
their seat tokens (every join issues one, kept revoked after the seat is left);
tournaments, tickets, chip operations and other players' events by a text search
of their JSON for the id (an erasure is rare, and a full search of one app's rows
is what finds every mention). Text is stored as UTF-8 JSON (``codec.dumps``), so
the id is found as written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform.chips import Purpose, player_account
from ..platform.tournament_events import CANCELLED, FINISHED
from ..services.audit import AuditEntry
from ..services.player_erasure import (
    GameMovedOn,
    PlayerStillPlaying,
    StillPlaying,
)
from ..services.player_rewrite import PlayerRewrite
from ..services.quick_play import TicketStatus
from ..table.action_kinds import ActionKind
from ..table.game import BY_APP, BY_PLAYER, Action, GameState, GameStatus, apply_action
from .audit_store import write_audit_entry
from .codec import action_text, dumps, loads, setup_from_text, state_text
from .ledger import account_name
from .models import (
    ChipAccount,
    ChipEntry,
    ChipOperation,
    Game,
    MatchTicket,
    MoveLog,
    PlayerEvent,
    PlayerIdentity,
    PlayerProfile,
    PlayerRating,
    PlayerSession,
    PlayerTicket,
    PlayerToken,
    RankingAward,
    TicketPlayer,
    TournamentRecord,
)
from .move_path import MoveWrite
from .repository import Store

__all__ = ["ErasureStore"]

# A large player's erasure rewrites many rows: a longer bound than a move's.
ERASURE_SECONDS = 120.0

OPEN_TICKETS = (TicketStatus.FORMING.value, TicketStatus.WAITING.value)
OPEN_TOURNAMENTS_EXCLUDE = (FINISHED, CANCELLED)


class ErasureStore:
    """The erasures of one database (``services.player_erasure.ErasureRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def erase_player(
        self, app_id: str, rewrite: PlayerRewrite, entry: AuditEntry
    ) -> dict[str, int]:
        rows: dict[str, int] = {}
        async with self.store.writing(ERASURE_SECONDS) as conn:
            games = await _seated_games(conn, app_id, rewrite.player_id)
            still = await _still_playing(conn, app_id, rewrite.player_id, games)
            if still:
                raise PlayerStillPlaying(still)
            await _delete_own_rows(conn, app_id, rewrite.player_id, rows)
            by = BY_APP if entry.actor == "app" else BY_PLAYER
            await _rewrite_games(conn, self.store, rewrite, games, by, rows)
            await _rename_keyed_rows(conn, app_id, rewrite, rows)
            await _rewrite_chips(conn, app_id, rewrite, rows)
            await _rewrite_tournaments(conn, app_id, rewrite, rows)
            await _rewrite_tickets(conn, app_id, rewrite, rows)
            await _rewrite_events(conn, app_id, rewrite, rows)
            changed = {table: n for table, n in sorted(rows.items()) if n}
            await write_audit_entry(
                conn, app_id, dataclasses.replace(entry, detail={"rows": changed})
            )
        self.store.forget_states(games)
        return changed


async def _seated_games(conn: AsyncConnection, app_id: str, player_id: str) -> list[str]:
    """The app's games the player was given a token of (a seat or a spectator's)."""
    q = (
        select(PlayerToken.game_id)
        .join(Game, Game.id == PlayerToken.game_id)
        .where(Game.app_id == app_id, PlayerToken.player_id == player_id)
        .distinct()
    )
    return sorted(r.game_id for r in await conn.execute(q))


async def _still_playing(
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
        TournamentRecord.status.not_in(OPEN_TOURNAMENTS_EXCLUDE),
        TournamentRecord.events.contains(player_id, autoescape=True),
    )
    for r in await conn.execute(q):
        if _entered(loads(r.events), player_id):
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


def _entered(events: list[dict[str, Any]], player_id: str) -> bool:
    """Whether the player is still entered: registered in an entrant whose
    registration was neither withdrawn nor the entrant withdrawn since."""
    entrants: set[str] = set()
    for e in events:
        if e.get("type") == "register" and player_id in e.get("players", ()):
            entrants.add(str(e["entrant"]))
        elif e.get("type") in ("unregister", "withdraw"):
            entrants.discard(str(e.get("entrant")))
    return bool(entrants)


async def _delete_own_rows(
    conn: AsyncConnection, app_id: str, player_id: str, rows: dict[str, int]
) -> None:
    for model in (PlayerIdentity, PlayerProfile, PlayerSession):
        result = await conn.execute(
            delete(model).where(model.app_id == app_id, model.player_id == player_id)
        )
        rows[model.__tablename__] = result.rowcount


async def _rewrite_games(
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
        action = Action(
            ActionKind.ERASE, seat, name=rewrite.replacement, player_id=rewrite.replacement, by=by
        )
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


async def _rename_keyed_rows(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    """The rows keyed by the player's id alone: the id becomes the pseudonym."""
    for model in (PlayerRating, RankingAward, TicketPlayer, PlayerTicket):
        result = await conn.execute(
            update(model)
            .where(model.app_id == app_id, model.player_id == rewrite.player_id)
            .values(player_id=rewrite.replacement)
        )
        rows[model.__tablename__] = result.rowcount


async def _rewrite_chips(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    """The player's chip account and its entries under the pseudonym's account: the
    same balance and the same amounts, so every sum of the ledger is unchanged."""
    old = account_name(player_account(rewrite.player_id))
    new = account_name(player_account(rewrite.replacement))
    grants = await _rename_grants(conn, app_id, rewrite, old)
    for model in (ChipAccount, ChipEntry):
        result = await conn.execute(
            update(model).where(model.app_id == app_id, model.account == old).values(account=new)
        )
        rows[model.__tablename__] = result.rowcount
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
    rows["chip_operations"] = changed + grants


async def _rename_grants(
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


async def _rewrite_tournaments(
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


async def _rewrite_tickets(
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


async def _rewrite_events(
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
