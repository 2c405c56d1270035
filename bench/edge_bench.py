"""The cost of the edge's check of a request (server/tranca/api/edge.py), beside the
bare protobuf decoding of the same bytes in the same run.

Writes ``OUT/edge.json`` and ``.md`` with the machine's description.

    python bench/edge_bench.py --out bench/results [--calls 200000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from google.protobuf.message import Message

from tranca.api.edge import Rejected, decoder
from tranca.v1 import game_pb2 as pb

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
else:  # run as a script: bench/ is on sys.path
    from engine_bench import machine

REQUEST_ID = "0f8e7d6c5b4a39281706f5e4d3c2b1a0"
CASES = {
    "SubmitMove, a three-card meld": pb.SubmitMoveRequest(
        game_id="a" * 32,
        expected_version=57,
        request_id=REQUEST_ID,
        move=pb.Move(create_meld=pb.CreateMeldMove(cards=["4H", "5H", "6H"])),
        include_legal_moves=True,
    ),
    "SubmitMove, a draw": pb.SubmitMoveRequest(
        game_id="a" * 32,
        expected_version=57,
        request_id=REQUEST_ID,
        move=pb.Move(draw=pb.DrawMove()),
    ),
    "GetView": pb.GetViewRequest(game_id="a" * 32),
}


def _best_us(fn: Callable[[], object], calls: int, repeat: int) -> float:
    return min(timeit.repeat(fn, number=calls, repeat=repeat)) / calls * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows = []
    for name, request in CASES.items():
        raw = request.SerializeToString()
        decode = decoder(type(request))
        assert not isinstance(decode(raw), Rejected)

        def from_string(raw: bytes = raw, r: Message = request) -> Message:
            return type(r).FromString(raw)

        def edge(raw: bytes = raw, d: Callable[[bytes], object] = decode) -> object:
            return d(raw)

        plain = _best_us(from_string, args.calls, args.repeat)
        checked = _best_us(edge, args.calls, args.repeat)
        rows.append(
            {
                "request": name,
                "from_string_us": round(plain, 2),
                "edge_us": round(checked, 2),
                "check_us": round(checked - plain, 2),
                "ratio": round(checked / plain, 1),
            }
        )
    report = {"machine": machine(), "calls": args.calls, "repeat": args.repeat, "rows": rows}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "edge.json").write_text(json.dumps(report, indent=2) + "\n")
    m = report["machine"]
    lines = [
        "# The edge's check of a request",
        "",
        f"Best of {args.repeat} rounds of {args.calls:,} calls on one core. Machine: "
        f"{m['cpu']}, {m['cores']} cores, Python {m['python']}; commit {m['commit']}; "
        f"{m['date']}.",
        "",
        "| request | FromString µs | decoded and checked µs | the check µs | ratio |",
        "|---|---|---|---|---|",
        *(
            f"| {r['request']} | {r['from_string_us']} | {r['edge_us']} | {r['check_us']} "
            f"| {r['ratio']} |"
            for r in rows
        ),
    ]
    (out / "edge.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
