"""Which credentials a call sends when a client holds both an API key and a token:
``APP`` the key first, ``PLAYER`` and ``ANY`` the token first (a seat's, or a
session's)."""

from __future__ import annotations

APP, PLAYER, ANY = "app", "player", "any"
