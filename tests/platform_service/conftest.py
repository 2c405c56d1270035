# The service's fixtures (databases, a started server, a test client), shared.
from tests.service.conftest import client, db_url, pg_url, server, sqlite_url  # noqa: F401
