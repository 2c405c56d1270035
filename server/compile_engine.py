"""The rules engine compiled with mypyc, for simulations and bots: a separate tree.

mypyc turns the engine's pure, fully typed modules (``MODULES``) into C extensions,
which run a random-bot playout about twice as fast and a greedy bot's decision
about 2.2 times (docs/PERFORMANCE.md, "The compiled engine"). The service gains
nothing measurable from them (the engine is under a tenth of a move's CPU; gRPC,
protobuf and the database are the rest), so the service, its container image and
``make test`` run the sources, and the extensions live apart: this script copies the
packages (``server/engine/tranca_rules``, the engine's distribution, and
``server/tranca``) into ``build/compiled/server`` and compiles the modules there, in
place. Whoever wants the engine fast puts that tree first on the path:

    python server/compile_engine.py              # build (again) into build/compiled/
    python server/compile_engine.py --if-needed  # the same, unless it is current
    python server/compile_engine.py --clean      # remove build/compiled/ (and any
                                                 # extension left beside the sources)
    PYTHONPATH=build/compiled/server .venv/bin/tranca simulate --preset tranca-000 ...

``make compiled`` runs the second; ``make simulate`` and ``make bench`` use the tree.
``tests/rules/test_compiled_engine.py`` builds it and checks that it plays every
preset exactly as the sources do.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

SOURCES = Path(__file__).resolve().parent
# Each copied package and where its sources are: the engine is a distribution of its
# own (server/engine), the game logic is the server's.
PACKAGES = {"tranca_rules": SOURCES / "engine" / "tranca_rules", "tranca": SOURCES / "tranca"}
# The tree the extensions are built in: a copy of the package, with them beside
# their copied sources (build/ is ignored by git).
TREE = SOURCES.parent / "build" / "compiled" / "server"
# Not tranca_rules/errors.py nor table/errors.py: the engine's exceptions stay interpreted.
# mypyc's compiled ``Exception`` subclasses never free their attributes (mypy issue
# 21716, fixed after the mypy the dev extras pin), and a long simulation raises one
# for every refused candidate; tests/rules/test_rejections_release_memory.py holds
# the engine to it.
MODULES = [
    "tranca_rules/cards.py",
    "tranca_rules/moves.py",
    "tranca_rules/presets.py",
    "tranca_rules/melds.py",
    "tranca_rules/state.py",
    "tranca_rules/triples.py",
    "tranca_rules/engine.py",
    "tranca_rules/scoring.py",
    "tranca_rules/match.py",
    "tranca_rules/views.py",
    "tranca_rules/bots.py",
    "tranca_rules/information.py",
    "tranca_rules/expert.py",
    "tranca_rules/levels.py",
    "tranca_rules/simulate.py",
    "tranca/table/game.py",
]
# The runtime shared by the compiled modules: a submodule of the package, so that it
# is found wherever the package is.
GROUP = "tranca.compiled"
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
# What the copy leaves out: the extensions themselves and the interpreter's caches.
SKIP = shutil.ignore_patterns(f"*{SUFFIX}", "__pycache__", "*.pyc")


def extension_of(module: str, tree: Path = TREE) -> Path:
    """Where the extension of ``module`` (a path like ``tranca_rules/cards.py``, or a
    dotted name) lands in ``tree``: beside its source."""
    return Path(f"{tree / module.removesuffix('.py').replace('.', '/')}{SUFFIX}")


def source_of(module: str) -> Path:
    """The source file of ``module`` (a path like ``tranca_rules/cards.py``)."""
    package, _, rest = module.partition("/")
    return PACKAGES[package] / rest


def extensions(tree: Path) -> list[Path]:
    """The extensions built in ``tree``."""
    found = [
        ext
        for name in PACKAGES
        if (tree / name).exists()
        for ext in (tree / name).rglob(f"*{SUFFIX}")
    ]
    return sorted(found)


def leftovers() -> list[Path]:
    """Extensions beside the sources themselves (an in-place build of an earlier
    version of this script): Python would import them instead of the sources."""
    return sorted(ext for source in PACKAGES.values() for ext in source.rglob(f"*{SUFFIX}"))


def needs_build() -> bool:
    """Whether the tree lacks an extension, or a compiled module's source is newer
    than the build (the modules are one group: their code is in the shared runtime)."""
    shared = extension_of(GROUP + "__mypyc")
    if not shared.exists() or any(not extension_of(m).exists() for m in MODULES):
        return True
    built_at = shared.stat().st_mtime
    return any(source_of(m).stat().st_mtime > built_at for m in MODULES)


def sync() -> None:
    """The tree's sources made the same as the packages' (the extensions kept): the
    modules that are not compiled run from the copy too, so it must be current."""
    for name, source in PACKAGES.items():
        target = TREE / name
        stale = sorted(target.rglob("*.py")) if target.exists() else []
        for path in stale:
            if not (source / path.relative_to(target)).exists():
                path.unlink()  # a module since removed from the sources
        shutil.copytree(source, target, ignore=SKIP, dirs_exist_ok=True)


def clean() -> None:
    shutil.rmtree(TREE, ignore_errors=True)
    for ext in leftovers():
        ext.unlink()


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import setup  # type: ignore[import-untyped]

    shutil.rmtree(TREE, ignore_errors=True)
    sync()
    # The generated C, the objects and mypy's cache go beside the tree.
    work = TREE.parent / "work"
    os.environ["MYPY_CACHE_DIR"] = str(work / "mypy_cache")
    os.chdir(TREE)
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
    if "--clean" in argv:
        clean()
    elif "--if-needed" in argv:
        if needs_build():
            build()
        else:
            sync()
    else:
        build()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
