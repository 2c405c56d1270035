"""The chat's profanity filter (services/chat_filter.py, glin-profanity's lists) on the
text as the chat cleans it (platform/chat.py): words of the Portuguese, Spanish and
English lists masked, and the tricks around a filter (a zero-width space inside a
word, full-width letters, a Greek letter that looks Latin) caught; ordinary table
talk left alone."""

from __future__ import annotations

import pytest

from tranca.platform.chat import clean_text
from tranca.services.chat_filter import ProfanityFilter


@pytest.fixture(scope="module")
def screen() -> ProfanityFilter:
    return ProfanityFilter()


@pytest.mark.parametrize(
    "said",
    [
        "que merda de jogo",  # Portuguese
        "vaya mierda de mano",  # Spanish
        "what the fuck",  # English
        "que mer\u200bda de jogo",  # a zero-width space inside the word
        "que mer\u200dda\u2060 de jogo",  # a joiner and a word joiner
        "ｆｕｃｋ this",  # full-width letters
        "f\u03c5ck this",  # a Greek upsilon for the u
    ],
)
def test_a_listed_word_is_masked_however_it_is_written(screen: ProfanityFilter, said: str) -> None:
    shown, filtered = screen(clean_text(said))
    assert filtered and "***" in shown


@pytest.mark.parametrize(
    "said",
    ["Boa sorte!", "Vou bater", "¡Buena partida!", "well played, partner", "assistir ao jogo"],
)
def test_table_talk_is_left_as_it_was_said(screen: ProfanityFilter, said: str) -> None:
    assert screen(clean_text(said)) == (said, False)
