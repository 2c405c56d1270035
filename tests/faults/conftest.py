from pathlib import Path

import pytest

from tests.harness.databases import sqlite_copy
from tests.server.conftest import pg_url, sqlite_template  # noqa: F401  (shared database fixtures)

from .contract_world import world  # noqa: F401  (the contract fuzzers' server and apps)


@pytest.fixture(scope="module")
def sqlite_url(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> str:  # noqa: F811
    """A SQLite file of each module's own (its fuzzers' servers live as long as it)."""
    return sqlite_copy(sqlite_template, tmp_path_factory.mktemp("faults-db") / "tranca.db")
