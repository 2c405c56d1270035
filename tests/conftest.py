import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.script_module import load_script


def _refuse_extensions_beside_the_sources() -> None:
    """The suite tests the sources, as the service runs them. An extension beside
    them (an in-place build of an earlier compile_engine.py) would be imported
    instead of an edit; the compiled engine lives in build/compiled/, tested
    against the sources by tests/rules/test_compiled_engine.py."""
    path = Path(__file__).resolve().parents[1] / "server" / "compile_engine.py"
    module = load_script("compile_engine", path)
    leftovers = module.leftovers()
    if leftovers:
        pytest.exit(
            f"{len(leftovers)} compiled module(s) beside the sources (first: {leftovers[0]}):"
            " run `python server/compile_engine.py --clean`",
            returncode=3,
        )


_refuse_extensions_beside_the_sources()

# CI runs more examples; a developer's default run stays quick.
settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
