"""The SDK's gRPC stubs, generated from the contracts into ``tranca_client/v1``.

The build step of the ``tranca-client`` distribution (setup.py runs it when a wheel
or an editable install is built) and of the development environment (`make venv`
runs it as a script when a contract changes): grpc_tools.protoc writes the messages,
the services and their typing stubs (mypy-protobuf) for every ``proto/tranca/v1``
file, then their imports of one another are moved from ``tranca.v1`` to
``tranca_client.v1``, so that the SDK never needs the server's package.

Only the Python import paths change: each file keeps its proto name
(``tranca/v1/game.proto``) and package (``tranca.v1``), byte for byte the descriptor
the server's stubs register. A process that loads both (the server's tests) gets
one descriptor and one class per message, and the wire is the same.

    python build_stubs.py [--proto-root DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE_DIR = HERE / "tranca_client" / "v1"

# `from tranca.v1 import game_pb2` (messages, services), `import tranca.v1.game_pb2`
# and `tranca.v1.game_pb2.GameView` (typing stubs), and the module names given to
# the message classes. Service and message names (`/tranca.v1.GameService/...`,
# `tranca.v1.GameView`) and the serialized descriptors are left alone.
_IMPORT_PATH = re.compile(r"(?<![\w.])tranca\.v1(?=\.\w+_pb2(?:_grpc)?\b| import )")

_INIT = '''"""The gRPC stubs of the tranca.v1 contracts, generated when tranca-client was built
(build_stubs.py); never edited by hand and never committed."""
'''


def proto_root() -> Path:
    """The directory holding ``tranca/v1/*.proto``: the copy inside an sdist, or the
    repository's ``proto/`` beside a checkout's ``clients/python``."""
    for root in (HERE / "proto", HERE.parent.parent / "proto"):
        if any((root / "tranca" / "v1").glob("*.proto")):
            return root
    raise SystemExit(
        "tranca-client: the contracts (proto/tranca/v1/*.proto) were not found; build "
        "from a checkout of the repository (pip install ./clients/python) or from its sdist"
    )


def _plugin(name: str) -> str:
    # The plugins are the console scripts of mypy-protobuf, a build requirement: pip's
    # isolated build environment and the development venv put them on the PATH.
    found = shutil.which(name)
    if found is None:
        bindir = Path(sys.executable).parent
        candidate = bindir / name
        if not candidate.exists():
            raise SystemExit(f"tranca-client: {name} not found (install mypy-protobuf)")
        found = str(candidate)
    return found


def generate(out: Path, root: Path | None = None) -> list[Path]:
    """Writes the stubs into ``out`` (the ``tranca_client.v1`` package directory),
    replacing what was there, and returns the files written."""
    import grpc_tools
    from grpc_tools import protoc

    root = root or proto_root()
    protos = sorted((root / "tranca" / "v1").glob("*.proto"))
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        args = [
            "grpc_tools.protoc",
            f"-I{root}",
            f"-I{well_known}",
            f"--plugin=protoc-gen-mypy={_plugin('protoc-gen-mypy')}",
            f"--plugin=protoc-gen-mypy_grpc={_plugin('protoc-gen-mypy_grpc')}",
            f"--python_out={tmp}",
            f"--grpc_python_out={tmp}",
            f"--mypy_out=quiet:{tmp}",
            f"--mypy_grpc_out=quiet:{tmp}",
            *(str(p) for p in protos),
        ]
        # Absolute paths under the -I root: protoc records them by their names there,
        # tranca/v1/<name>.proto, as the server's stubs do.
        code = protoc.main(args)
        if code != 0:
            raise SystemExit(f"tranca-client: protoc failed (exit {code})")
        generated = sorted((Path(tmp) / "tranca" / "v1").iterdir())
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        written = []
        for source in generated:
            target = out / source.name
            target.write_text(_IMPORT_PATH.sub("tranca_client.v1", source.read_text()))
            written.append(target)
    init = out / "__init__.py"
    init.write_text(_INIT)
    return [init, *written]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--proto-root", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=PACKAGE_DIR)
    ns = parser.parse_args()
    files = generate(ns.out, ns.proto_root)
    print(f"{len(files)} files in {ns.out}")


if __name__ == "__main__":
    main()
