"""Where outgoing calls may go (services/destinations.py): the addresses refused and
why, hosts written as numbers read as the system reads them, every address of a name
judged, and what a check hands the HTTP client."""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import pytest

from tranca.outbound import SystemResolver
from tranca.services.destinations import (
    BadDestination,
    Destinations,
    ForbiddenDestination,
    IPAddress,
    OutboundPolicy,
    UnresolvedDestination,
    ipv4_number,
    parse,
    refusal,
)

from .fakes import FakeResolver


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("::1", "loopback"),
        ("10.0.0.1", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.254", "private"),
        ("192.168.0.1", "private"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("fec0::1", "private address (site-local)"),
        ("64:ff9b:1::a00:1", "private address (local-use NAT64)"),
        ("169.254.169.254", "link-local"),
        ("169.254.0.1", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("ff02::1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "unspecified"),
        ("::", "unspecified"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("100.127.255.254", "carrier-grade NAT"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("192.0.2.1", "reserved"),  # documentation
        ("198.18.0.1", "reserved"),  # benchmarking
        ("2001:db8::1", "reserved"),
        ("2001::1", "reserved"),  # Teredo
        ("::10.0.0.1", "reserved"),  # IPv4-compatible, deprecated
        ("::ffff:10.0.0.1", "private address, carried in an IPv4-mapped IPv6 address"),
        ("::ffff:127.0.0.1", "loopback address, carried in an IPv4-mapped IPv6 address"),
        ("::ffff:169.254.169.254", "link-local address (where"),
        ("64:ff9b::a00:1", "private address, carried in a NAT64 address"),
        ("64:ff9b::a9fe:a9fe", "link-local address (where cloud metadata services answer)"),
        ("2002:a00:1::1", "private address, carried in a 6to4 address"),
        ("2002:7f00:1::", "loopback address, carried in a 6to4 address"),
    ],
)
def test_addresses_inside_are_refused_with_their_kind(address: str, kind: str) -> None:
    why = refusal(ipaddress.ip_address(address))
    assert why is not None and kind in why, why


@pytest.mark.parametrize(
    "address",
    [
        "93.184.216.34",
        "8.8.8.8",
        "1.1.1.1",
        "100.128.0.1",  # just past carrier-grade NAT
        "172.32.0.1",  # just past 172.16/12
        "2606:4700::1111",
        "::ffff:8.8.8.8",  # IPv4-mapped: the public address it is
        "64:ff9b::808:808",  # NAT64 of a public address
        "2002:808:808::1",  # 6to4 of a public address
    ],
)
def test_public_addresses_pass(address: str) -> None:
    assert refusal(ipaddress.ip_address(address)) is None


# Hosts written as numbers, in the forms the C library's inet_aton reads (and
# browsers, by the WHATWG URL standard): each is an address, not a name.
NUMERIC_HOSTS = [
    "2130706433",
    "0x7f000001",
    "017700000001",
    "0x7f.1",
    "0X7F.1",
    "0177.0.0.1",
    "127.1",
    "127.0.1",
    "127.0.0.01",
    "0x7f.0.0.0x1",
    "00000000000000177.0.0.1",
    "1.0x10000",
    "10.1",
    "3232235777",  # 192.168.1.1
    "0xa9.0xfe.0xa9.0xfe",  # 169.254.169.254
    "134744072",  # 8.8.8.8
]


@pytest.mark.parametrize("host", NUMERIC_HOSTS)
async def test_numeric_hosts_are_read_as_the_system_resolver_reads_them(host: str) -> None:
    ours = ipv4_number(host)
    system = socket.getaddrinfo(host, 443, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
    assert ours == ipaddress.ip_address(system[0][4][0])
    # The production resolver, had the host gone to it, would say the same.
    assert await SystemResolver().resolve(host, 443) == [ours]
    assert parse(f"https://{host}/", OutboundPolicy()).literal == ours


@pytest.mark.parametrize("host", ["08.0.0.1", "1.2.3.4.5", "4294967296", "256.1.1.1", "1.2.0x"])
def test_hosts_like_numbers_that_are_no_address_are_no_url(host: str) -> None:
    """The system's resolver reads none of them as an address either (and would send
    them to DNS as names, which they are not)."""
    with pytest.raises(socket.gaierror):
        socket.getaddrinfo(host, 443, flags=socket.AI_NUMERICHOST)
    with pytest.raises(BadDestination, match="is not an IPv4 address"):
        parse(f"https://{host}/", OutboundPolicy())


def test_a_name_is_no_number() -> None:
    for host in ("example.com", "0x7f.example", "a1", "xn--bcher-kva.example"):
        assert ipv4_number(host) is None, host


def test_what_a_check_hands_the_client() -> None:
    target = parse("https://Hooks.Example.COM./a b/ç?x=1&y=ü#frag", OutboundPolicy())
    assert (target.scheme, target.host, target.port) == ("https", "hooks.example.com", 443)
    assert target.path == "/a%20b/%C3%A7?x=1&y=%C3%BC"
    assert target.host_header == "hooks.example.com"
    assert parse("https://bücher.example:8443", OutboundPolicy()).host_header == (
        "xn--bcher-kva.example:8443"
    )
    v6 = parse("https://[2606:4700:0::1111]:8443/h", OutboundPolicy())
    assert (v6.host, v6.host_header) == ("2606:4700::1111", "[2606:4700::1111]:8443")
    assert parse("http://93.184.216.34/", OutboundPolicy(allow_http=True)).port == 80


class Hanging:
    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        await asyncio.sleep(60)
        return []


class Failing:
    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        raise OSError("the resolver is down")


async def test_a_name_without_addresses_does_not_resolve() -> None:
    for resolver in (FakeResolver({"empty.example": []}), FakeResolver(), Failing()):
        with pytest.raises(UnresolvedDestination, match=r"empty\.example does not resolve"):
            await Destinations(resolver).check("https://empty.example/")
    started = asyncio.get_running_loop().time()
    with pytest.raises(UnresolvedDestination):
        await Destinations(Hanging()).check("https://empty.example/", timeout=0.1)
    assert asyncio.get_running_loop().time() - started < 5


async def test_every_address_of_a_name_must_pass() -> None:
    resolver = FakeResolver({"many.example": ["93.184.216.34", "2606:4700::1111"]})
    where = Destinations(resolver)
    found = await where.check("https://many.example:8443/hook")
    assert [str(a) for a in found.addresses] == ["93.184.216.34", "2606:4700::1111"]
    assert (found.target.host, found.target.port) == ("many.example", 8443)
    # One private address among public ones (in any position) refuses the name.
    for order in (["10.9.9.9", "93.184.216.34"], ["93.184.216.34", "::1"]):
        resolver.names["many.example"] = order
        with pytest.raises(ForbiddenDestination):
            await where.check("https://many.example:8443/hook")
