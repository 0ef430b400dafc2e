# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Nothing a test or the demo starts outlives it: children die with the process, temporary folders go with it.

Three mechanisms, each for a way the parent can end:
- a normal exit, Ctrl-C, SIGTERM or SIGHUP: `exit_on_signals()` turns the signals into SystemExit, so every
  `finally`/`stop()` runs and reaps its children and folders;
- a crash (even SIGKILL): every child is spawned through `spawn()` with the kernel's parent-death signal
  (PR_SET_PDEATHSIG, via util-linux's setpriv) set to SIGKILL;
- what a killed parent cannot remove: `remove_on_exit(path)` hands the folder to a small reaper process
  (`python -m testkit.harness.reaper`) that waits for the parent's end on a pipe and removes what is still registered.

PR_SET_PDEATHSIG fires when the *thread* that forked the child ends, not the process. So every spawn runs on one
spawner thread that lives as long as the process: a controller restarted by a short-lived chaos thread is not
killed when that thread finishes.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

REAPER_MODULE = "testkit.harness.reaper"


class LifetimeError(RuntimeError):
    """A child could not be tied to this process's life: the message says what is missing."""


def dying_with_parent(argv: list[str]) -> list[str]:
    """argv run through setpriv, which asks the kernel to SIGKILL the child when its parent dies (even by SIGKILL).
    Not a Python preexec_fn: after fork in a process with threads (gRPC, simulators) Python code in the child can
    deadlock before exec, leaving a silent process that never starts."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise LifetimeError("setpriv (util-linux) is not on PATH: it is needed to tie test processes to their parent")
    return [setpriv, "--pdeathsig", "KILL", "--", *argv]


class _Spawner:
    """One daemon thread that forks every child (see the module docstring)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, fn: Callable[[], Any]) -> Any:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="child-spawner", daemon=True)
                self._thread.start()
        if threading.current_thread() is self._thread:
            return fn()
        done: Future = Future()
        self._jobs.put((fn, done))
        return done.result()

    def _loop(self) -> None:
        while True:
            fn, done = self._jobs.get()
            try:
                done.set_result(fn())
            except BaseException as exc:  # handed to the caller's thread
                done.set_exception(exc)


_SPAWNER = _Spawner()


def spawn(argv: list[str], **popen: Any) -> subprocess.Popen:
    """subprocess.Popen(argv) in a session of its own (a terminal's Ctrl-C reaches only us, and we stop it in
    order), killed by the kernel if this process dies."""
    wrapped = dying_with_parent(argv)
    return _SPAWNER.run(lambda: subprocess.Popen(wrapped, start_new_session=True, **popen))


class _Reaper:
    """The reaper process, started on first use; this process writes `+path`/`-path` lines to it."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def _send(self, line: str) -> None:
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                # Not through spawn(): the reaper must outlive us, and it must not be in our process group, so a
                # terminal's Ctrl-C does not end it before it has cleaned up.
                self._proc = subprocess.Popen([sys.executable, "-m", REAPER_MODULE], stdin=subprocess.PIPE,
                                              stdout=subprocess.DEVNULL, start_new_session=True,
                                              env={**os.environ, "PYTHONPATH": _python_path()})
            assert self._proc.stdin is not None
            self._proc.stdin.write(line.encode() + b"\n")
            self._proc.stdin.flush()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None


def _python_path() -> str:
    here = str(Path(__file__).resolve().parents[2])  # the root `testkit.harness` is imported from
    return os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p)


_REAPER = _Reaper()


def remove_on_exit(path: Path) -> None:
    """Remove `path` (recursively) when this process ends, however it ends; `forget(path)` once removed."""
    if "\n" in str(path):
        raise LifetimeError(f"cannot register a path with a newline: {path!r}")
    _REAPER._send(f"+{Path(path).resolve()}")


def forget(path: Path) -> None:
    _REAPER._send(f"-{Path(path).resolve()}")


def remove_now(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
    forget(path)


def reaper_pid() -> int | None:
    return _REAPER.pid


def exit_on_signals(signals: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGHUP)) -> None:
    """SIGTERM/SIGHUP raise SystemExit(128 + signal) in the main thread, so cleanup runs as for Ctrl-C."""

    def handler(signum: int, _frame: object) -> None:
        for sig in signals:  # a second signal must not interrupt the cleanup the first one started
            signal.signal(sig, signal.SIG_IGN)
        raise SystemExit(128 + signum)

    for sig in signals:
        signal.signal(sig, handler)
