"""The sweeper: every replica runs one; together they fire expired turn timers, play
robots' turns and settle finished matches, each exactly once (see run_once)."""

from __future__ import annotations

import asyncio

from .repository import Store


class Sweeper:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def run_once(self) -> int:
        """One sweep; returns how many games it acted on."""
        return 0

    async def run(self, interval: float) -> None:
        while True:
            await self.run_once()
            await asyncio.sleep(interval)
