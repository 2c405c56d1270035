"""Where the server may call out to: the check every outgoing HTTP call passes (webhook
deliveries today), so that an app cannot make the server reach into the operator's
network.

A destination is an ``https`` URL (``http`` only when the operator allows it, for
development) whose host is checked twice over: its every address must be a public
one, and the addresses checked are the ones connected to (``Destination.addresses``:
the HTTP client, ``tranca/outbound.py``, connects to no other, never resolving the
name again). A name is resolved through the ``Resolver`` port at each check, so a
name that pointed at a public address when an app registered it and at a private
one later (DNS rebinding) is refused when it is called, and nothing is sent.

Refused, unless the operator's allow-list (``OutboundPolicy.allowed``, CIDR ranges)
holds the address: loopback, private (RFC 1918, fc00::/7, the old site-local
fec0::/10), link-local (169.254/16 with the cloud metadata services' 169.254.169.254,
fe80::/10), multicast, unspecified (0.0.0.0/8, ::), carrier-grade NAT (100.64/10),
and every other special-purpose range the standard library does not call global
(documentation, benchmarking, reserved, broadcast). An address that carries an IPv4
address (IPv4-mapped ::ffff:a.b.c.d, NAT64's 64:ff9b::/96, 6to4's 2002::/16) is
judged by the IPv4 address it carries as well.

A name with several addresses passes only if every one passes: a name that mixes
public and private addresses is refused whole, so whether a call goes out never
depends on which address a resolver lists first, and the check at registration
means what the check at each call means.

Hosts written as numbers are read as browsers and the C library read them
(``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1`` are all 127.0.0.1): such a
host is an address, checked as one, never a name handed to a resolver; a host that
looks like a number but is none (``08.0.0.1``, ``1.2.3.4.5``) is no URL.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import SplitResult, quote, urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_HOST = 253  # characters of a DNS name
RESOLVE_TIMEOUT = 5.0  # seconds a resolution may take when the caller gives no bound

# Ranges the standard library's is_private / is_global do not name on every Python
# the server runs on, or names under a word too vague for a refusal's message.
CARRIER_GRADE_NAT = ipaddress.IPv4Network("100.64.0.0/10")
THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")
RFC1918 = tuple(ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
UNIQUE_LOCAL = ipaddress.IPv6Network("fc00::/7")
NAT64_WELL_KNOWN = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052: a.b.c.d in the last 32 bits
NAT64_LOCAL_USE = ipaddress.IPv6Network("64:ff9b:1::/48")  # RFC 8215: a network's own

# A DNS name, once IDNA-encoded: letters, digits, hyphens, underscores, dots.
NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?")
# The last label of a host that reads as a number: the C library and browsers then
# read the whole host as an IPv4 address (WHATWG URL, "ends in a number").
NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")


class DestinationError(Exception):
    """A URL the server will not call; the message says why, for the app."""


class BadDestination(DestinationError):
    """Not a URL the server calls: its scheme, its host or its form."""


class ForbiddenDestination(DestinationError):
    """The host is, or resolves to, an address outgoing calls may not reach."""


class UnresolvedDestination(DestinationError):
    """The host's name has no address now (or the resolver gave none in time)."""


class Resolver(Protocol):
    """A host name's addresses (``tranca/outbound.py``'s ``SystemResolver`` asks the
    system's resolver; tests give their own). Raises ``OSError`` when the name does
    not resolve."""

    async def resolve(self, host: str, port: int) -> Sequence[IPAddress]: ...


@dataclass(frozen=True)
class OutboundPolicy:
    """The operator's settings for outgoing calls (``tranca serve --outbound-*``)."""

    allow_http: bool = False  # development only: plain http to a receiver
    allowed: tuple[IPNetwork, ...] = ()  # ranges reachable even though not public

    def permits(self, address: IPAddress) -> bool:
        """On the allow-list: the address, or the IPv4 address an IPv4-mapped one is
        (the same destination)."""
        candidates: list[IPAddress] = [address]
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            candidates.append(address.ipv4_mapped)
        return any(a in network for a in candidates for network in self.allowed)


def parse_networks(text: str) -> tuple[IPNetwork, ...]:
    """CIDR ranges separated by commas or spaces (``10.0.0.0/8, ::1/128``); a bare
    address is its own range. ValueError names a bad one."""
    networks: list[IPNetwork] = []
    for item in re.split(r"[,\s]+", text.strip()):
        if item:
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError as exc:
                raise ValueError(f"{item!r} is not a CIDR range: {exc}") from None
    return tuple(networks)


def refusal(address: IPAddress) -> str | None:
    """Why outgoing calls may not reach ``address`` (the kind of address it is), or
    None for a public one. The operator's allow-list is not consulted here."""
    if isinstance(address, ipaddress.IPv6Address):
        carried = carried_ipv4(address)
        if carried is not None:
            kind, inner = carried
            why = refusal(inner)
            # A public IPv4 address carried is a public destination (64:ff9b::/96
            # itself is "reserved" to the standard library: a gateway's prefix).
            return None if why is None else f"{why}, carried in {kind}"
        if address in NAT64_LOCAL_USE:
            return "a private address (local-use NAT64)"
        if address.is_site_local:
            return "a private address (site-local)"
    elif address in THIS_NETWORK:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_link_local:
        return "a link-local address (where cloud metadata services answer)"
    if address.is_multicast:
        return "a multicast address"
    if address in CARRIER_GRADE_NAT:
        return "a carrier-grade NAT address"
    if any(address in n for n in RFC1918) or address in UNIQUE_LOCAL:
        return "a private address"
    if address.is_reserved or address.is_private or not address.is_global:
        return "a reserved or special-purpose address"
    return None


def carried_ipv4(address: ipaddress.IPv6Address) -> tuple[str, ipaddress.IPv4Address] | None:
    """The IPv4 address an IPv6 address carries, and how it carries it: IPv4-mapped
    (the same host), NAT64's well-known prefix (a gateway translates to it), 6to4 (a
    relay reaches it)."""
    if address.ipv4_mapped is not None:
        return "an IPv4-mapped IPv6 address", address.ipv4_mapped
    if address in NAT64_WELL_KNOWN:
        return "a NAT64 address", ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return "a 6to4 address", address.sixtofour
    return None


def ipv4_number(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a host written as numbers stands for, read as the C library's
    inet_aton and browsers read it: one to four parts, each decimal, octal (a leading
    0) or hexadecimal (0x), the last filling the bytes left (``127.1``,
    ``2130706433``, ``0x7f.0.0.1``). None if the host does not end in a number (a
    name). BadDestination if it ends in one but is no address (``08.1``, ``1.2.3.4.5``,
    ``4294967296``): nothing would read it as a name either."""
    labels = host.lower().removesuffix(".").split(".")
    if not NUMERIC_LABEL.fullmatch(labels[-1]):
        return None
    bad = BadDestination(f"the host {host!r} is not an IPv4 address")
    if len(labels) > 4:
        raise bad
    numbers: list[int] = []
    for label in labels:
        try:
            if label.startswith("0x"):
                numbers.append(int(label[2:], 16))  # "0x" alone: no number (as inet_aton)
            elif len(label) > 1 and label.startswith("0"):
                numbers.append(int(label, 8))
            else:
                numbers.append(int(label, 10))
        except ValueError:
            raise bad from None
    *leading, last = numbers
    if any(n > 255 for n in leading) or last >= 256 ** (5 - len(numbers)):
        raise bad
    value = last
    for i, n in enumerate(leading):
        value |= n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


@dataclass(frozen=True)
class Target:
    """A URL as the server reads it, before its host is resolved."""

    url: str
    scheme: str  # "https" (or "http" where the policy allows it)
    host: str  # lower case, IDNA-encoded; an address's canonical text for a literal
    port: int
    path: str  # the request target: path and query, percent-encoded ASCII
    literal: IPAddress | None  # the host is this address (no resolution)

    @property
    def host_header(self) -> str:
        """The Host header: the name (an IPv6 address in brackets), and the port if it
        is not the scheme's default."""
        host = f"[{self.host}]" if isinstance(self.literal, ipaddress.IPv6Address) else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"


@dataclass(frozen=True)
class Destination:
    """A URL whose every address passed the check: connect to these, and no other."""

    target: Target
    addresses: tuple[IPAddress, ...]

    @property
    def url(self) -> str:
        return self.target.url


def parse(url: str, policy: OutboundPolicy) -> Target:
    """The URL's scheme, host, port and path, or BadDestination (the message says
    what is wrong)."""
    try:
        parts = urlsplit(url)
        port = parts.port  # raises ValueError for a port out of range
    except ValueError as exc:
        raise BadDestination(f"not a URL: {exc}") from None
    schemes = ("https", "http") if policy.allow_http else ("https",)
    if parts.scheme not in schemes:
        only = "http and https URLs are" if policy.allow_http else "https URLs are"
        raise BadDestination(f"only {only} accepted")
    if not parts.hostname:
        raise BadDestination("the URL has no host")
    if parts.username is not None or parts.password is not None:
        # Credentials in a URL would be sent to whoever answers, and show in the
        # lists an app reads back (a webhook's receiver checks the signature instead).
        raise BadDestination("the URL may not carry a user name or password")
    if port == 0:
        raise BadDestination("the URL's port is 0")
    host, literal = read_host(parts)
    return Target(
        url=url,
        scheme=parts.scheme,
        host=host,
        port=port or DEFAULT_PORTS[parts.scheme],
        path=request_target(parts),
        literal=literal,
    )


def read_host(parts: SplitResult) -> tuple[str, IPAddress | None]:
    """The host as connected to and named in the Host header and TLS, and the address
    it is if it is one."""
    raw = parts.hostname or ""
    if "[" in parts.netloc:  # an IPv6 literal (urlsplit checked the brackets' content)
        if "%" in raw:
            raise BadDestination("the URL names a network interface (an IPv6 zone)")
        try:
            v6 = ipaddress.IPv6Address(raw)
        except ValueError:
            raise BadDestination(f"the host {raw!r} is not an IPv6 address") from None
        return str(v6), v6
    try:
        host = raw.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise BadDestination(f"the host {raw!r} is not a valid name") from None
    if len(host) > MAX_HOST or not NAME.fullmatch(host):
        raise BadDestination(f"the host {raw!r} is not a valid name")
    number = ipv4_number(host)
    if number is not None:
        return str(number), number
    return host.removesuffix("."), None


def request_target(parts: SplitResult) -> str:
    """Path and query as sent: ASCII, what is not already percent-encoded encoded."""
    safe = "/%:@!$&'()*+,;=-._~"
    path = quote(parts.path or "/", safe=safe)
    return path + ("?" + quote(parts.query, safe=safe + "?") if parts.query else "")


class Destinations:
    """The check of a URL before any outgoing call: parsed under the operator's policy,
    its host resolved and every address judged."""

    def __init__(self, resolver: Resolver, policy: OutboundPolicy | None = None) -> None:
        self.resolver = resolver
        self.policy = policy or OutboundPolicy()

    def parse(self, url: str) -> Target:
        return parse(url, self.policy)

    def judge(self, address: IPAddress) -> str | None:
        """Why ``address`` may not be reached under this policy, or None."""
        return None if self.policy.permits(address) else refusal(address)

    async def check(self, url: str, timeout: float = RESOLVE_TIMEOUT) -> Destination:
        """The URL with the addresses a call may connect to, resolved now (within
        ``timeout`` seconds); a ``DestinationError`` if it may not be called."""
        target = self.parse(url)
        if target.literal is not None:
            why = self.judge(target.literal)
            if why is not None:
                written = urlsplit(url).hostname or target.host
                name = target.host if written == target.host else f"{written} ({target.host})"
                raise ForbiddenDestination(f"{name} is {why}")
            return Destination(target, (target.literal,))
        try:
            async with asyncio.timeout(timeout):
                found = tuple(dict.fromkeys(await self.resolver.resolve(target.host, target.port)))
        except (OSError, TimeoutError):
            found = ()
        if not found:
            raise UnresolvedDestination(f"the host {target.host} does not resolve")
        for address in found:
            why = self.judge(address)
            if why is not None:
                # The address itself is not shown: the app learns that its name points
                # inside, not what the operator's network holds.
                raise ForbiddenDestination(f"the host {target.host} resolves to {why}")
        return Destination(target, found)


__all__: Sequence[str] = [
    "BadDestination",
    "Destination",
    "DestinationError",
    "Destinations",
    "ForbiddenDestination",
    "IPAddress",
    "IPNetwork",
    "OutboundPolicy",
    "Resolver",
    "Target",
    "UnresolvedDestination",
    "carried_ipv4",
    "ipv4_number",
    "parse",
    "parse_networks",
    "refusal",
]
