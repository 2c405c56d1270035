"""The server's log lines: structlog, as JSON lines or for a console, at a level."""

from __future__ import annotations

import logging
import sys
from typing import Any

import orjson
import structlog

# The levels `--log-level` takes. Each applied move is a debug line: the move log in the
# database already records every one, and a line per move cost a busy server about a
# twentieth of its throughput (docs/PERFORMANCE.md).
LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


def configure_logging(fmt: str, level: str = "info") -> None:
    renderer: structlog.types.Processor
    logger_factory: Any
    if fmt == "console":
        renderer = structlog.dev.ConsoleRenderer()
        logger_factory = structlog.PrintLoggerFactory(sys.stderr)
    else:
        # JSON lines rendered by orjson straight to bytes: at debug every move logs a
        # line, and the standard library's encoder cost as much as the move's rules.
        renderer = structlog.processors.JSONRenderer(serializer=orjson.dumps)
        logger_factory = structlog.BytesLoggerFactory(sys.stderr.buffer)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(LOG_LEVELS[level]),
        logger_factory=logger_factory,
        # A module's logger is bound once, not on every line (at debug, one per move);
        # this is configured once per process, by `tranca serve` and its workers.
        cache_logger_on_first_use=True,
    )
