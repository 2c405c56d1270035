"""The compiled engine (server/compile_engine.py, for simulations and bots) plays
exactly as the sources do: the same moves, scores, final positions, views and
matches for every preset, player count and bot level, with the invariants held
after every move. The service and the rest of the suite run the sources; this is
the check that the build beside them may be trusted with a simulation."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPILE = ROOT / "server" / "compile_engine.py"
DIGEST = Path(__file__).with_name("compiled_digest.py")
TREE = ROOT / "build" / "compiled" / "server"


def _play(*pythonpath: Path) -> tuple[dict[str, Any], str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, pythonpath))}
    done = subprocess.run(
        [sys.executable, str(DIGEST)], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


@pytest.fixture(scope="module")
def compiled_tree() -> Path:
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        if os.environ.get("CI"):
            pytest.fail("no C compiler: the compiled engine cannot be built")
        pytest.skip("no C compiler here to build the compiled engine")
    built = subprocess.run(
        [sys.executable, str(COMPILE), "--if-needed"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    return TREE


def test_the_compiled_engine_plays_every_preset_as_the_sources_do(compiled_tree: Path) -> None:
    compiled, where = _play(compiled_tree)
    # The build was imported, not the sources beside it: else this compares nothing.
    for module in ("engine", "bots", "simulate", "views", "match"):
        line = next(x for x in where.splitlines() if x.startswith(f"tranca_rules.{module}:"))
        assert line.endswith(".so") and str(compiled_tree) in line, line
    interpreted, where = _play(ROOT / "server" / "engine", ROOT / "server")
    assert all(line.endswith(".py") for line in where.splitlines() if line), where
    assert compiled.keys() == interpreted.keys()
    for key, expected in interpreted.items():
        assert compiled[key] == expected, key
        for deal in expected["deals"].values():
            assert deal["invariant_failures"] == []
        assert expected["match"]["status"] == "finished", key
