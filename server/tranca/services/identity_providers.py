"""The identities an app accepts for signing its players in (its policy's
``identity_providers`` and ``custom_token_keys``): OpenID Connect issuers whose ID
tokens name a player (Sign in with Apple, Google, Facebook Limited Login, or any
issuer the app names), and the public keys its backend signs custom tokens with.

Checked when the app sets its policy, so that a sign-in meets only coherent
settings: an issuer and its key set's address are https URLs (the keys are fetched
through the outgoing-call checks of ``services/destinations.py`` when first
needed), at least one client id (a token's ``aud`` must be one), and only
asymmetric signature algorithms: never ``none``, never an HMAC one (a provider's
public key used as an HMAC secret is the classic forgery), each key's algorithm
fixed in the policy rather than read from a token.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from joserfc.jwk import ECKey, OKPKey, RSAKey

from tranca_rules.errors import quoted

from .errors import malformed

# joserfc warns at every use of "EdDSA", which RFC 9864 deprecates in favour of the
# fully specified "Ed25519". Apps' backends still sign with the older name (most
# JOSE libraries emit it), so both are accepted, and the warning, which would fire
# on every custom sign-in, is silenced here once.
warnings.filterwarnings("ignore", message="EdDSA is deprecated", module="joserfc")

# The provider name a custom token is signed in with (SignInWithIdentity).
CUSTOM = "custom"
MAX_PROVIDERS = 10
MAX_CUSTOM_KEYS = 10
MAX_CLIENT_IDS = 10
MAX_NAME = 64
MAX_URL = 500
MIN_RSA_BITS = 2048

# Asymmetric signature algorithms an ID token may use; HMAC and "none" never.
PROVIDER_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA", "Ed25519"}
)
# A custom key's algorithm and the key type it must be.
CUSTOM_ALGORITHMS = {"EdDSA": "OKP", "Ed25519": "OKP", "ES256": "EC", "RS256": "RSA"}


@dataclass(frozen=True)
class IdentityProvider:
    """An OpenID Connect issuer an app accepts ID tokens from: the name clients give,
    the issuer a token's ``iss`` must equal, where its keys are published, the app's
    client ids there (a token's ``aud`` must be one) and the algorithms accepted."""

    name: str
    issuer: str = ""
    jwks_uri: str = ""
    client_ids: tuple[str, ...] = ()
    algorithms: tuple[str, ...] = ()

    def resolved(self) -> IdentityProvider:
        """The provider with a well-known provider's issuer, keys and algorithms
        filled in where the app left them empty."""
        known = WELL_KNOWN.get(self.name)
        if known is None:
            return self
        return replace(
            self,
            issuer=self.issuer or known.issuer,
            jwks_uri=self.jwks_uri or known.jwks_uri,
            algorithms=self.algorithms or known.algorithms,
        )

    @property
    def issuers(self) -> tuple[str, ...]:
        """Every ``iss`` value the issuer's tokens carry (Google writes its issuer
        with and without the scheme)."""
        return (self.issuer, *ISSUER_ALIASES.get(self.issuer, ()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "issuer": self.issuer,
            "jwks_uri": self.jwks_uri,
            "client_ids": list(self.client_ids),
            "algorithms": list(self.algorithms),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IdentityProvider:
        return cls(
            str(data.get("name", "")),
            str(data.get("issuer", "")),
            str(data.get("jwks_uri", "")),
            tuple(data.get("client_ids", ())),
            tuple(data.get("algorithms", ())),
        )


# The providers an app names with its client ids alone. Their documents: Apple's
# "Authenticating users with Sign in with Apple", Google's "Verify the Google ID
# token on your server side", Facebook's "Validating the Limited Login OIDC Token".
WELL_KNOWN = {
    "apple": IdentityProvider(
        "apple", "https://appleid.apple.com", "https://appleid.apple.com/auth/keys",
        (), ("RS256",),
    ),
    "google": IdentityProvider(
        "google", "https://accounts.google.com", "https://www.googleapis.com/oauth2/v3/certs",
        (), ("RS256",),
    ),
    "facebook": IdentityProvider(
        "facebook", "https://www.facebook.com",
        "https://limited.facebook.com/.well-known/oauth/openid/jwks/", (), ("RS256",),
    ),
}  # fmt: skip
ISSUER_ALIASES = {"https://accounts.google.com": ("accounts.google.com",)}


@dataclass(frozen=True)
class CustomTokenKey:
    """A public key the app's backend signs its custom tokens with: its id (the
    tokens' ``kid``), its algorithm, and the key as a JWK (JSON) or PEM text."""

    key_id: str
    algorithm: str
    public_key: str

    def to_dict(self) -> dict[str, Any]:
        return {"key_id": self.key_id, "algorithm": self.algorithm, "public_key": self.public_key}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CustomTokenKey:
        return cls(
            str(data.get("key_id", "")), str(data.get("algorithm", "")),
            str(data.get("public_key", "")),
        )  # fmt: skip


PublicKey = RSAKey | ECKey | OKPKey


def public_key_of(key: CustomTokenKey) -> PublicKey:
    """The key as joserfc reads it: of the type its algorithm needs, public only;
    ValueError saying what is wrong otherwise."""
    kind = CUSTOM_ALGORITHMS.get(key.algorithm)
    if kind is None:
        raise ValueError(f"algorithm is one of {', '.join(sorted(CUSTOM_ALGORITHMS))}")
    text = key.public_key.strip()
    value: str | dict[str, Any] = text
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise ValueError("public_key is not JSON (a JWK) nor PEM") from exc
        if not isinstance(value, dict):
            raise ValueError("public_key is not a JWK")
        if "d" in value:
            raise ValueError("public_key holds a private key: give the public part alone")
    elif "PRIVATE KEY" in text:
        raise ValueError("public_key holds a private key: give the public part alone")
    classes: dict[str, type[PublicKey]] = {"OKP": OKPKey, "EC": ECKey, "RSA": RSAKey}
    try:
        imported = classes[kind].import_key(value)
    # Whatever a key that is not one makes the library raise (a JoseError, a
    # ValueError, a TypeError or AttributeError for a member of the wrong type, the
    # cryptography package's own errors) is the same refusal.
    except Exception as exc:
        raise ValueError(f"public_key is not a {kind} public key for {key.algorithm}") from exc
    if imported.is_private:
        raise ValueError("public_key holds a private key: give the public part alone")
    if isinstance(imported, RSAKey) and imported.raw_value.key_size < MIN_RSA_BITS:
        raise ValueError(f"an RSA key has at least {MIN_RSA_BITS} bits")
    if isinstance(imported, ECKey) and imported.curve_name != "P-256":
        raise ValueError("an ES256 key is on the curve P-256")
    if isinstance(imported, OKPKey) and imported.curve_name != "Ed25519":
        raise ValueError("an EdDSA key is an Ed25519 key")
    return imported


def _https_url(field: str, url: str) -> str:
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        parts = None
    if len(url) > MAX_URL or parts is None or parts.scheme != "https" or not parts.hostname:
        raise malformed(f"{field}: {quoted(url)} is not an https URL (at most {MAX_URL} chars)")
    return url


def checked_providers(providers: tuple[IdentityProvider, ...]) -> tuple[IdentityProvider, ...]:
    """The providers as stored (well-known ones filled in); MALFORMED_REQUEST naming
    the first that is not coherent."""
    if len(providers) > MAX_PROVIDERS:
        raise malformed(f"identity_providers holds at most {MAX_PROVIDERS} providers")
    out: list[IdentityProvider] = []
    for given in providers:
        name = given.name.strip().lower()
        where = f"identity_providers[{name or '?'}]"
        if not name or len(name) > MAX_NAME or not name.replace("-", "").replace("_", "").isalnum():
            raise malformed(f"{where}: name is 1 to {MAX_NAME} letters, digits, - or _")
        if name == CUSTOM:
            raise malformed(f'{where}: "{CUSTOM}" names the custom tokens (custom_token_keys)')
        if any(p.name == name for p in out):
            raise malformed(f"{where}: named twice")
        provider = replace(given, name=name).resolved()
        if name not in WELL_KNOWN and not (provider.issuer and provider.jwks_uri):
            raise malformed(f"{where}: issuer and jwks_uri are required for this provider")
        issuer = _https_url(f"{where}.issuer", provider.issuer)
        jwks_uri = _https_url(f"{where}.jwks_uri", provider.jwks_uri)
        client_ids = tuple(dict.fromkeys(c.strip() for c in provider.client_ids if c.strip()))
        if not 1 <= len(client_ids) <= MAX_CLIENT_IDS:
            raise malformed(f"{where}: client_ids holds 1 to {MAX_CLIENT_IDS} of the app's ids")
        wrong = [a for a in provider.algorithms if a not in PROVIDER_ALGORITHMS]
        if wrong:
            raise malformed(
                f"{where}: algorithm {quoted(wrong[0])} is not accepted"
                f" (one of {', '.join(sorted(PROVIDER_ALGORITHMS))})"
            )
        # No algorithm named: RS256, what OpenID Connect providers sign with.
        algorithms = tuple(provider.algorithms) or ("RS256",)
        out.append(IdentityProvider(name, issuer, jwks_uri, client_ids, algorithms))
    return tuple(out)


def checked_custom_keys(keys: tuple[CustomTokenKey, ...]) -> tuple[CustomTokenKey, ...]:
    """The custom token keys as stored; MALFORMED_REQUEST naming the first that is
    not a usable public key."""
    if len(keys) > MAX_CUSTOM_KEYS:
        raise malformed(f"custom_token_keys holds at most {MAX_CUSTOM_KEYS} keys")
    seen: set[str] = set()
    for key in keys:
        where = f"custom_token_keys[{key.key_id or '?'}]"
        if not key.key_id or len(key.key_id) > MAX_NAME:
            raise malformed(f"{where}: key_id is 1 to {MAX_NAME} characters")
        if key.key_id in seen:
            raise malformed(f"{where}: key_id given twice")
        seen.add(key.key_id)
        try:
            public_key_of(key)
        except ValueError as exc:
            raise malformed(f"{where}: {exc}") from None
    return keys


__all__ = [
    "CUSTOM",
    "CUSTOM_ALGORITHMS",
    "PROVIDER_ALGORITHMS",
    "WELL_KNOWN",
    "CustomTokenKey",
    "IdentityProvider",
    "checked_custom_keys",
    "checked_providers",
    "public_key_of",
]
