# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A staged tree (a directory holding what a layer adds) turned into layer entries, and bytecode compiled in it
by the image's own interpreter: unchecked-hash .pyc files (no source mtime inside), a fixed hash seed and one
process compiling the files in order (marshal's reference flags depend on what the process saw before), so the
same sources give the same bytes."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from . import cache, layer, rootfs
from .errors import ImageError
from .layer import Entry, Layer, write_layer

COMPILE_TIMEOUT = 600
# A layer is named by its inputs and by the writer that turned them into bytes (a new mode rule is a new layer).
WRITER = cache.key(Path(layer.__file__).read_bytes())[:12]


class StagingError(ImageError):
    pass


def entries(tree: Path) -> list[Entry]:
    out = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames.sort()
        base = Path(dirpath)
        rel_dir = base.relative_to(tree).as_posix()
        if rel_dir != ".":
            out.append(Entry(rel_dir, source=base))  # the writer takes its mode, masked (layer.masked)
        for name in sorted(filenames) + [d for d in dirnames if (base / d).is_symlink()]:
            path = base / name
            rel = path.relative_to(tree).as_posix()
            if path.is_symlink():
                out.append(Entry(rel, link=os.readlink(path)))
            else:
                out.append(Entry(rel, source=path))
    return out


def compile_bytecode(root: Path, dirs: list[str], binds: tuple[tuple[Path, str, bool], ...] = (),
                     interpreter: str = "/usr/bin/python3.13", writable: bool = False) -> None:
    """Compiles every .py under `dirs` (paths in the image) with the interpreter of `root`, as uid 0 in a user
    namespace (the staged trees are ours); `binds` put the staged upper trees at their places."""
    argv = [interpreter, "-m", "compileall", "-q", "-f", "--invalidation-mode", "unchecked-hash", *dirs]
    # The interpreter must not write timestamp .pyc files of what it imports itself while compiling.
    env = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = rootfs.bwrap_argv(root, argv, uid=0, gid=0, binds=binds, env=env,
                              writable_root=writable)
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT, check=False)
    if res.returncode != 0:
        tail = (res.stdout + res.stderr).strip().splitlines()[-3:]
        raise StagingError(f"bytecode of {', '.join(dirs)} in {root}: exit {res.returncode}: {' | '.join(tail)}")


def tree_layer(kind: str, key: str, make: Callable[[Path], None]) -> tuple[Layer, Path]:
    """The layer of `kind` for `key` and its staged tree (kept: upper layers compile against it), made by
    `make(tree)` when either is missing; a failed make leaves nothing."""
    name = f"{kind}-{key}"
    tree = cache.root() / "trees" / name
    known = cache.known_layer(f"{name}-{WRITER}")
    if known and tree.is_dir():
        return known, tree
    if not tree.is_dir():  # a tree is renamed into place only when complete: one there is reused
        partial = tree.with_name(tree.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        try:
            make(partial)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        partial.rename(tree)
    made = write_layer(entries(tree), cache.blobs())
    cache.keep_layer(f"{name}-{WRITER}", made)
    return made, tree
