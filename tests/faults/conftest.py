from tests.service.conftest import pg_url, sqlite_url  # noqa: F401  (shared database fixtures)

from .contract_world import world  # noqa: F401  (the contract fuzzers' server and apps)
