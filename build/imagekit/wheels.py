# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The wheels layer shared by the Python images: the run-time closure of pyproject.toml (no extra: what the
components import) at exactly the versions of requirements.lock, for the images' interpreter and platform,
installed into /app/lib and compiled there by the image's own interpreter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from . import cache, declarations, staging
from .errors import ImageError
from .layer import Layer

ROOT = declarations.ROOT
PLATFORM = "x86_64-manylinux_2_28"  # trixie's glibc 2.41 runs every manylinux_2_28 wheel
TIMEOUT = 600


class WheelsError(ImageError):
    pass


def _uv() -> str:
    uv = Path(sys.executable).parent / "uv"
    if not uv.is_file():
        raise WheelsError(f"{uv} is missing: run `make venv` (uv is pinned in the Makefile)")
    return str(uv)


def _run(argv: list[str]) -> str:
    res = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    if res.returncode != 0:
        raise WheelsError(f"{' '.join(argv[:3])}: exit {res.returncode}: {res.stderr.strip().splitlines()[-1:]}")
    return res.stdout


def runtime_pins(python_version: str) -> list[str]:
    """`name==version` of every run-time wheel, from the lock (the image never resolves anything new)."""
    out = _run([_uv(), "pip", "compile", "-q", "--no-header", "--no-annotate", "--python-version", python_version,
                str(ROOT / "pyproject.toml"), "--constraint", str(ROOT / "requirements.lock")])
    pins = sorted(line.strip() for line in out.splitlines() if line.strip() and not line.startswith("#"))
    if not pins:
        raise WheelsError("pyproject.toml: the run-time closure is empty")
    return pins


def layer(base_tree: Path, python_version: str, interpreter: str) -> tuple[Layer, Path, list[str]]:
    pins = runtime_pins(python_version)
    key = cache.key(base_tree.name, PLATFORM, *pins, Path(__file__).read_bytes())

    def make(tree: Path) -> None:
        lib = tree / "app" / "lib"
        lib.mkdir(parents=True)
        requirements = tree.with_name(tree.name + ".txt")
        requirements.write_text("\n".join(pins) + "\n")
        try:
            _run([_uv(), "pip", "install", "-q", "--python-version", python_version, "--python-platform", PLATFORM,
                  "--only-binary", ":all:", "--no-deps", "--no-compile", "--target", str(lib), "-r",
                  str(requirements)])
        finally:
            requirements.unlink()
        shutil.rmtree(lib / "bin", ignore_errors=True)  # console scripts, with the builder's interpreter in them
        staging.compile_bytecode(base_tree, ["/app/lib"], binds=((lib, "/app/lib", False),), interpreter=interpreter)

    built, tree = staging.tree_layer("wheels", key, make)
    return built, tree, pins
