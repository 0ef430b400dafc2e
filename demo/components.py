# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module's components as processes (`python -m <package>`, or a program such as an upstream sidecar), output
to log files, stopped on exit.

A component that exits at start is reported "not available" with its last stderr line; the scenario steps that
need it say so instead of faking its work. `Components.keep_up` restarts the named ones whenever they exit, as the
kubelet restarts a pod's containers (the CSI sidecars exit when the driver they call goes away).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from testkit.harness import lifetime

START_GRACE = 2.0  # seconds a component must stay up to count as started
STOP_TIMEOUT = 5.0
RESTART_BACKOFF = (0.5, 8.0)  # seconds: first and longest wait before restarting an exited container


@dataclass
class Component:
    name: str
    argv: list[str]
    env: dict[str, str]
    log_path: Path
    program: str | None = None  # None: argv is `python` arguments
    proc: subprocess.Popen | None = None
    starts: int = 0
    spawned_at: float = 0.0
    log_start: int = 0  # where the current process's output begins in the log (every start appends)
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
        self.log_start = os.fstat(self._log.fileno()).st_size
        self.proc = lifetime.spawn([self.program or sys.executable, *self.argv], env=env, stdout=self._log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.starts += 1
        self.spawned_at = time.monotonic()

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

    def logged(self, text: str) -> bool:
        """The current process has written `text` (its own output only, not an earlier start's)."""
        with self.log_path.open("rb") as log:
            log.seek(self.log_start)
            return text.encode() in log.read()

    def _last_line(self) -> str:
        self._log.flush()
        lines = [ln for ln in self.log_path.read_text(errors="replace").splitlines() if ln.strip()]
        return lines[-1][:200] if lines else ""


class Components:
    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.items: dict[str, Component] = {}
        self.restarts: dict[str, int] = {}  # by keep_up
        self._restarted = threading.Condition()
        self._stopping = threading.Event()
        self._keeper: threading.Thread | None = None
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

    def add(self, name: str, argv: list[str], env: dict[str, str], program: str | None = None) -> Component:
        comp = Component(name, argv, {**env, "TMPDIR": str(self.tmp)}, self.log_dir / f"{name}.log", program)
        self.items[name] = comp
        return comp

    def put(self, comp: Component) -> Component:
        """A component made by the caller (demo.images: a process in its image rootfs, its own environment)."""
        self.items[comp.name] = comp
        return comp

    def available(self, name: str) -> bool:
        """Started and not given up on (a controller SIGKILLed by the chaos is being restarted: still available)."""
        comp = self.items.get(name)
        return comp is not None and comp.starts > 0 and not comp.unavailable

    def keep_up(self, names: list[str]) -> None:
        """Restart each of `names` whenever it exits, with a backoff doubling per restart in a row and reset once
        it ran well (kubelet's CrashLoopBackOff, shortened); runs until `stop_all`."""
        def run() -> None:
            waits = dict.fromkeys(names, RESTART_BACKOFF[0])
            due: dict[str, float] = {}
            while not self._stopping.wait(0.1):
                now = time.monotonic()
                for name in names:
                    comp = self.items[name]
                    if comp.running:
                        continue
                    if name not in due:
                        if now - comp.spawned_at > RESTART_BACKOFF[1] * 2:  # it had run well: a fresh backoff
                            waits[name] = RESTART_BACKOFF[0]
                        due[name] = now + waits[name]
                    elif now >= due[name]:
                        del due[name]
                        comp.spawn()
                        with self._restarted:
                            self.restarts[name] = self.restarts.get(name, 0) + 1
                            self._restarted.notify_all()
                        waits[name] = min(waits[name] * 2, RESTART_BACKOFF[1])

        self._keeper = threading.Thread(target=run, name="keep-up", daemon=True)
        self._keeper.start()

    def wait_restarts(self, name: str, count: int, timeout: float) -> bool:
        """True once keep_up has restarted `name` `count` times, False at the timeout."""
        with self._restarted:
            return self._restarted.wait_for(lambda: self.restarts.get(name, 0) >= count, timeout)

    def stop_all(self) -> None:
        self._stopping.set()
        if self._keeper is not None:
            self._keeper.join(STOP_TIMEOUT)
        for comp in reversed(list(self.items.values())):
            comp.stop()
        lifetime.remove_now(self.tmp)
