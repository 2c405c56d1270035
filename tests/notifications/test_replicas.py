"""Two server processes on one PostgreSQL deliver the same outbox, and one is
SIGKILLed while it is delivering: every event is delivered all the same (at least
once, each with its delivery id), by the replica left, once the dead one's claims
run out (APP_GUIDE.md, "Notifications"; services/webhooks.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from tests.faults.rig import SERVING, free_port, health, wait_until
from tests.harness.databases import pg_database
from tests.server.conftest import move_first_legal
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import notifications_pb2 as npb

from .conftest import NotifyClient
from .receiver import HookReceiver

DEV_KEY = "dev-key-" + uuid.uuid4().hex


@pytest.fixture
def fresh_pg() -> Iterator[str]:
    yield from pg_database()


async def serving(port: int) -> bool:
    return await health(port) == SERVING


class Replica:
    """``tranca serve`` in a subprocess, delivering webhooks on a short clock."""

    def __init__(self, url: str) -> None:
        self.port = free_port()
        self.log = Path(tempfile.mkstemp(prefix="tranca-replica-", suffix=".log")[1])
        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "tranca.cli", "serve",
                "--port", str(self.port), "--metrics-port", "0",
                "--database-url", url, "--dev-api-key", DEV_KEY,
                "--rate-per-token", "0", "--rate-per-app", "0",
                "--sweep-interval", "0",
                "--webhook-interval", "0.05", "--webhook-timeout", "1",
                "--webhook-backoff", "0.1", "--webhook-attempts", "50",
                # The receiver is on loopback, over plain http.
                "--outbound-allow", "127.0.0.1/32", "--outbound-allow-http",
            ],
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("ab"),
        )  # fmt: skip

    def socket_ports(self) -> set[int]:
        """The local ports of the process's TCP sockets (its connections out)."""
        inodes = set()
        for fd in Path(f"/proc/{self.proc.pid}/fd").iterdir():
            with_target = os.readlink(fd) if fd.is_symlink() else ""
            if with_target.startswith("socket:["):
                inodes.add(with_target[8:-1])
        ports = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for line in Path(table).read_text().splitlines()[1:]:
                cols = line.split()
                if cols[9] in inodes:
                    ports.add(int(cols[1].rsplit(":", 1)[1], 16))
        return ports

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


async def test_a_replica_killed_while_delivering_loses_no_event(fresh_pg: str) -> None:
    receiver = HookReceiver(plan=lambda _id, _attempt: "hold")
    await receiver.start()
    a = Replica(fresh_pg)
    b: Replica | None = None
    try:
        await wait_until(lambda: serving(a.port), 30, "replica A serving")
        b = Replica(fresh_pg)  # after A registered the development app
        await wait_until(lambda: serving(b.port), 30, "replica B serving")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{b.port}") as channel:
            c = NotifyClient(channel, DEV_KEY, None)  # type: ignore[arg-type]
            hook = await c.notify.SetWebhook(
                npb.SetWebhookRequest(url=receiver.url), metadata=c.app()
            )
            receiver.secret = hook.signing_secret
            players = []
            for seed in range(3):
                ids = [f"p{seed}-{uuid.uuid4().hex[:6]}" for _ in range(2)]
                players += ids
                gid, tokens = await c.game_with_ids(ids, seed)
                for _ in range(8):
                    await move_first_legal(c, gid, tokens)
                await c.stub.LeaveGame(
                    gpb.LeaveGameRequest(game_id=gid), metadata=c.player(tokens[0])
                )

            # A is delivering: the receiver holds a request that came from it.
            def held_from_a() -> set[str]:
                ports = a.socket_ports()
                return {r.delivery_id for r in receiver.requests if r.peer_port in ports}

            await wait_until(held_from_a, 30, "a delivery in flight from replica A")
            in_flight = held_from_a()
            a.kill()
            receiver.plan = lambda _id, _attempt: "ok"
            receiver.released.set()

            events: list[npb.PlayerEvent] = []
            for player in players:
                page = await c.notify.ListPlayerEvents(
                    npb.ListPlayerEventsRequest(player_id=player, page_size=500),
                    metadata=c.app(),
                )
                events += page.events

            async def all_delivered() -> bool:
                page = await c.notify.ListWebhookDeliveries(
                    npb.ListWebhookDeliveriesRequest(page_size=500), metadata=c.app()
                )
                return len(page.deliveries) == len(events) and all(
                    d.status == npb.DELIVERY_STATUS_DELIVERED for d in page.deliveries
                )

            started = time.monotonic()
            await wait_until(all_delivered, 60, "every delivery delivered")
            final = await c.notify.ListWebhookDeliveries(
                npb.ListWebhookDeliveriesRequest(page_size=500), metadata=c.app()
            )
        assert sorted(d.event_id for d in final.deliveries) == sorted(e.id for e in events)
        # Every delivery id reached the receiver with a verified signature and was
        # acknowledged; those A held were sent again by B after A's claims ran out.
        assert receiver.acknowledged == {d.delivery_id for d in final.deliveries}
        assert all(r.verified for r in receiver.requests)
        assert in_flight <= receiver.acknowledged
        assert all(receiver.attempts[d] >= 2 for d in in_flight)
        assert time.monotonic() - started < 60
    finally:
        a.kill()
        if b is not None:
            b.stop()
        await receiver.stop()
