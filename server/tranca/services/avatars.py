"""Avatars players upload (UploadAvatar): the picture is decoded, turned upright,
cropped to its centre square, made small and encoded anew, so what is kept and
shown is a 128 x 128 WebP of a few kilobytes, never the file as sent: no camera
metadata (a phone's photo carries where it was taken), nothing but pixels. It is
kept in the database by the digest of its bytes and served by the browser port at
``/avatars/<digest>.webp`` (``AVATAR_PATH``), which becomes the profile's
``avatar_url``; a player's earlier upload is dropped with it. The app's key reads
none of this: it is the player's own session that uploads.

What is taken: PNG, JPEG, WebP or GIF (its first frame), at most ``MAX_UPLOAD``
bytes (200 KB) and ``MAX_PIXELS`` pixels (4 million, read from the header before any
pixel is decoded: a small file that claims a huge picture is refused, not
expanded), AVATAR_INVALID otherwise. Decoding runs on a worker thread, off the
event loop, ``DECODES_AT_ONCE`` at a time in a process.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from PIL import Image, ImageOps, UnidentifiedImageError

from ..reasons import Reason
from .access import Access, Credentials
from .errors import Refusal, Refused
from .profiles import Profile, ProfileRepository
from .sessions import require_session

# Under the server's message limit (``--max-message-bytes``, 256 KB by default): a
# client makes a photo small on the device first (the web table draws it at 512
# pixels), as an upload of megabytes through every call's limit would not pass.
MAX_UPLOAD = 200 * 1024
# A picture is sent small (above): a bound on what one decode may cost, in memory
# and time, whatever the file's size (a PNG of one colour is tiny at any size).
MAX_PIXELS = 4_000_000  # 2000 x 2000
# Decodes at once in a process: each holds a picture's pixels for a moment.
DECODES_AT_ONCE = 2
SIDE = 128
FORMATS = frozenset({"PNG", "JPEG", "WEBP", "GIF"})
AVATAR_PATH = "/avatars/{digest}.webp"
DIGEST = re.compile(r"[0-9a-f]{64}")


def invalid(message: str) -> Refused:
    return Refused(Refusal.MALFORMED, Reason.AVATAR_INVALID, message)


def small_avatar(data: bytes) -> bytes:
    """``data`` as the avatar kept: upright, the centre square, ``SIDE`` pixels a
    side, WebP; ``Refused`` (AVATAR_INVALID) for anything else."""
    if not data:
        raise invalid("the image is empty")
    if len(data) > MAX_UPLOAD:
        raise invalid(f"the image is over {MAX_UPLOAD // 1024} KB")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=sorted(FORMATS)) as source:
                width, height = source.size
                if width * height > MAX_PIXELS:
                    raise invalid(f"the image is over {MAX_PIXELS // 1_000_000} megapixels")
                source.seek(0)
                # A JPEG is decoded at the smallest scale still above the side kept.
                source.draft("RGB", (SIDE * 2, SIDE * 2))
                upright = ImageOps.exif_transpose(source)
                upright = upright.convert("RGBA" if "A" in upright.getbands() else "RGB")
                square = ImageOps.fit(upright, (SIDE, SIDE), Image.Resampling.LANCZOS)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        # Pillow's own guard, far above ours, caught first for pictures that claim
        # billions of pixels.
        raise invalid(f"the image is over {MAX_PIXELS // 1_000_000} megapixels") from None
    except (UnidentifiedImageError, OSError, ValueError) as e:
        raise invalid(f"not an image this server takes (PNG, JPEG, WebP, GIF): {e}") from None
    out = io.BytesIO()
    square.save(out, "WEBP", quality=82, method=4)
    return out.getvalue()


@dataclass(frozen=True)
class StoredAvatar:
    digest: str
    image: bytes


class AvatarRepository(Protocol):
    async def save_avatar(
        self, app_id: str, player_id: str, avatar: StoredAvatar, profile: Profile, now: int
    ) -> None:
        """Keep ``avatar`` as the player's only one and store ``profile`` (which
        names it), together."""
        ...

    async def avatar_image(self, digest: str) -> bytes | None:
        """The image kept under ``digest``, if any."""
        ...


class Avatars:
    def __init__(
        self,
        access: Access,
        avatars: AvatarRepository,
        profiles: ProfileRepository,
        now_ms: Callable[[], int],
    ) -> None:
        self.access = access
        self.avatars = avatars
        self.profiles = profiles
        self.now_ms = now_ms
        self._decodes: asyncio.Semaphore | None = None

    def _decoding(self) -> asyncio.Semaphore:
        # Made on first use, on the serving loop.
        if self._decodes is None:
            self._decodes = asyncio.Semaphore(DECODES_AT_ONCE)
        return self._decodes

    async def upload(self, credentials: Credentials, data: bytes) -> tuple[str, Profile]:
        """The session's player's new avatar: their id and profile with it."""
        session = require_session(await self.access.identify(credentials))
        async with self._decoding():
            image = await asyncio.to_thread(small_avatar, data)
        digest = hashlib.sha256(image).hexdigest()
        stored = await self.profiles.profile(session.app_id, session.player_id)
        # A name never set stays unset (the session's shows, as Profiles.own says).
        profile = replace(stored or Profile(), avatar_url=AVATAR_PATH.format(digest=digest))
        await self.avatars.save_avatar(
            session.app_id, session.player_id, StoredAvatar(digest, image), profile, self.now_ms()
        )
        shown = replace(profile, display_name=profile.display_name or session.display_name)
        return session.player_id, shown

    async def image(self, digest: str) -> bytes | None:
        """The avatar kept under ``digest`` (public: a profile's picture), if any."""
        if not DIGEST.fullmatch(digest):
            return None
        return await self.avatars.avatar_image(digest)


__all__ = [
    "AVATAR_PATH",
    "MAX_PIXELS",
    "MAX_UPLOAD",
    "SIDE",
    "AvatarRepository",
    "Avatars",
    "StoredAvatar",
    "small_avatar",
]
