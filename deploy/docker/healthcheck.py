"""The container's health check: asks the server's own gRPC health service.

    python healthcheck.py [ADDRESS] [--service NAME]

ADDRESS defaults to the server's port (TRANCA_PORT, 50051) on loopback, or on
TRANCA_HOST when that is a specific address. Exit status 0 when the answer is
SERVING, 1 otherwise (NOT_SERVING while the database cannot be reached or during
shutdown, or no answer within two seconds).
"""

from __future__ import annotations

import argparse
import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ANY_ADDRESS = {"", "0.0.0.0", "::", "[::]"}


def default_address() -> str:
    host = os.environ.get("TRANCA_HOST", "127.0.0.1")
    if host in ANY_ADDRESS:
        host = "127.0.0.1"
    return f"{host}:{os.environ.get('TRANCA_PORT', '50051')}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Check a Tranca server's gRPC health.")
    p.add_argument("address", nargs="?", default=default_address())
    p.add_argument("--service", default="", help='service name ("" is the whole server)')
    p.add_argument("--timeout", type=float, default=2.0)
    args = p.parse_args(argv)
    with grpc.insecure_channel(args.address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout
            )
        except grpc.RpcError as exc:
            print(f"{args.address}: {exc.code().name}", file=sys.stderr)
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(f"{args.address}: {status}")
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1


if __name__ == "__main__":
    raise SystemExit(main())
