# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A local registry for `make release` and the tests: `crane registry serve` on a free 127.0.0.1 port. With
`disk`, blobs are kept in that directory (crane keeps manifests and tags in memory: a new serve starts with no
tags, and a release pushed again reuses the blobs)."""

from __future__ import annotations

import contextlib
import os
import re
import select
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from . import ReleaseError, crane

SERVING = re.compile(r"serving on port (\d+)")
START_TIMEOUT = 30.0


@contextlib.contextmanager
def serve(disk: Path | None = None) -> Iterator[str]:
    """Yields host:port of a running registry; stops it on exit."""
    argv = [str(crane.binary()), "registry", "serve", "--address", "127.0.0.1:0"]
    if disk is not None:
        disk.mkdir(parents=True, exist_ok=True)
        argv += ["--disk", str(disk)]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        port = _announced_port(proc)
        # Keep reading its log so a chatty registry never blocks on a full pipe.
        threading.Thread(target=_drain, args=(proc.stderr.fileno(),), daemon=True).start()
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _drain(fd: int) -> None:
    while os.read(fd, 65536):
        pass


def _announced_port(proc: subprocess.Popen) -> str:
    """The port from crane's "serving on port N" line (read unbuffered: select() sees only the pipe)."""
    deadline, text = time.monotonic() + START_TIMEOUT, ""
    fd = proc.stderr.fileno()
    while time.monotonic() < deadline:
        if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            break
        chunk = os.read(fd, 4096).decode(errors="replace")
        if not chunk:
            break
        text += chunk
        found = SERVING.search(text)
        if found:
            return found.group(1)
    last = " | ".join(text.strip().splitlines()[-2:])
    raise ReleaseError(f"crane registry serve announced no port within {START_TIMEOUT:g}s: {last}")
