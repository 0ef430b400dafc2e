# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module's components as processes (`python -m <package>`), output to log files, stopped on exit.

A component that exits at start is reported "not available" with its last stderr line; the scenario steps that
need it say so instead of faking its work.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness import lifetime

START_GRACE = 2.0  # seconds a component must stay up to count as started
STOP_TIMEOUT = 5.0


@dataclass
class Component:
    name: str
    argv: list[str]
    env: dict[str, str]
    log_path: Path
    proc: subprocess.Popen | None = None
    starts: int = 0
    unavailable: str = ""
    _log: object = field(default=None, repr=False)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, grace: float = START_GRACE) -> bool:
        self.spawn()
        return self.settle(time.monotonic() + grace)

    def spawn(self) -> None:
        if self._log is None:
            self._log = open(self.log_path, "ab")  # noqa: SIM115 - kept open for the process's life
        env = {**os.environ, **self.env}
        self.proc = lifetime.spawn([sys.executable, *self.argv], env=env, stdout=self._log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.starts += 1

    def settle(self, deadline: float) -> bool:
        """True when the process is still up at the deadline; else `unavailable` says why it exited."""
        while True:
            if self.proc.poll() is not None:
                self.unavailable = self._last_line() or f"exited {self.proc.returncode}"
                return False
            if time.monotonic() >= deadline:
                self.unavailable = ""
                return True
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL: the crash a controller must survive."""
        if self.running:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(STOP_TIMEOUT)

    def stop(self) -> None:
        if self.running:
            self.proc.terminate()
            try:
                self.proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(STOP_TIMEOUT)
        if self._log is not None:
            self._log.close()
            self._log = None

    def _last_line(self) -> str:
        self._log.flush()
        lines = [ln for ln in self.log_path.read_text(errors="replace").splitlines() if ln.strip()]
        return lines[-1][:200] if lines else ""


class Components:
    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.items: dict[str, Component] = {}
        # The components' own temporary files (TLS material of their clients): a SIGKILLed one cannot remove
        # them, so they live under one folder removed when we stop, or by the reaper if we are killed.
        self.tmp = Path(tempfile.mkdtemp(prefix="cpdvp-components-"))
        lifetime.remove_on_exit(self.tmp)

    def start_together(self, names: list[str]) -> dict[str, bool]:
        """Spawn all, then one shared grace period: start-up costs the slowest import, not their sum."""
        for name in names:
            self.items[name].spawn()
        deadline = time.monotonic() + START_GRACE
        return {name: self.items[name].settle(deadline) for name in names}

    def add(self, name: str, argv: list[str], env: dict[str, str]) -> Component:
        comp = Component(name, argv, {**env, "TMPDIR": str(self.tmp)}, self.log_dir / f"{name}.log")
        self.items[name] = comp
        return comp

    def available(self, name: str) -> bool:
        """Started and not given up on (a controller SIGKILLed by the chaos is being restarted: still available)."""
        comp = self.items.get(name)
        return comp is not None and comp.starts > 0 and not comp.unavailable

    def stop_all(self) -> None:
        for comp in reversed(list(self.items.values())):
            comp.stop()
        lifetime.remove_now(self.tmp)
