"""An identity provider of the tests' own: keys generated here, ID tokens signed with
them (and tokens that must be refused: expired, for another audience, unsigned, an
HMAC token keyed with the public key), and the key set it publishes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from joserfc import jwt
from joserfc.jwk import ECKey, OKPKey, RSAKey

ISSUER = "https://id.example.test"
CLIENT_ID = "tranca-test-client"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@dataclass
class LocalIssuer:
    """An OpenID Connect issuer: its current signing key and the keys it publishes."""

    issuer: str = ISSUER
    client_id: str = CLIENT_ID
    keys: list[RSAKey] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.keys:
            self.rotate()

    @property
    def key(self) -> RSAKey:
        return self.keys[-1]

    def rotate(self, keep_old: bool = True) -> RSAKey:
        """A new signing key, published beside the old ones (or alone)."""
        new = RSAKey.generate_key(2048, parameters={"kid": uuid.uuid4().hex[:12], "use": "sig"})
        self.keys = [*self.keys, new] if keep_old else [new]
        return new

    def key_set(self) -> dict[str, Any]:
        """The JWKS document it publishes: public keys only."""
        return {"keys": [k.as_dict(private=False) for k in self.keys]}

    def claims(self, now: int, **changes: Any) -> dict[str, Any]:
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.client_id,
            "sub": "user-1",
            "iat": now,
            "exp": now + 600,
            "name": "Ana Souza",
            "jti": uuid.uuid4().hex,  # each token its own, as the providers' are
        }
        claims.update(changes)
        return {k: v for k, v in claims.items() if v is not None}

    def token(self, now: int, *, key: RSAKey | None = None, kid: Any = "", **changes: Any) -> str:
        """An ID token signed RS256 with ``key`` (the current one), naming ``kid``
        (the key's; None: none)."""
        signer = key or self.key
        header: dict[str, Any] = {"alg": "RS256"}
        named = signer.kid if kid == "" else kid
        if named is not None:
            header["kid"] = named
        return jwt.encode(header, self.claims(now, **changes), signer, algorithms=["RS256"])

    def unsigned_token(self, now: int, **changes: Any) -> str:
        """``alg: none``: no signature at all."""
        header = _b64(json.dumps({"alg": "none", "kid": self.key.kid}).encode())
        body = _b64(json.dumps(self.claims(now, **changes)).encode())
        return f"{header}.{body}."

    def hmac_with_public_key(self, now: int, **changes: Any) -> str:
        """HS256 keyed with the issuer's public key (PEM): the classic confusion."""
        header = _b64(json.dumps({"alg": "HS256", "kid": self.key.kid}).encode())
        body = _b64(json.dumps(self.claims(now, **changes)).encode())
        secret = self.key.as_pem(private=False)
        mac = hmac.new(secret, f"{header}.{body}".encode(), hashlib.sha256).digest()
        return f"{header}.{body}.{_b64(mac)}"


def custom_key(algorithm: str = "EdDSA", kid: str = "backend-1") -> OKPKey | ECKey | RSAKey:
    """A key an app's backend signs custom tokens with."""
    if algorithm in ("EdDSA", "Ed25519"):
        return OKPKey.generate_key("Ed25519", parameters={"kid": kid})
    if algorithm == "ES256":
        return ECKey.generate_key("P-256", parameters={"kid": kid})
    return RSAKey.generate_key(2048, parameters={"kid": kid})


def custom_token(
    key: OKPKey | ECKey | RSAKey, algorithm: str, app_id: str, player_id: str, now: int,
    **changes: Any,
) -> str:  # fmt: skip
    claims: dict[str, Any] = {
        "aud": app_id, "sub": player_id, "iat": now, "exp": now + 300, "jti": uuid.uuid4().hex,
    }  # fmt: skip
    claims.update(changes)
    claims = {k: v for k, v in claims.items() if v is not None}
    return jwt.encode({"alg": algorithm, "kid": key.kid}, claims, key, algorithms=[algorithm])


def public_jwk(key: OKPKey | ECKey | RSAKey) -> str:
    return json.dumps(key.as_dict(private=False))


@dataclass
class KeyServer:
    """An issuer's keys published over HTTPS on 127.0.0.1 (a plain asyncio server
    speaking enough HTTP/1.1 for one GET a connection), under a certificate for
    ``name`` from a test authority; ``mode`` answers each GET: "ok" (the key set),
    "down" (503) or "hang" (no answer)."""

    issuer: LocalIssuer
    context: Any
    name: str = "keys.example.test"
    mode: str = "ok"
    gets: int = 0
    port: int = 0
    _server: Any = None

    @property
    def url(self) -> str:
        return f"https://{self.name}:{self.port}/jwks"

    async def start(self) -> None:
        import asyncio

        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.context)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _serve(self, reader: Any, writer: Any) -> None:
        import asyncio
        import ssl

        try:
            await reader.readuntil(b"\r\n\r\n")
            self.gets += 1
            if self.mode == "hang":
                await asyncio.sleep(3600)
            if self.mode == "down":
                status, body = "503 Service Unavailable", b"{}"
            else:
                status, body = "200 OK", json.dumps(self.issuer.key_set()).encode()
            head = (
                f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            writer.write(head.encode() + body)
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()
