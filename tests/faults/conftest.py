from tests.service.conftest import pg_url, sqlite_url  # noqa: F401  (shared database fixtures)
