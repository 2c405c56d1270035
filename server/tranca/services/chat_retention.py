"""How long chat is kept: each app's messages older than its policy's
``chat_retention_days`` (a month by default) are deleted, by a pass every
``PRUNE_EVERY_SECONDS`` on each replica that sweeps (the deletions are the same
whichever replica makes them, so two passes at once only repeat each other).
A report keeps its own copy of the messages around the one reported
(``chat_moderation.py``), so pruning never takes a moderator's evidence away."""

from __future__ import annotations

import asyncio
from typing import Protocol

import structlog

from .policy import AppPolicies, AppPolicy
from .sessions import Clock

PRUNE_EVERY_SECONDS = 600.0
DAY_MS = 86_400_000

log = structlog.get_logger("tranca.chat_retention")


class RetentionRepository(Protocol):
    async def chat_apps(self) -> list[str]:
        """The apps with chat rooms."""
        ...

    async def prune(self, app_id: str, before_ms: int) -> int:
        """The app's messages posted before ``before_ms`` deleted; how many."""
        ...


class ChatRetention:
    def __init__(self, repo: RetentionRepository, policies: AppPolicies, clock: Clock) -> None:
        self.repo = repo
        self.policies = policies
        self.clock = clock

    async def prune_once(self) -> int:
        """One pass over every app with chat; how many messages went."""
        now = self.clock()
        gone = 0
        for app_id in await self.repo.chat_apps():
            policy = await self.policies.app_policy(app_id) or AppPolicy()
            gone += await self.repo.prune(app_id, now - policy.chat_retention_days * DAY_MS)
        return gone

    async def run(self, every: float = PRUNE_EVERY_SECONDS) -> None:
        """A pass every ``every`` seconds, the first after one interval, until
        cancelled; a failed pass is logged and the next one tries again."""
        while True:
            await asyncio.sleep(every)
            try:
                gone = await self.prune_once()
                if gone:
                    log.info("chat_pruned", messages=gone)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("chat_prune_failed")


__all__ = ["PRUNE_EVERY_SECONDS", "ChatRetention", "RetentionRepository"]
