"""No module over ``MAX_LINES`` lines: a module of one idea reads in one sitting.

Every ``.py`` file of the server, the Python SDK, the tests and the benchmarks is
held to it, except generated code (the contracts' modules, ``tranca/v1`` and
``tranca_client/v1``) and message catalogues (the refusals' texts in three
languages, which grow with each reason and hold no logic).

``PENDING_SPLIT`` names the modules being split right now. So that it cannot rot,
a name in it must still be a file over the limit: once a module is split (or
gone), its name leaves the set.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 800
# Where the rule holds, from the repository's root.
CHECKED = ("server", "clients/python/tranca_client", "tests", "bench")
# Generated from proto/ (make proto): any length.
GENERATED = ("server/tranca/v1", "clients/python/tranca_client/v1")
# Catalogues of messages: data, not logic.
CATALOGUES = frozenset({"server/tranca/api/localized.py"})
# Over the limit while being split into modules of one idea each.
PENDING_SPLIT: frozenset[str] = frozenset()


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _checked_modules() -> list[Path]:
    found: list[Path] = []
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = _name(path)
            if any(name.startswith(g + "/") for g in GENERATED) or name in CATALOGUES:
                continue
            if "__pycache__" in path.parts:
                continue
            found.append(path)
    return found


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_rule_sees_the_modules() -> None:
    names = {_name(p) for p in _checked_modules()}
    assert "server/tranca/server.py" in names
    assert "clients/python/tranca_client/client.py" in names
    assert "tests/test_module_lengths.py" in names
    assert not any(n.startswith(GENERATED) for n in names)


def test_no_module_is_over_the_limit() -> None:
    too_long = {
        _name(path): lines
        for path in _checked_modules()
        if (lines := _lines(path)) > MAX_LINES and _name(path) not in PENDING_SPLIT
    }
    assert not too_long, f"modules over {MAX_LINES} lines (split them): {too_long}"


def test_every_module_pending_its_split_is_still_over_the_limit() -> None:
    gone = sorted(name for name in PENDING_SPLIT if not (ROOT / name).is_file())
    assert not gone, f"gone: take them out of PENDING_SPLIT: {gone}"
    split = sorted(name for name in PENDING_SPLIT if _lines(ROOT / name) <= MAX_LINES)
    assert not split, f"split: take them out of PENDING_SPLIT: {split}"


def test_the_catalogues_are_files() -> None:
    assert all((ROOT / name).is_file() for name in CATALOGUES)
