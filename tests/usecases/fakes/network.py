"""The outgoing calls' resolver as a test says."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass, field

from tranca.services.destinations import IPAddress


@dataclass
class FakeResolver:
    """The ``Resolver`` of services/destinations.py as a test says: each name's
    addresses now (a test changes them between a webhook's registration and its
    delivery); a name it does not hold does not resolve. Every name asked is kept."""

    names: dict[str, list[str]] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        self.asked.append(host)
        if host not in self.names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [ipaddress.ip_address(a) for a in self.names[host]]
