"""server/compile_engine.py --copy-to: how the container image's build puts the compiled
engine into the installed package (deploy/docker/Dockerfile)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.script_module import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "server" / "compile_engine.py"


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The script pointed at a source tree of its own, with a current build of two
    extensions and the shared runtime (stand-in files: copying does not load them)."""
    module = load_script("compile_engine_under_test", SCRIPT)
    source = tmp_path / "server"
    for name in ("tranca/rules/cards", "tranca/app/game", "tranca/compiled__mypyc"):
        path = source / f"{name}{module.SUFFIX}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"extension {name}".encode())
    monkeypatch.setattr(module, "HERE", source)
    monkeypatch.setattr(module, "needs_build", lambda: False)
    return module


def _installed(site: Path) -> Path:
    for package in ("tranca/rules", "tranca/app"):
        (site / package).mkdir(parents=True)
        (site / package / "__init__.py").touch()
    return site


def test_every_extension_lands_beside_its_installed_source(
    built: ModuleType, tmp_path: Path
) -> None:
    site = _installed(tmp_path / "site-packages")
    copied = built.copy_to(site)
    suffix = built.SUFFIX
    names = ["tranca/app/game", "tranca/compiled__mypyc", "tranca/rules/cards"]
    assert sorted(p.relative_to(site).as_posix() for p in copied) == [
        f"{name}{suffix}" for name in names
    ]
    for path in copied:
        origin = built.HERE / path.relative_to(site)
        assert path.read_bytes() == origin.read_bytes()


def test_a_site_without_the_package_is_refused(built: ModuleType, tmp_path: Path) -> None:
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    with pytest.raises(SystemExit, match="is the package installed"):
        built.copy_to(empty)


def test_a_missing_or_stale_build_is_not_copied(
    built: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An image must not ship extensions older than the sources it also ships.
    site = _installed(tmp_path / "site-packages")
    monkeypatch.setattr(built, "needs_build", lambda: True)
    with pytest.raises(SystemExit, match="missing or stale"):
        built.copy_to(site)
    assert not list(site.rglob(f"*{built.SUFFIX}"))
