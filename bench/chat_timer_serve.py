"""``tranca`` with another timer for a chat room's watchers, for bench/chat_bench.py's
``--chat-poll-seconds``: ``python bench/chat_timer_serve.py serve ...`` runs the
server as ``tranca serve ...`` would, with ``Chat``'s ``poll_seconds`` (how often an
open WatchChat stream reads its room when nothing woke it; 1 s as shipped) set to
``CHAT_POLL_SECONDS``. An experiment, to tell what the timer costs: not a setting
of the server.
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    from tranca.services.chat import Chat

    defaults = Chat.__init__.__kwdefaults__
    assert defaults is not None and "poll_seconds" in defaults
    defaults["poll_seconds"] = float(os.environ["CHAT_POLL_SECONDS"])
    from tranca.cli import main as tranca_main

    return tranca_main(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
