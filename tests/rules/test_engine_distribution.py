"""The rules engine is a distribution of its own (server/engine, ``tranca-rules``):
built into a wheel and installed alone into a fresh virtual environment (no pip, no
other package, no index, the interpreter isolated from this checkout), it plays a
deal to its end, move for move and point for point as the engine here does. Bot
labs and other servers use it so; the server and the SDK's ``expert`` extra depend
on it by name."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "server" / "engine"

# A deal of the preset tranca-000 at four seats, each seat playing its first legal
# move, to the end; what it prints: the moves played, each side's total, and where
# the engine was imported from.
PLAY = """
import json, sys
import tranca_rules
from tranca_rules import apply, legal_moves, make_rules, move_text, new_deal, score_deal

deal = new_deal(make_rules("tranca-000"), 4, seed=3)
played = []
while not deal.is_over:
    move = legal_moves(deal)[0]
    played.append(move_text(move))
    apply(deal, deal.turn, move)
totals = [side.total for side in score_deal(deal)]
json.dump({"moves": played, "totals": totals, "engine": tranca_rules.__file__}, sys.stdout)
"""


def _played_here() -> dict[str, object]:
    """The same deal played by the engine this checkout runs."""
    out = subprocess.run(
        [sys.executable, "-c", PLAY], capture_output=True, text=True, check=True, timeout=120
    )
    played: dict[str, object] = json.loads(out.stdout)
    return played


def test_the_engine_installs_alone_and_plays_a_deal(tmp_path: Path) -> None:
    # Built from a copy, so that the build leaves nothing in the checkout.
    source = tmp_path / "engine"
    shutil.copytree(
        ENGINE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(wheels), str(source)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (wheel,) = wheels.glob("tranca_rules-0.1.0-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read("tranca_rules-0.1.0.dist-info/METADATA").decode()
        names = archive.namelist()
    # Nothing beyond the standard library, typed, and the engine alone.
    assert "Requires-Dist" not in metadata
    assert "tranca_rules/py.typed" in names
    assert {name.split("/")[0] for name in names} == {
        "tranca_rules",
        "tranca_rules-0.1.0.dist-info",
    }

    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-index", str(wheel)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    done = subprocess.run(
        [str(python), "-I", "-c", PLAY],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    alone = json.loads(done.stdout)
    assert Path(alone["engine"]).is_relative_to(env), alone["engine"]
    assert alone["moves"], "the deal was played"
    here = _played_here()
    assert alone["moves"] == here["moves"]
    assert alone["totals"] == here["totals"]
