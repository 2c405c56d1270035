"""The outbound HTTP client: webhook deliveries POSTed with httpx (the ``Poster`` port
of ``services/webhooks.py``, built by ``server.py``). One client per process, its
connections kept alive between deliveries to the same receiver.

Redirects are not followed: a receiver answers the URL the app set, or the attempt
fails with its status (a 3xx is not a delivery).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

USER_AGENT = "tranca-webhooks/1"


class HttpPoster:
    """The client is made at the first delivery: httpx and what it imports cost a
    replica about 3 MB, which one whose apps set no webhook never needs."""

    def __init__(self, max_connections: int = 16) -> None:
        self.max_connections = max_connections
        self._client: httpx.AsyncClient | None = None

    def _made(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            self._client = httpx.AsyncClient(
                follow_redirects=False,
                headers={"user-agent": USER_AGENT},
                limits=httpx.Limits(max_connections=self.max_connections, keepalive_expiry=30),
                trust_env=False,  # no proxy or .netrc from the server's environment
            )
        return self._client

    async def post(self, url: str, body: bytes, headers: dict[str, str], timeout: float) -> int:
        """The answer's status code (its body read and dropped); an exception if none
        came (refused, reset, or past ``timeout`` in any phase)."""
        response = await self._made().post(url, content=body, headers=headers, timeout=timeout)
        return response.status_code

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
