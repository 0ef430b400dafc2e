# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A hook of a pulled module runs as code from a registry: under bubblewrap, in new namespaces (no network, its
own pids, an unprivileged uid), on a read-only root that holds only the host's /usr (the interpreter's shared
libraries), the Python installation and the venv's site-packages (the SDK), read-only, the unpacked module
read-only, a tmpfs at /tmp and one exchange directory for the shell-operator files; with a deadline, capped
output files (RLIMIT_FSIZE) and address space (RLIMIT_AS). No host path it is not given can be read or written,
and nothing it starts outlives it."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import SourceError, limits

UID = GID = 64535  # Deckhouse's unprivileged user
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib64")


@dataclass(frozen=True)
class Result:
    returncode: int
    stdout: str
    last_error_line: str


def bwrap() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SourceError("bwrap is missing: run `make host` (apt-get install bubblewrap); a pulled module's hooks "
                          "never run outside a sandbox")
    return path


def interpreter() -> str:
    return os.path.realpath(sys.executable)


def _system_mounts() -> list[str]:
    out: list[str] = []
    for path in SYSTEM:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            out += ["--ro-bind", path, path]
    return out


def argv(module: Path, exchange: Path | None, command: list[str], env: dict[str, str]) -> list[str]:
    python_home = os.path.realpath(sys.base_prefix)
    site = sysconfig.get_paths()["purelib"]
    out = [bwrap(), "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
           "--unshare-cgroup-try", "--uid", str(UID), "--gid", str(GID), "--die-with-parent", "--new-session",
           *_system_mounts(), "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for path in dict.fromkeys((python_home, site, str(module))):  # once each; nested ones after their parent
        if not path.startswith(("/usr/",)):
            out += ["--ro-bind", path, path]
    if exchange is not None:
        out += ["--bind", str(exchange), str(exchange)]
    out += ["--remount-ro", "/", "--clearenv"]  # bwrap's own root (where the mount points were made) too
    for name, value in sorted(env.items()):
        out += ["--setenv", name, value]
    return [*out, "--chdir", str(module), "--", *command]


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.HOOK_OUTPUT_BYTES, limits.HOOK_OUTPUT_BYTES))
    resource.setrlimit(resource.RLIMIT_AS, (limits.HOOK_MEMORY_BYTES, limits.HOOK_MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _tail(path: Path) -> str:
    with open(path, "rb") as f:
        f.seek(max(f.seek(0, os.SEEK_END) - 4096, 0))
        lines = f.read().decode(errors="replace").strip().splitlines()
    return lines[-1][:300] if lines else ""


def run(module: Path, command: list[str], env: dict[str, str], what: str, exchange: Path | None = None,
        seconds: float | None = None) -> Result:
    """Runs `command` (an argv inside the sandbox) and returns its exit code, stdout and last stderr line."""
    seconds = seconds or limits.HOOK_SECONDS
    with tempfile.TemporaryDirectory(prefix="module-source-run-") as tmp:
        out_path, err_path = Path(tmp) / "stdout", Path(tmp) / "stderr"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                proc = subprocess.run(argv(module, exchange, command, env), stdin=subprocess.DEVNULL, stdout=out,
                                      stderr=err, timeout=seconds, preexec_fn=_limits, check=False)  # noqa: PLW1509
            except subprocess.TimeoutExpired:
                raise SourceError(f"{what}: no answer within {seconds:g} s (killed)") from None
        stdout = out_path.read_bytes().decode(errors="replace")
        return Result(proc.returncode, stdout, _tail(err_path))
