"""The fakes of the erasure's and the audit log's ports (services/player_erasure.py,
services/audit.py) over the in-memory rows: the player's sessions, identities and
profile deleted; their seats (tokens, logged joins, and an ``erase`` change of each
game whose seat they hold), chips and events under the pseudonym; the audit entry
written with it. Tournaments and quick-play tickets are the database tests' (the
fakes of those keep rows of their own)."""

from __future__ import annotations

import dataclasses

from tranca.services.audit import AuditEntry
from tranca.services.player_rewrite import (
    PlayerRewrite,
    PlayerStillPlaying,
    Rewritten,
    StillPlaying,
)
from tranca.services.ports import LogRecord
from tranca.table.action_kinds import ActionKind
from tranca.table.game import BY_APP, BY_PLAYER, FINISHED, Action, GameState, apply_action

from .audit import AuditMemory
from .identities import IdentitiesMemory
from .players import PlayersMemory
from .profiles import ProfilesMemory
from .records import MemoryState


def seated_games(state: MemoryState, app_id: str, player: str) -> list[str]:
    """The app's games the player was given a token of."""
    return sorted(
        {
            t.game_id
            for t in state.tokens.values()
            if t.token.player_id == player and state.games[t.game_id].app_id == app_id
        }
    )


def unfinished(state: MemoryState, games: list[str], player: str) -> tuple[str, ...]:
    """Of ``games``, those unfinished whose seat the player holds (not a seat the app
    removed them from). The fakes settle nothing: a finished game is settled here."""
    return tuple(
        g
        for g in games
        if state.games[g].state.status != FINISHED
        and any(
            s.player_id == player and i not in state.games[g].state.removed_seats
            for i, s in enumerate(state.games[g].state.seats)
        )
    )


def rewrite_seats(
    state: MemoryState, games: list[str], rewrite: PlayerRewrite, by: str, rows: dict[str, int]
) -> None:
    """The player's seats: tokens revoked and rewritten, joins rewritten, and an
    ``erase`` (or, with the names kept, ``merge``) change of each game whose seat
    they hold, as ``store/player_rows.py`` does."""
    player, replacement = rewrite.player_id, rewrite.replacement
    tokens = 0
    for stored in state.tokens.values():
        if stored.game_id in games and stored.token.player_id == player:
            name = replacement if rewrite.names else stored.token.player_name
            stored.token = dataclasses.replace(
                stored.token, player_id=replacement, player_name=name, address=""
            )
            stored.revoked = True
            tokens += 1
    rows["player_tokens"] = tokens
    logged = changed = 0
    for game_id in games:
        game = state.games[game_id]
        for i, record in enumerate(game.log):
            if record.action.player_id == player:
                name = replacement if rewrite.names else record.action.name
                game.log[i] = dataclasses.replace(
                    record,
                    action=dataclasses.replace(record.action, name=name, player_id=replacement),
                )
                logged += 1
        rewritten = GameState.from_dict(
            rewrite.snapshot(game.state.to_dict(with_setup=False)), game.state.setup
        )
        if rewritten.to_dict() == game.state.to_dict():
            continue
        held = [i for i, s in enumerate(game.state.seats) if s.player_id == player]
        seat = held[0] if held else -1  # -1: named only among the removed players
        kind, name = (ActionKind.ERASE, replacement) if rewrite.names else (ActionKind.MERGE, "")
        action = Action(kind, seat, name=name, player_id=replacement, by=by)
        game.version += 1
        apply_action(rewritten, action, game.version)
        game.log.append(LogRecord(game.version, seat, action, None, action.actor, state.now / 1000))
        logged += 1
        changed += 1
        game.state = rewritten
    rows["games"] = changed
    rows["move_log"] = logged


def rewrite_events(
    state: MemoryState, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    """The player's events, and those that name them."""
    events = 0
    for i, (app, event) in enumerate(state.events):
        if app != app_id:
            continue
        payload = rewrite.value(event.payload)
        if event.player_id == rewrite.player_id or payload != event.payload:
            state.events[i] = (
                app,
                dataclasses.replace(
                    event, player_id=rewrite.value(event.player_id), payload=payload
                ),
            )
            events += 1
    rows["player_events"] = events


class AccountRowsMemory:
    """The in-memory rows an erasure or a merge rewrites: the games, sessions and
    events (``state``), identities, profiles, chips, and the audit log."""

    def __init__(
        self,
        state: MemoryState,
        identities: IdentitiesMemory,
        profiles: ProfilesMemory,
        players: PlayersMemory,
        audit: AuditMemory,
    ) -> None:
        self.state = state
        self.identities = identities
        self.profiles = profiles
        self.players = players
        self.audit = audit


class ErasureMemory(AccountRowsMemory):
    """``ErasureRepository`` over the in-memory games, sessions, identities, profiles
    and chips."""

    async def erase_player(
        self, app_id: str, rewrite: PlayerRewrite, entry: AuditEntry
    ) -> Rewritten:
        player, pseudonym = rewrite.player_id, rewrite.replacement
        games = seated_games(self.state, app_id, player)
        playing = unfinished(self.state, games, player)
        if playing:
            raise PlayerStillPlaying(StillPlaying(games=playing))
        rows: dict[str, int] = {}
        # Deleted: identities, profile, sessions.
        links = [k for k, p in self.identities.links.items() if k[0] == app_id and p == player]
        for key in links:
            del self.identities.links[key]
        rows["player_identities"] = len(links)
        rows["player_profiles"] = int(
            self.profiles.profiles.pop((app_id, player), None) is not None
        )
        self.profiles.name_keys.pop((app_id, player), None)
        sessions = [
            sid
            for sid, s in self.state.sessions.items()
            if (s.new.app_id, s.new.player_id) == (app_id, player)
        ]
        for sid in sessions:
            del self.state.sessions[sid]
        rows["player_sessions"] = len(sessions)
        by = BY_APP if entry.actor == "app" else BY_PLAYER
        rewrite_seats(self.state, games, rewrite, by, rows)
        # Chips: the balance and the entries under the pseudonym.
        balance = self.players.balances.pop((app_id, player), None)
        rows["chip_accounts"] = int(balance is not None)
        if balance is not None:
            self.players.balances[(app_id, pseudonym)] = balance
        entries = self.players.entries.pop((app_id, player), [])
        if entries:
            self.players.entries[(app_id, pseudonym)] = [
                dataclasses.replace(e, reference=rewrite.key(e.reference)) for e in entries
            ]
        rows["chip_entries"] = len(entries)
        rewrite_events(self.state, app_id, rewrite, rows)
        audited = 0
        for i, (app, earlier) in enumerate(self.audit.entries):
            named = dataclasses.replace(
                earlier,
                subject=rewrite.value(earlier.subject),
                detail=rewrite.value(earlier.detail),
            )
            if app == app_id and named != earlier:
                self.audit.entries[i] = (app, named)
                audited += 1
        rows["audit_entries"] = audited
        changed = {table: n for table, n in sorted(rows.items()) if n}
        self.audit.write(app_id, dataclasses.replace(entry, detail={"rows": changed}))
        return Rewritten(changed, tuple(games))
