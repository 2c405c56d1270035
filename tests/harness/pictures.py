"""PNG files made byte by byte, for the tests of uploaded avatars: a header may claim
any size, whatever the rows that follow (a decompression bomb's shape)."""

from __future__ import annotations

import struct
import zlib


def png(width: int, height: int, rows: bytes) -> bytes:
    """A PNG (8-bit RGB) whose header claims ``width`` x ``height`` pixels, with
    ``rows`` compressed as its data (enough for that size, or not)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body
