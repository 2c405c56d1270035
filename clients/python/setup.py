"""The build step of tranca-client: the metadata is in pyproject.toml; this adds the
gRPC stubs, generated from the contracts at build time (build_stubs.py), to the
package tranca_client.v1, and puts the contracts themselves in the sdist."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
# setuptools runs this file with the project's directory current but not on sys.path.
sys.path.insert(0, str(HERE))

import build_stubs  # noqa: E402


class BuildPyWithStubs(build_py):
    """build_py, then the stubs: into the wheel's tree, or into the source tree for an
    editable install (whose package is the source directory itself)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            build_stubs.generate(build_stubs.PACKAGE_DIR)
        else:
            build_stubs.generate(Path(self.build_lib) / "tranca_client" / "v1")


class SdistWithContracts(sdist):
    """An sdist that builds anywhere: it carries the contracts under proto/, which
    build_stubs looks for before the checkout's ../../proto."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        root = build_stubs.proto_root()
        target = Path(base_dir) / "proto" / "tranca" / "v1"
        target.mkdir(parents=True, exist_ok=True)
        for proto in sorted((root / "tranca" / "v1").glob("*.proto")):
            shutil.copy2(proto, target / proto.name)


setup(cmdclass={"build_py": BuildPyWithStubs, "sdist": SdistWithContracts})
