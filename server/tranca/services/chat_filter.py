"""The chat's profanity filter (``services/chat.py``'s ``Screen``): words of the
Portuguese, Spanish and English lists masked with "***".

The lists and the matching are glin-profanity's (MIT; 24 languages' lists kept up
to date by its authors, with leetspeak and Unicode look-alike letters folded, so
"ｆｕｃｋ" and "fυck" are caught): the maintained list the issue asks for, rather than
one of our own that nobody would keep. The text reaches it already cleaned by
``platform/chat.py`` (NFC, zero-width and other format characters removed), so a
word split by an invisible character is whole again when it is screened.

A filter is built once a process (its lists are read then) and is pure after: no
I/O per message, about a third of a millisecond for a message of a few words.
"""

from __future__ import annotations

from typing import Any

from glin_profanity import Filter

LANGUAGES = ("portuguese", "spanish", "english")
MASK = "***"


class ProfanityFilter:
    """``Screen``: the text as shown, and whether words in it were masked."""

    def __init__(self, languages: tuple[str, ...] = LANGUAGES) -> None:
        config: Any = {
            "languages": list(languages),
            "replace_with": MASK,
            "word_boundaries": True,
            "allow_obfuscated_match": True,
        }
        self._filter = Filter(config)

    def __call__(self, text: str) -> tuple[str, bool]:
        found = self._filter.check_profanity(text)
        if not found["contains_profanity"]:
            return text, False
        return str(found.get("processed_text") or MASK), True


__all__ = ["LANGUAGES", "MASK", "ProfanityFilter"]
