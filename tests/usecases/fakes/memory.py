"""An in-memory repository for the use cases' unit tests (cosmicpython's fake): the
ports of ``tranca.services`` kept in dictionaries, with the semantics the database
adapters give them (``tranca.store``): a change is written only at the version it was
made on, a request id once per game, a token works while it is not revoked, not
expired and its app not revoked; a sweeper's claim moves a due game's deadline to its
lease. The same use cases run on SQLite and PostgreSQL in the service tests."""

from __future__ import annotations

from .sweeper import SweeperMemory


class InMemoryRepository(SweeperMemory):
    """Every port the game use cases use, in memory: each port family's fake
    (credentials, sessions, games, quick play, notifications, the sweeper's) over one
    set of rows. ``now`` is the repository's clock (epoch ms), which a test moves
    forward."""
