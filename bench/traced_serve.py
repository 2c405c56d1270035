"""``tranca`` under tracemalloc, for bench/watch_memory.py: ``python bench/traced_serve.py
serve ...`` runs the server as ``tranca serve ...`` would, with tracemalloc tracing
``TRACE_FRAMES`` frames (default 12), and on SIGUSR1 writes to ``TRACE_DIR``
(default: the working directory), for the n-th signal:

- ``snapshot-n.pickle``: a tracemalloc snapshot (``tracemalloc.Snapshot.load``);
- ``objects-n.json``: the live objects the garbage collector tracks, counted by type;
- ``done-n``: written last, once both are complete.

Not for production: tracing costs memory and time. Memory *differences* between two
snapshots are what it is for.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import tracemalloc
from collections import Counter
from pathlib import Path
from types import FrameType


def _dump(_signum: int, _frame: FrameType | None) -> None:
    out = Path(os.environ.get("TRACE_DIR", "."))
    n = len(list(out.glob("done-*"))) + 1
    tracemalloc.take_snapshot().dump(str(out / f"snapshot-{n}.pickle"))
    counts = Counter(type(o).__qualname__ for o in gc.get_objects())
    (out / f"objects-{n}.json").write_text(json.dumps(dict(counts.most_common(400))))
    (out / f"done-{n}").write_text("")


def main() -> int:
    tracemalloc.start(int(os.environ.get("TRACE_FRAMES", "12")))
    signal.signal(signal.SIGUSR1, _dump)
    from tranca.cli import main as tranca_main

    return tranca_main(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
