"""The fake of the merge's port (services/account_merge.py) over the in-memory rows:
the merged player's identities, seats, chips and events folded into the kept
player's, their sessions ended, the kept player's profile kept; the audit entry
written with it. Ratings and tournaments are the database tests' (the players' fake
keeps no ratings, the tournaments' fake rows of its own)."""

from __future__ import annotations

import dataclasses

from tranca.services.account_merge import AccountsSharedATable
from tranca.services.audit import AuditEntry
from tranca.services.player_rewrite import (
    PlayerRewrite,
    PlayerStillPlaying,
    Rewritten,
    StillPlaying,
)
from tranca.table.game import BY_APP

from .erasure import AccountRowsMemory, rewrite_events, rewrite_seats, seated_games, unfinished


class MergeMemory(AccountRowsMemory):
    """``MergeRepository`` over the in-memory games, sessions, identities, profiles
    and chips."""

    async def merge_players(
        self, app_id: str, rewrite: PlayerRewrite, entry: AuditEntry
    ) -> Rewritten:
        merged, kept = rewrite.player_id, rewrite.replacement
        games = seated_games(self.state, app_id, merged)
        kept_games = seated_games(self.state, app_id, kept)
        for player, theirs in ((merged, games), (kept, kept_games)):
            playing = unfinished(self.state, theirs, player)
            if playing:
                raise PlayerStillPlaying(StillPlaying(games=playing))
        shared = tuple(
            g
            for g in sorted(set(games) & set(kept_games))
            if {s.player_id for s in self.state.games[g].state.seats} >= {merged, kept}
        )
        if shared:
            raise AccountsSharedATable(shared, ())
        rows: dict[str, int] = {}
        links = [k for k, p in self.identities.links.items() if k[0] == app_id and p == merged]
        for link in links:
            self.identities.links[link] = kept
        rows["player_identities"] = len(links)
        sessions = [
            sid
            for sid, s in self.state.sessions.items()
            if (s.new.app_id, s.new.player_id) == (app_id, merged)
        ]
        for sid in sessions:
            del self.state.sessions[sid]
        rows["player_sessions"] = len(sessions)
        profile = self.profiles.profiles.pop((app_id, merged), None)
        name_key = self.profiles.name_keys.pop((app_id, merged), None)
        if profile is not None and (app_id, kept) not in self.profiles.profiles:
            self.profiles.profiles[(app_id, kept)] = profile
            self.profiles.name_keys[(app_id, kept)] = name_key
        rows["player_profiles"] = int(profile is not None)
        rewrite_seats(self.state, games, rewrite, BY_APP, rows)
        moved = self.players.balances.pop((app_id, merged), 0)
        if moved:
            self.players.balances[(app_id, kept)] = (
                self.players.balances.get((app_id, kept), 0) + moved
            )
        rows["chip_entries"] = 2 if moved else 0
        rewrite_events(self.state, app_id, rewrite, rows)
        changed = {table: n for table, n in sorted(rows.items()) if n}
        detail = {**entry.detail, "rows": changed}
        self.audit.write(app_id, dataclasses.replace(entry, detail=detail))
        return Rewritten(changed, tuple(games))
