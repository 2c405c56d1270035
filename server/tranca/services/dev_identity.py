"""A test OpenID Connect provider inside the server, for development only: the
development app (``--dev-api-key``) accepts its ID tokens as the provider "dev",
and the browser port hands the web table a token for the name a player types
(``POST /dev-identity/token``), so that signing in with an identity and linking a
guest to it can be tried, and tested in a browser, without an account at Apple or
Google.

It is a provider like the others to the sign-in: its tokens are EdDSA
JWTs checked by ``services/identity_tokens.py`` against its key set, which the
server reads in process (``DevKeyFetcher``: its address is a name that never
resolves, ``.invalid``). The signing key is derived from the development API key,
so every worker process of one server signs and checks alike. Never on without
``--dev-api-key``: anyone who can reach the port may sign in as any name.
"""

from __future__ import annotations

import hashlib
import time
import unicodedata
import uuid
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from joserfc import jwt
from joserfc.jwk import OKPKey

from .errors import malformed
from .identity_providers import IdentityProvider
from .identity_tokens import UNPRINTABLE
from .key_sets import KeyFetcher

DEV_PROVIDER = "dev"
DEV_ISSUER = "https://dev-identity.tranca.invalid"
DEV_JWKS = f"{DEV_ISSUER}/jwks"
DEV_CLIENT_ID = "tranca-web-table"
DEV_ALGORITHM = "EdDSA"
MAX_SUBJECT = 64
MAX_NONCE = 256
TOKEN_SECONDS = 300


class DevIdentity:
    """The test provider: its key, its tokens, its key set."""

    def __init__(self, dev_api_key: str) -> None:
        seed = hashlib.sha256(f"tranca dev identity:{dev_api_key}".encode()).digest()
        pem = Ed25519PrivateKey.from_private_bytes(seed).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        self.key = OKPKey.import_key(pem, {"kid": "dev-1", "use": "sig"})

    @staticmethod
    def provider() -> IdentityProvider:
        """The provider as the development app's policy names it."""
        return IdentityProvider(
            DEV_PROVIDER, DEV_ISSUER, DEV_JWKS, (DEV_CLIENT_ID,), (DEV_ALGORITHM,)
        )

    def key_set(self) -> dict[str, Any]:
        return {"keys": [self.key.as_dict(private=False)]}

    def token(self, name: str, nonce: str = "", now: int | None = None) -> str:
        """An ID token for the player who types ``name``: its subject is the name
        folded (the same name, the same identity), its ``name`` claim the name."""
        shown = " ".join(name.split())
        subject = shown.casefold()
        if not subject or len(subject) > MAX_SUBJECT:
            raise malformed(f"name is 1 to {MAX_SUBJECT} characters")
        if any(unicodedata.category(c) in UNPRINTABLE for c in shown):
            raise malformed("name holds a control or invisible character")
        if len(nonce) > MAX_NONCE:
            raise malformed(f"nonce is at most {MAX_NONCE} characters")
        issued = int(time.time()) if now is None else now
        claims: dict[str, Any] = {
            "iss": DEV_ISSUER,
            "aud": DEV_CLIENT_ID,
            "sub": subject,
            "name": shown,
            "iat": issued,
            "exp": issued + TOKEN_SECONDS,
            "jti": uuid.uuid4().hex,
        }
        if nonce:
            claims["nonce"] = nonce
        header = {"alg": DEV_ALGORITHM, "kid": self.key.kid}
        return jwt.encode(header, claims, self.key, algorithms=[DEV_ALGORITHM])


class DevKeyFetcher:
    """The test provider's key set in process; every other address by ``inner``."""

    def __init__(self, inner: KeyFetcher, dev: DevIdentity) -> None:
        self.inner = inner
        self.dev = dev

    async def fetch(self, url: str) -> dict[str, Any]:
        if url == DEV_JWKS:
            return self.dev.key_set()
        return await self.inner.fetch(url)


__all__ = [
    "DEV_CLIENT_ID",
    "DEV_ISSUER",
    "DEV_JWKS",
    "DEV_PROVIDER",
    "DevIdentity",
    "DevKeyFetcher",
]
