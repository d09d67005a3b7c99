"""The package's build backend: setuptools', with every build in a fresh scratch folder.

setuptools stages a build in ``build/`` in the source tree and reuses it, so a module deleted since
an earlier ``pip install .`` would still be copied into the next wheel. Here each build gets its own
temporary ``build_base`` and ``bdist_dir`` (through ``DIST_EXTRA_CONFIG``, a config file setuptools
reads after the project's own), removed afterwards: a wheel holds only the current tree, and the
source tree gains no ``build/`` folder.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 (every hook not redefined here is setuptools' own)


@contextlib.contextmanager
def _scratch_build() -> Iterator[None]:
    """Point setuptools' build folders at a new temporary folder for the duration of one hook."""
    with tempfile.TemporaryDirectory(prefix="knorri-sim-build-") as scratch:
        config = Path(scratch) / "fresh.cfg"
        config.write_text(f"[build]\nbuild_base = {Path(scratch) / 'build'}\n"
                          f"[bdist_wheel]\nbdist_dir = {Path(scratch) / 'wheel'}\n", encoding="utf-8")
        previous = os.environ.get("DIST_EXTRA_CONFIG")
        os.environ["DIST_EXTRA_CONFIG"] = str(config)
        try:
            yield
        finally:
            if previous is None:
                os.environ.pop("DIST_EXTRA_CONFIG", None)
            else:
                os.environ["DIST_EXTRA_CONFIG"] = previous


def build_wheel(wheel_directory: str, config_settings: dict | None = None,
                metadata_directory: str | None = None) -> str:
    """setuptools' wheel, built from a fresh scratch folder (nothing left from an earlier build)."""
    with _scratch_build():
        return build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)
