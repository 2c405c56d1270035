"""Compile the rules engine and the game it drives with mypyc, in place.

The modules named in ``MODULES`` are pure, fully typed Python (mypy strict); mypyc
turns each into a C extension that sits beside its source, and Python imports the
extension first. They are the code a move runs through on every request: decoding
the snapshot, validating and applying the move, listing the legal moves, encoding
the snapshot again. The sources stay the reference: delete the extensions
(``python server/compile_engine.py --clean``) and the same code runs interpreted.

    python server/compile_engine.py            # build the extensions in place
    python server/compile_engine.py --clean    # remove them
    python server/compile_engine.py --stale    # list extensions older than their source
    python server/compile_engine.py --if-needed  # build unless the build is current
    python server/compile_engine.py --copy-to SITE  # copy the built ones into an install

``make venv`` runs it whenever one of the sources changed (``PURE_PYTHON=1`` skips
it); tests/conftest.py refuses to run against an extension older than its source.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Not rules/errors.py nor app/errors.py: the engine's exceptions stay interpreted.
# mypyc's compiled ``Exception`` subclasses never free their attributes (mypy issue
# 21716, fixed after the mypy the dev extras pin), and a server builds one for every
# refused move; tests/rules/test_rejections_release_memory.py holds the engine to it.
MODULES = [
    "tranca/rules/cards.py",
    "tranca/rules/moves.py",
    "tranca/rules/presets.py",
    "tranca/rules/melds.py",
    "tranca/rules/state.py",
    "tranca/rules/engine.py",
    "tranca/rules/scoring.py",
    "tranca/rules/match.py",
    "tranca/rules/views.py",
    "tranca/app/game.py",
]
# The runtime shared by the compiled modules: a submodule of the package, so that it
# is found wherever the package is (an editable install does not put server/ on
# sys.path, and a top-level module would need it there).
GROUP = "tranca.compiled"
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def extension_of(module: str) -> Path:
    """Where the extension of ``module`` (a path like ``tranca/rules/cards.py``, or a
    dotted name) lands: beside its source."""
    return Path(f"{HERE / module.removesuffix('.py').replace('.', '/')}{SUFFIX}")


SHARED = extension_of(GROUP + "__mypyc")


def extensions() -> list[Path]:
    """Every extension module in the package: the package has no others, so this is
    also what an earlier build with a different list of modules left."""
    return sorted((HERE / "tranca").rglob(f"*{SUFFIX}"))


def stale() -> list[Path]:
    """Extensions that Python would import instead of the current source: all of them
    once any compiled module's source is newer than the build (the modules are one
    group, their code is in the shared runtime), and any the list no longer names."""
    built = extensions()
    wanted = {extension_of(m) for m in MODULES} | {SHARED}
    unwanted = [ext for ext in built if ext not in wanted]
    if not SHARED.exists():
        return built
    built_at = SHARED.stat().st_mtime
    if any((HERE / m).stat().st_mtime > built_at for m in MODULES):
        return built
    return unwanted


def needs_build() -> bool:
    """Whether a module of the list has no extension or any extension is stale."""
    return any(not extension_of(m).exists() for m in MODULES) or bool(stale())


def clean() -> None:
    for ext in extensions():
        ext.unlink()


def copy_to(site: Path) -> list[Path]:
    """Copy the built extensions beside the sources of the package installed in
    ``site`` (its site-packages), for an install made by ``pip install .``: the wheel
    carries no binaries, so that it stays platform-free (the container image's build
    does this). Refuses an incomplete or stale build, and a site without the package."""
    if needs_build():
        raise SystemExit("the extensions are missing or stale: build them first")
    copied = []
    for ext in extensions():
        dest = site / ext.relative_to(HERE)
        if not dest.parent.is_dir():
            raise SystemExit(f"{dest.parent} does not exist: is the package installed in {site}?")
        shutil.copy2(ext, dest)
        copied.append(dest)
    return copied


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import setup  # type: ignore[import-untyped]

    clean()
    # The generated C, the objects and mypy's cache go under the repository's build/
    # (ignored by git); only the extensions land beside their sources.
    work = HERE.parent / "build" / "mypyc"
    os.environ["MYPY_CACHE_DIR"] = str(work / "mypy_cache")
    setup(
        name="tranca-compiled",
        ext_modules=mypycify(
            MODULES,
            group_name=GROUP,
            opt_level="3",
            target_dir=str(work / "c"),
        ),
        script_args=[
            "build_ext",
            "--inplace",
            "--build-temp",
            str(work / "obj"),
            "--build-lib",
            str(work / "lib"),
        ],
    )


def main(argv: list[str]) -> int:
    os.chdir(HERE)
    if "--clean" in argv:
        clean()
    elif "--stale" in argv:
        for ext in stale():
            print(ext)
    elif "--copy-to" in argv:
        at = argv.index("--copy-to") + 1
        if at >= len(argv):
            raise SystemExit("--copy-to needs the site-packages directory")
        for dest in copy_to(Path(argv[at]).resolve()):
            print(dest)
    elif "--if-needed" in argv:
        if needs_build():
            build()
    else:
        build()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
