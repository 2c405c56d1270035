"""The outbound HTTP client: webhook deliveries POSTed with httpx (the ``Poster`` port
of ``services/webhooks.py``, built by ``server.py``). One client per process, its
connections kept alive between deliveries to the same receiver.

Redirects are not followed: a receiver answers the URL the app set, or the attempt
fails with its status (a 3xx is not a delivery).
"""

from __future__ import annotations

import httpx

USER_AGENT = "tranca-webhooks/1"


class HttpPoster:
    def __init__(self, max_connections: int = 16) -> None:
        self._client = httpx.AsyncClient(
            follow_redirects=False,
            headers={"user-agent": USER_AGENT},
            limits=httpx.Limits(max_connections=max_connections, keepalive_expiry=30),
            trust_env=False,  # no proxy or .netrc from the server's environment
        )

    async def post(self, url: str, body: bytes, headers: dict[str, str], timeout: float) -> int:
        """The answer's status code (its body read and dropped); an exception if none
        came (refused, reset, or past ``timeout`` in any phase)."""
        response = await self._client.post(url, content=body, headers=headers, timeout=timeout)
        return response.status_code

    async def close(self) -> None:
        await self._client.aclose()
