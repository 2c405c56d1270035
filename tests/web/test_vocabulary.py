"""One vocabulary per language across the web table's words (clients/web/table/src/
i18n/) and the service's refusals (server/tranca/api/localized.py): a player reads
"pozo" on the table and in a refusal alike, never "montón de descartes" in one of them."""

from __future__ import annotations

import re

import pytest

from tests.web.conftest import WEB_DIR
from tranca.api.localized import MESSAGES

I18N = WEB_DIR / "table" / "src" / "i18n"
COLUMN = {"en": 0, "pt-BR": 1, "es": 2}  # MESSAGES' columns
# Each language's word for the stock, the discard pile and the reserve hand, and the
# synonyms neither the table nor a refusal may use instead.
GLOSSARY = {
    "pt-BR": {"monte": [], "lixo": ["pilha", "descartes"], "morto": []},
    "es": {"mazo": ["baraja"], "pozo": ["montón", "descartes"], "muerto": []},
    "en": {"stock": ["deck"], "discard pile": ["discards"], "morto": []},
}


def page_words(lang: str) -> str:
    text = (I18N / f"{lang}.ts").read_text(encoding="utf-8")
    return " ".join(re.findall(r"^  \w+: '(.*)',$", text, re.M)).lower()


def refusal_words(lang: str) -> str:
    return " ".join(m[COLUMN[lang]] for m in MESSAGES.values()).lower()


@pytest.mark.parametrize("lang", sorted(GLOSSARY))
def test_the_table_and_the_refusals_speak_one_vocabulary(lang: str) -> None:
    page, refusals = page_words(lang), refusal_words(lang)
    assert page and refusals
    for word, synonyms in GLOSSARY[lang].items():
        assert word in page, f"the table's {lang} words never say {word!r}"
        for synonym in synonyms:
            assert synonym not in page, f"the table's {lang} words say {synonym!r}, not {word!r}"
            assert synonym not in refusals, f"a {lang} refusal says {synonym!r}, not {word!r}"
    # The discard pile comes up in refusals: in the table's word.
    pile = list(GLOSSARY[lang])[1]
    assert pile in refusals
