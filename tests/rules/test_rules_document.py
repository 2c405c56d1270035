"""docs/RULES.md cites the rule documents where they are: it says once where they
are kept (outside the repository), names each by its file there, and quotes every
passage it cites verbatim from the document it names; so does the table of the
Brazilian presets' suite (tests/rules/brazilian_presets_table.py).

When CI is set the documents must be there; elsewhere a checkout without them skips.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.rules.brazilian_presets_table import quoted_passages

ROOT = Path(__file__).resolve().parents[2]
RULES_MD = (ROOT / "docs" / "RULES.md").read_text()


def _documents() -> dict[str, Path]:
    """The documents the table of §1 names, by short name, where the text says they are."""
    where = re.findall(r"in\s+`(\.\./[^`]*rules/)`\s+from\s+the\s+repository's\s+root", RULES_MD)
    assert len(where) == 1, "RULES.md must say once where the documents are kept"
    folder = (ROOT / where[0]).resolve()
    assert ROOT not in folder.parents, "the documents are kept outside the repository"
    files = dict(re.findall(r"^\| (\d{3}) \| `(\d{3}_[0-9a-f]{16}\.txt)` \|", RULES_MD, re.M))
    assert sorted(files) == ["000", "001", "002", "003", "004"]
    for short, name in files.items():
        assert name.startswith(short + "_")
    if not folder.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"the rule documents are not in {folder}")
        pytest.skip(f"the rule documents are not in {folder}")
    return {short: folder / name for short, name in files.items()}


def test_every_document_is_where_the_reference_says() -> None:
    for short, path in _documents().items():
        assert path.is_file(), f"{short}: no {path}"


def test_no_other_path_is_given_for_the_documents() -> None:
    # Each document is named by its file name alone, under the one location given.
    assert re.findall(r"(?<!\.\./)shared/rules", RULES_MD) == []


def test_every_quoted_passage_is_in_the_document_it_names() -> None:
    texts = {short: path.read_text() for short, path in _documents().items()}
    quotes = re.findall(r"\b(00[0-4]) \(?«([^»]+)»", RULES_MD)
    assert len(quotes) > 300  # the reference is made of them
    missing = [(short, q) for short, q in quotes if q not in texts[short]]
    assert missing == []


def test_every_passage_the_brazilian_presets_table_quotes_is_in_the_document_it_names() -> None:
    texts = {short: path.read_text() for short, path in _documents().items()}
    quotes = quoted_passages()
    assert len(quotes) > 150  # the table is made of them
    missing = [(short, q) for short, q in quotes if q not in texts[short]]
    assert missing == []
