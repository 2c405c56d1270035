import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.script_module import load_script


def _refuse_stale_extensions() -> None:
    """The compiled engine (server/compile_engine.py) sits beside its sources and is
    imported first: after an edit it would be tested instead of the edit."""
    path = Path(__file__).resolve().parents[1] / "server" / "compile_engine.py"
    module = load_script("compile_engine", path)
    stale = module.stale()
    if stale:
        pytest.exit(
            f"{len(stale)} compiled module(s) older than their source or no longer built"
            f" (first: {stale[0]}): run `make compiled`, or `make compiled PURE_PYTHON=1`",
            returncode=3,
        )
    import tranca.rules.engine

    where = str(tranca.rules.engine.__file__)
    if os.environ.get("TRANCA_EXPECT_INTERPRETED") and not where.endswith(".py"):
        # `make pytest-pure`: the copy without extensions must be the one imported.
        pytest.exit(f"expected the interpreted sources, got {where}", 3)
    if os.environ.get("TRANCA_EXPECT_COMPILED") and where.endswith(".py"):
        # `make pytest`: the suite tests the engine as `make venv` built it.
        pytest.exit(f"expected the compiled engine, got {where}", 3)


_refuse_stale_extensions()

# CI runs more examples; a developer's default run stays quick.
settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
