# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The wheels layer shared by the Python images: the run-time closure of pyproject.toml (no extra: what the
components import) at exactly the versions of requirements.lock, for the images' interpreter and platform,
installed into /app/lib and compiled there by the image's own interpreter."""

from __future__ import annotations

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
    tree = cache.root() / "trees" / f"wheels-{key}"
    known = cache.load("layers", f"wheels-{key}")
    if known and tree.is_dir() and (cache.blobs() / known["digest"].partition(":")[2]).is_file():
        return Layer(**known), tree, pins
    import shutil

    from .layer import write_layer

    partial = tree.with_name(tree.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    lib = partial / "app" / "lib"
    lib.mkdir(parents=True)
    requirements = partial.with_name(partial.name + ".txt")
    requirements.write_text("\n".join(pins) + "\n")
    _run([_uv(), "pip", "install", "-q", "--python-version", python_version, "--python-platform", PLATFORM,
          "--only-binary", ":all:", "--no-deps", "--no-compile", "--target", str(lib), "-r", str(requirements)])
    requirements.unlink()
    shutil.rmtree(lib / "bin", ignore_errors=True)  # console scripts, with the builder's interpreter in them
    staging.compile_bytecode(base_tree, ["/app/lib"], binds=((lib, "/app/lib", False),), interpreter=interpreter)
    shutil.rmtree(tree, ignore_errors=True)
    partial.rename(tree)
    built = write_layer(staging.entries(tree), cache.blobs())
    cache.store("layers", f"wheels-{key}", built.__dict__)
    return built, tree, pins
