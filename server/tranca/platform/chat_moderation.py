"""Chat's moderation (pure: no I/O): what an administrator's answer to a report does
to the reported player, and the sanction a player's chat is under.

A report names a message a player read; an administrator resolves it once:
- **dismiss**: nothing happens to the author;
- **warn**: the author is told (an event), nothing more;
- **mute**: the author writes no message anywhere in the app for a time (at most
  ``MAX_MUTE_SECONDS``);
- **ban**: the author writes no message at all, until an end if one is given.
A newer sanction replaces the one before (an administrator lifting a ban early
resolves with a mute of one second, or a new report's dismissal does not lift it:
sanctions are changed by resolutions only).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

MAX_MUTE_SECONDS = 30 * 24 * 3600
MAX_BAN_SECONDS = 10 * 365 * 24 * 3600
MAX_REPORT_REASON = 500
MAX_NOTE = 500
# The messages kept with a report: this many before the one reported and after it.
EVIDENCE_AROUND = 10


class Resolution(StrEnum):
    DISMISS = "dismiss"
    WARN = "warn"
    MUTE = "mute"
    BAN = "ban"


class ReportStatus(StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"


@dataclass(frozen=True)
class Sanction:
    """A player's chat under a sanction: "mute" or "ban", until ``until_ms`` (epoch
    ms; 0: no end, a ban only), for ``reason``."""

    kind: Resolution
    until_ms: int
    reason: str

    def active(self, now: int) -> bool:
        return self.until_ms == 0 or now < self.until_ms


class ModerationRefused(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def sanction_for(resolution: Resolution, seconds: int, note: str, now: int) -> Sanction | None:
    """The sanction a resolution puts the author under (None: dismiss, warn), or
    ``ModerationRefused`` for a length out of its range."""
    if resolution in (Resolution.DISMISS, Resolution.WARN):
        if seconds:
            raise ModerationRefused("seconds goes with a mute or a ban only")
        return None
    if resolution == Resolution.MUTE:
        if not 1 <= seconds <= MAX_MUTE_SECONDS:
            raise ModerationRefused(f"a mute lasts 1 to {MAX_MUTE_SECONDS} seconds")
        return Sanction(Resolution.MUTE, now + seconds * 1000, note)
    if not 0 <= seconds <= MAX_BAN_SECONDS:
        raise ModerationRefused(f"a ban lasts 0 (no end) to {MAX_BAN_SECONDS} seconds")
    return Sanction(Resolution.BAN, now + seconds * 1000 if seconds else 0, note)


__all__ = [
    "EVIDENCE_AROUND",
    "MAX_BAN_SECONDS",
    "MAX_MUTE_SECONDS",
    "MAX_NOTE",
    "MAX_REPORT_REASON",
    "ModerationRefused",
    "ReportStatus",
    "Resolution",
    "Sanction",
    "sanction_for",
]
