"""An identity token checked: an OpenID Connect ID token against its provider's
published keys, or a custom token against the app's own key (RFC 7519 JWTs in the
compact JWS form), with joserfc.

joserfc (the JOSE library of Authlib's author) was chosen over PyJWT because it
never takes the algorithm from the token: each decode names the algorithms it
accepts, keys are typed (an RSA public key can never be used as an HMAC secret, the
confusion behind forged tokens in other libraries), "none" is refused unless asked
for, and it is fully typed; key sets are read from JWKS documents as the providers
publish them. The fetching of those documents is ours (``services/key_sets.py``):
it goes through the outgoing-call checks, which a library's own HTTP client would
bypass.

What is checked, each failure a ``TokenRefused`` saying which:
- the token is a compact JWS whose header names an algorithm the provider (or the
  key) is configured for, before any key is looked at;
- its key: the one the header's ``kid`` names in the provider's key set (a key set
  of one key serves a token without ``kid``), or the app's custom key of that id;
- the signature, with that key and that algorithm alone;
- ``iss`` (one of the provider's issuers; a custom token's is not read), ``aud``
  (one of the app's client ids; a custom token's is the app's id), ``sub`` present,
  ``exp`` and ``iat`` present, ``exp`` not past and ``nbf`` and ``iat`` not ahead,
  each within ``LEEWAY`` seconds for clocks that differ;
- ``nonce`` equal to the client's where the client sends one;
- a custom token's lifetime (``exp - iat``) at most ``MAX_CUSTOM_LIFETIME``: the app's
  backend mints one for each sign-in.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from joserfc.jwt import JWTClaimsRegistry

from .identity_providers import (
    CUSTOM_ALGORITHMS,
    CustomTokenKey,
    IdentityProvider,
    PublicKey,
    public_key_of,
)

# Seconds two clocks may differ by: a token just expired, or issued a moment ahead
# of this server's clock, is still taken.
LEEWAY = 60
MAX_CUSTOM_LIFETIME = 600
MAX_TOKEN_CHARS = 8192
# Characters no subject or name may hold: control characters and surrogates (which
# PostgreSQL's text refuses), format characters (invisible).
UNPRINTABLE = frozenset({"Cc", "Cs", "Cf"})


class TokenRefused(Exception):
    """The token does not hold; ``str()`` says what failed (no secret in it)."""


@dataclass(frozen=True)
class VerifiedIdentity:
    """Who a valid token names: its issuer and subject (the identity), when it
    expires (epoch seconds: it is spent until then), and the display name it
    suggests (``name``, else empty)."""

    issuer: str
    subject: str
    expires_at: int
    name: str


def token_header(token: str) -> dict[str, Any]:
    """The protected header of a compact JWS; TokenRefused if it is not one."""
    if not token or len(token) > MAX_TOKEN_CHARS or token.count(".") != 2:
        raise TokenRefused("the token is not a compact JWT (header.payload.signature)")
    try:
        header = jws.extract_compact(token.encode()).protected
    # A header that is not one, whichever way (bad base64, bad JSON, a member of the
    # wrong type), is the same refusal.
    except Exception as exc:
        raise TokenRefused("the token's header cannot be read") from exc
    if not isinstance(header, dict) or not isinstance(header.get("alg"), str):
        raise TokenRefused("the token's header names no algorithm")
    return header


def _key_id(header: dict[str, Any]) -> str | None:
    kid = header.get("kid")
    if kid is None:
        return None
    if not isinstance(kid, str):
        raise TokenRefused("the token's kid is not a string")
    return kid


def _claims(
    token: str, key: PublicKey | KeySet, algorithm: str, now: int, **expected: Any
) -> dict[str, Any]:
    """The verified claims: the signature with ``key`` and ``algorithm`` alone, then
    the registered claims (``expected``: joserfc's claim options) and the times."""
    try:
        decoded = jwt.decode(token, key, algorithms=[algorithm])
    # A payload or signature that does not verify or cannot be read, whichever way
    # the library finds out, is the same refusal.
    except Exception as exc:
        raise TokenRefused(f"the signature does not verify ({type(exc).__name__})") from exc
    claims = decoded.claims
    registry = JWTClaimsRegistry(
        now=now,
        leeway=LEEWAY,
        exp={"essential": True},
        iat={"essential": True},
        sub={"essential": True},
        **expected,
    )
    try:
        registry.validate(claims)
    except JoseError as exc:
        raise TokenRefused(_claim_failure(exc)) from exc
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject or len(subject) > 255:
        raise TokenRefused("the token's sub is not a subject (1 to 255 characters)")
    if any(unicodedata.category(c) in UNPRINTABLE for c in subject):
        raise TokenRefused("the token's sub holds a control character")
    if not isinstance(claims.get("exp"), int) or not isinstance(claims.get("iat"), int):
        raise TokenRefused("the token's exp and iat are not whole seconds")
    return claims


def _claim_failure(exc: JoseError) -> str:
    """What a failed claim check means, in words (joserfc's error names the claim)."""
    claim = str(getattr(exc, "claim", "") or "")
    kind = type(exc).__name__
    if kind == "ExpiredTokenError":
        return "the token has expired"
    if kind == "MissingClaimError":
        return f"the token has no {claim or 'required'} claim"
    if claim in ("nbf", "iat") or kind == "InvalidTokenError":
        return f"the token is not valid yet ({claim or 'nbf'} ahead of now)"
    if claim:
        return f"the token's {claim} is not the one expected"
    return f"the token's claims do not hold ({kind})"


def verify_id_token(
    token: str,
    provider: IdentityProvider,
    key_set: dict[str, Any],
    *,
    now: int,
    nonce: str = "",
) -> VerifiedIdentity:
    """The identity an ID token of ``provider`` names, its signature checked with
    ``key_set`` (the provider's JWKS document); TokenRefused saying what failed."""
    header = token_header(token)
    algorithm = header["alg"]
    if algorithm not in provider.algorithms:
        raise TokenRefused(
            f"the token's algorithm {algorithm!r} is not one this provider is accepted with"
        )
    kid = _key_id(header)
    try:
        keys = KeySet.import_key_set(key_set)  # type: ignore[arg-type]
    # The provider's document, read as published: any key the library cannot read
    # makes the set unusable, the same refusal whichever way.
    except Exception as exc:
        raise TokenRefused("the provider's key set cannot be read") from exc
    if kid is None:
        if len(keys.keys) != 1:
            raise TokenRefused("the token names no key (kid) and the provider has several")
        key: PublicKey | KeySet = keys.keys[0]  # type: ignore[assignment]
    else:
        found = [k for k in keys.keys if k.kid == kid]
        if not found:
            raise TokenRefused(f"the provider publishes no key {kid!r}")
        key = found[0]  # type: ignore[assignment]
    claims = _claims(
        token,
        key,
        algorithm,
        now,
        iss={"essential": True, "values": list(provider.issuers)},
        aud={"essential": True, "values": list(provider.client_ids)},
    )
    if nonce and claims.get("nonce") != nonce:
        raise TokenRefused("the token's nonce is not the one the client sent")
    # The provider's own issuer, not the token's spelling of it: Google writes its
    # issuer two ways, and one account must be one identity.
    return VerifiedIdentity(
        provider.issuer, str(claims["sub"]), int(claims["exp"]), _name_of(claims)
    )


def verify_custom_token(
    token: str, app_id: str, keys: tuple[CustomTokenKey, ...], *, now: int, nonce: str = ""
) -> VerifiedIdentity:
    """The app's player a custom token names (``sub``), signed with one of the app's
    custom keys (the header's ``kid``) and addressed to the app (``aud`` its id);
    TokenRefused saying what failed. Its issuer is recorded as ``custom``."""
    header = token_header(token)
    kid = _key_id(header)
    key = next((k for k in keys if k.key_id == kid), None)
    if key is None:
        raise TokenRefused(f"the app has no custom token key {kid!r}")
    algorithm = header["alg"]
    if algorithm != key.algorithm and {algorithm, key.algorithm} != {"EdDSA", "Ed25519"}:
        raise TokenRefused(f"the key {kid!r} signs with {key.algorithm}, not {algorithm!r}")
    if algorithm not in CUSTOM_ALGORITHMS:
        raise TokenRefused(f"the token's algorithm {algorithm!r} is not accepted")
    try:
        public = public_key_of(key)
    except ValueError as exc:  # the policy was checked when set: not expected
        raise TokenRefused(f"the app's key {kid!r} cannot be used: {exc}") from exc
    claims = _claims(token, public, algorithm, now, aud={"essential": True, "value": app_id})
    if int(claims["exp"]) - int(claims["iat"]) > MAX_CUSTOM_LIFETIME:
        raise TokenRefused(f"a custom token lives at most {MAX_CUSTOM_LIFETIME} s (exp - iat)")
    if nonce and claims.get("nonce") != nonce:
        raise TokenRefused("the token's nonce is not the one the client sent")
    return VerifiedIdentity("custom", str(claims["sub"]), int(claims["exp"]), _name_of(claims))


def _name_of(claims: dict[str, Any]) -> str:
    """The token's ``name``, without control characters, at most 200 characters."""
    name = claims.get("name")
    if not isinstance(name, str):
        return ""
    printable = "".join(c for c in name if unicodedata.category(c) not in UNPRINTABLE)
    return " ".join(printable.split())[:200]


__all__ = [
    "LEEWAY",
    "MAX_CUSTOM_LIFETIME",
    "TokenRefused",
    "VerifiedIdentity",
    "token_header",
    "verify_custom_token",
    "verify_id_token",
]
