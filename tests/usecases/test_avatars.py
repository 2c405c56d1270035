"""Uploaded avatars (services/avatars.py): what is kept is a small square WebP made
anew from the picture's pixels (upright, its centre, no metadata), and what is not
a picture this server takes is refused before it is decoded."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.harness.pictures import png
from tranca.services.access import Credentials
from tranca.services.avatars import (
    AVATAR_PATH,
    MAX_UPLOAD,
    SIDE,
    AvatarRepository,
    Avatars,
    StoredAvatar,
    small_avatar,
)
from tranca.services.errors import Refused
from tranca.services.profiles import Profile

from .conftest import World
from .fakes import ProfilesMemory


def picture(width: int, height: int, fmt: str = "PNG", **save: object) -> bytes:
    """A picture whose left half is red and right half blue."""
    image = Image.new("RGB", (width, height), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, width // 2, height))
    out = io.BytesIO()
    image.save(out, fmt, **save)
    return out.getvalue()


def rgb(image: Image.Image, x: int, y: int) -> tuple[int, int, int]:
    pixel = image.convert("RGB").getpixel((x, y))
    assert isinstance(pixel, tuple)
    return pixel[0], pixel[1], pixel[2]


def refused_reason(data: bytes, saying: str = "") -> str:
    with pytest.raises(Refused) as caught:
        small_avatar(data)
    assert saying in caught.value.message
    return caught.value.reason


def test_a_picture_is_kept_as_a_small_square_webp_of_its_centre() -> None:
    kept = Image.open(io.BytesIO(small_avatar(picture(300, 200))))
    assert (kept.format, kept.size) == ("WEBP", (SIDE, SIDE))
    # The centre square of a red-then-blue picture is still red left, blue right.
    red, _, blue = rgb(kept, 8, SIDE // 2)
    assert red > 200 and blue < 60
    red, _, blue = rgb(kept, SIDE - 8, SIDE // 2)
    assert blue > 200 and red < 60


def test_a_photos_metadata_is_not_kept_and_its_orientation_is_applied() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: the camera was turned; the picture is shown turned
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x8825] = {2: (23.0, 32.0, 0.0)}  # GPS: where it was taken
    photo = picture(200, 100, "JPEG", exif=exif.tobytes())
    kept_bytes = small_avatar(photo)
    assert b"PhoneMaker" not in kept_bytes
    kept = Image.open(io.BytesIO(kept_bytes))
    assert not kept.getexif() and "exif" not in kept.info
    # Turned upright: red (the left half) is now on top.
    red, _, blue = rgb(kept, SIDE // 2, 8)
    assert red > 200 and blue < 60


def test_transparency_is_kept_and_a_gifs_first_frame_taken() -> None:
    clear = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    out = io.BytesIO()
    clear.save(out, "PNG")
    kept = Image.open(io.BytesIO(small_avatar(out.getvalue())))
    corner = kept.getpixel((5, 5))
    assert kept.mode == "RGBA" and isinstance(corner, tuple) and corner[3] == 0
    gif = Image.open(io.BytesIO(small_avatar(picture(40, 40, "GIF"))))
    assert gif.size == (SIDE, SIDE)


def png_claiming(width: int, height: int) -> bytes:
    """A well-formed PNG header that claims ``width`` x ``height`` pixels, with one
    tiny compressed row: decoding it would expand it beyond reason."""
    return png(width, height, b"\x00" * 64)


def test_what_is_not_a_picture_this_server_takes_is_refused() -> None:
    assert refused_reason(b"") == "AVATAR_INVALID"
    assert refused_reason(b"<svg xmlns='http://www.w3.org/2000/svg'/>") == "AVATAR_INVALID"
    assert refused_reason(b"GIF89a" + b"\x00" * 20) == "AVATAR_INVALID"
    assert refused_reason(picture(10, 10, "BMP")) == "AVATAR_INVALID"
    assert refused_reason(b"\x00" * (MAX_UPLOAD + 1), "over 200 KB") == "AVATAR_INVALID"
    # Small files that claim just over 4 million and 3.6 billion pixels are refused
    # from their headers, before a pixel is decoded.
    for width, height in ((2_001, 2_000), (60_000, 60_000)):
        bomb = png_claiming(width, height)
        assert len(bomb) < 200
        assert refused_reason(bomb, "over 4 megapixels") == "AVATAR_INVALID"


class AvatarsMemory:
    def __init__(self, profiles: ProfilesMemory) -> None:
        self.profiles = profiles
        self.images: dict[tuple[str, str], StoredAvatar] = {}

    async def save_avatar(
        self, app_id: str, player_id: str, avatar: StoredAvatar, profile: Profile, now: int
    ) -> None:
        self.images[(app_id, player_id)] = avatar
        self.profiles.profiles[(app_id, player_id)] = profile

    async def avatar_image(self, digest: str) -> bytes | None:
        return next((a.image for a in self.images.values() if a.digest == digest), None)


async def test_a_session_uploads_its_players_avatar_which_anyone_may_fetch(world: World) -> None:
    profiles = ProfilesMemory(world.repo.sessions)
    memory = AvatarsMemory(profiles)
    repository: AvatarRepository = memory
    avatars = Avatars(world.access, repository, profiles, lambda: world.repo.now)
    opened = await world.sessions.create(world.as_app(), "ana", "Ana")
    ana = Credentials(token=opened.access_token)
    player_id, shown = await avatars.upload(ana, picture(50, 50))
    digest = memory.images[(world.app.id, "ana")].digest
    assert (player_id, shown.avatar_url) == ("ana", AVATAR_PATH.format(digest=digest))
    # The name the player never set stays unset (the session's is shown).
    assert shown.display_name == "Ana"
    assert profiles.profiles[(world.app.id, "ana")].display_name == ""
    assert await avatars.image(digest) == memory.images[(world.app.id, "ana")].image
    assert await avatars.image("../../etc/passwd") is None
    with pytest.raises(Refused) as app_key:
        await avatars.upload(world.as_app(), picture(50, 50))
    assert app_key.value.reason == "SESSION_TOKEN_REQUIRED"
