"""The fake of the chips', presence and sweeper's ports: balances, last seen, claims."""

from __future__ import annotations

from tranca.services.ports import (
    Claim,
)

from .quick_play import QuickPlayMemory


class SweeperMemory(QuickPlayMemory):
    """The chips', presence and sweeper's ports, in memory."""

    # ----- chips, presence and the sweeper's side -------------------------------------

    async def chip_balance(self, app_id: str, player_id: str) -> int:
        return self.chips.get((app_id, player_id), 0)

    async def touch_presence(self, game_id: str, seat: int) -> None:
        key = (game_id, seat)
        self.presence[key] = max(self.presence.get(key, 0), self.now)

    async def last_seen_ms(self, game_id: str, seat: int) -> int:
        seen = self.presence.get((game_id, seat), 0)
        acted = max(
            (
                int(r.created_at * 1000)
                for r in self._stored(game_id).log
                if r.seat == seat and r.actor == "player"
            ),
            default=0,
        )
        joined = max(
            (
                int(t.created_at * 1000)
                for t in self.tokens.values()
                if t.game_id == game_id and t.token.seat == seat and not t.revoked
            ),
            default=0,
        )
        return max(seen, acted, joined)

    async def claim_due(self, now: int, lease_ms: int, limit: int) -> list[Claim]:
        due = sorted(
            (g for g in self.games.values() if g.deadline_at is not None and g.deadline_at <= now),
            key=lambda g: g.deadline_at or 0,
        )[:limit]
        claims = []
        for g in due:
            lease = (now + lease_ms) | 1
            claims.append(Claim(g.id, g.version, g.deadline_at or 0, lease))
            g.deadline_at = lease
        return claims

    async def set_deadline(self, claim: Claim, version: int, deadline_at: int | None) -> bool:
        g = self._stored(claim.game_id)
        if g.version != version or g.deadline_at != claim.lease_until:
            return False
        g.deadline_at = None if deadline_at is None else deadline_at & ~1
        return True
