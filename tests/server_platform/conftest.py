# The service's fixtures (databases, a started server, a test client), shared.
from tests.server.conftest import (  # noqa: F401
    client,
    db_url,
    pg_url,
    replicas,
    server,
    sqlite_template,
    sqlite_url,
)
