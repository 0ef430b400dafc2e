# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The Go binaries among an image's files and the modules built into each, read from the binary itself with
`go version -m -json` (the build info the Go linker embeds: the main module, every dependency module and its
replacement, the Go version), so the SBOM names what is really inside. A file is a Go binary when `go version -m`
reads build info from it, whatever its name; only ELF files are asked (the others cannot be one)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .errors import ImageError

ELF_MAGIC = b"\x7fELF"
NOT_GO = "not a Go executable"  # what `go version -m` says of a file without Go build info
TIMEOUT = 60


class GoBuildInfoError(ImageError):
    pass


@dataclass(frozen=True)
class Module:
    path: str
    version: str  # "(devel)" for a main module built from a checkout, "" for one replaced by a directory
    note: str = ""  # what a `=>` line says: "replaces <path> <version>", "replaced by the directory <dir>"


@dataclass(frozen=True)
class GoBinary:
    target: str  # its path in the image
    go_version: str  # "go1.26.8"
    modules: tuple[Module, ...]  # the main module first, then every dependency as built in


def _is_elf(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == ELF_MAGIC


def _go() -> str:
    go = shutil.which("go")
    if go is None:
        raise GoBuildInfoError("go is missing: install Go >= 1.26 (the tools are built with it; the SBOM reads "
                               "the build info of the image's Go binaries with `go version -m`)")
    return go


def modules(info: dict) -> tuple[Module, ...]:
    """The modules of a `go version -m -json` document: the main module, then each dependency; one replaced by
    another module as that module (the code that was compiled) naming what it replaces, one replaced by a
    directory under its own path without a version (a directory has none)."""
    out = [Module(info["Main"]["Path"], info["Main"].get("Version", ""))] if info.get("Main", {}).get("Path") else []
    for dep in info.get("Deps") or []:
        replace, required = dep.get("Replace"), f"{dep['Path']} {dep.get('Version', '')}".strip()
        if replace and replace.get("Version"):
            out.append(Module(replace["Path"], replace["Version"], f"replaces {required}"))
        elif replace:
            out.append(Module(dep["Path"], "", f"replaced by the directory {replace['Path']}"))
        else:
            out.append(Module(dep["Path"], dep.get("Version", "")))
    return tuple(out)


def read(path: Path, target: str) -> GoBinary | None:
    """The build info of `path` (in the image at `target`), or None when it is no Go binary."""
    if not path.is_file() or not _is_elf(path):
        return None
    # GOTOOLCHAIN=local: reading build info must never switch or download a toolchain; cwd / has no go.mod.
    env = {**os.environ, "GOTOOLCHAIN": "local"}
    res = subprocess.run([_go(), "version", "-m", "-json", str(path)], capture_output=True, text=True, env=env,
                         cwd="/", timeout=TIMEOUT, check=False)
    if res.returncode != 0 and (NOT_GO in res.stderr or not res.stderr.strip()):
        # An ELF file without Go build info (a C binary, a frozen Python program), or one go cannot parse as an
        # executable at all (it says nothing then).
        return None
    if res.returncode != 0:
        raise GoBuildInfoError(f"{path}: `go version -m` failed: {res.stderr.strip().splitlines()[-1]}")
    try:
        info = json.loads(res.stdout)
    except json.JSONDecodeError as exc:
        raise GoBuildInfoError(f"{path}: `go version -m -json` printed no JSON ({exc})") from None
    return GoBinary(target, info["GoVersion"], modules(info))


def binaries(files: Iterable[tuple[Path, str]]) -> list[GoBinary]:
    """The Go binaries among (file, path in the image), by path in the image."""
    found = (read(path, target) for path, target in sorted(files, key=lambda f: f[1]))
    return [b for b in found if b is not None]
