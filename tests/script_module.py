"""Load a script that is not part of a package (server/compile_engine.py,
clients/verify_deal.py) as a module, to test its functions."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_script(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
