# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Child processes of the test harness: located in .bin/, logged to a file, never outliving the session."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

from . import lifetime

TOP = Path(__file__).resolve().parents[2]
BIN_DIR = TOP / ".bin"


class HarnessError(RuntimeError):
    """The harness could not provide the API: the message says what to do."""


def tool(name: str) -> Path:
    path = BIN_DIR / name
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise HarnessError(f"{name} is not built ({path} missing): run `make tools`")
    return path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Process:
    def __init__(self, name: str, argv: list[str], log: Path) -> None:
        self.name, self.argv, self.log = name, argv, log
        self._log_file = log.open("ab")
        try:
            self.proc = lifetime.spawn(argv, stdout=self._log_file, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL)
        except lifetime.LifetimeError as exc:
            raise HarnessError(str(exc)) from None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def tail(self, lines: int = 15) -> str:
        try:
            text = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(text[-lines:])

    def terminate(self) -> None:
        if self.alive():
            self.proc.terminate()

    def stop(self, timeout: float = 3.0) -> None:
        """SIGTERM, then SIGKILL after `timeout` (test servers hold nothing worth a long drain); reaps the child."""
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
        self._log_file.close()
