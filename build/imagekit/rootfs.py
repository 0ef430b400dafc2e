# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A process inside an unpacked image root filesystem, with bubblewrap (no container engine, no cgroups): the
root bound read-only, the non-root uid in a user namespace, only the mounts given (what a Pod would give), the
host's network (the test world listens on loopback), and the environment of the image config plus what the
caller adds. The builder uses the same runner, as uid 0 over a writable tree, to compile bytecode with the
image's own interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

from .errors import ImageError

UID = GID = 64535  # Deckhouse's unprivileged user


class ToolMissing(ImageError):
    pass


def require_bwrap() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise ToolMissing("bwrap is missing: run `make host` (apt-get install bubblewrap)")
    return path


def bwrap_argv(root: Path, argv: list[str], *, uid: int = UID, gid: int = GID,
               binds: tuple[tuple[Path, str, bool], ...] | list = (), env: dict[str, str] | None = None,
               tmpfs: tuple[str, ...] = ("/tmp",), cwd: str = "/", writable_root: bool = False) -> list[str]:
    """The command line that runs `argv` in `root`. `binds`: (host path, path in the image, read only); each
    target must exist in the image (its mount points)."""
    out = [require_bwrap(), "--unshare-user", "--uid", str(uid), "--gid", str(gid), "--unshare-pid",
           "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session",
           "--bind" if writable_root else "--ro-bind", str(root), "/", "--proc", "/proc", "--dev", "/dev"]
    for path in tmpfs:
        out += ["--tmpfs", path]
    for host, target, read_only in binds:
        out += ["--ro-bind" if read_only else "--bind", str(host), target]
    out += ["--clearenv"]
    for name, value in sorted((env or {}).items()):
        out += ["--setenv", name, value]
    return [*out, "--chdir", cwd, "--", *argv]
