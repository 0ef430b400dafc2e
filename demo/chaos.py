# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""SIGKILL of the controllers; each is restarted at once, as its Deployment would.

`kills` is per controller. The first `in_flight` kills of each land on an observed DVP write: the controller is
armed (demo.inflight), its next DVP write is held and announced, and the chaos kills the process holding it, so
those kills hit work in flight by construction, not by timing. The rest land on idle controllers once the walk
calls `finish()` (the DVP project is empty): a restart then must not recreate anything."""

from __future__ import annotations

import random
import threading
from pathlib import Path

from demo.components import Components
from demo.inflight import armed_file, inflight_file

CONTROLLERS = ("cloud-controller-manager", "capdvp-controller-manager", "csi-controller")
# What each controller logs once it works (dvp_common.runtime): the manager's caches synced and its controllers
# started (their first pass over everything they watch follows at once); the CSI driver's gRPC server serving.
WORKING = {"cloud-controller-manager": "caches synced: controllers started",
           "capdvp-controller-manager": "caches synced: controllers started",
           "csi-controller": "dvp_csi started"}
RESTART_GRACE = 0.5  # seconds a restarted controller must stay up (a crash at start shows well within it)
SCAN = 0.05  # seconds between looks for an announced write (the wait is for that event, bounded by the walk)


class Chaos:
    def __init__(self, components: Components, kills: int, seed: int, hold_dir: Path | None = None,
                 pause: tuple[float, float] = (0.1, 0.8)):
        self.components, self.pause, self.hold_dir = components, pause, hold_dir
        self.rand = random.Random(seed)  # noqa: S311 - not cryptographic
        self.in_flight_left = dict.fromkeys(CONTROLLERS, kills - kills // 2) if hold_dir else {}
        self.idle_plan = [name for name in CONTROLLERS for _ in range(kills // 2 if hold_dir else kills)]
        self.rand.shuffle(self.idle_plan)
        self.target = kills * len(CONTROLLERS)
        self.kills: list[str] = []
        self.active: list[str] = []  # "<controller>: <verb> <resource>" of each kill on a held write
        self.failed_restarts: list[str] = []
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._thread = threading.Thread(target=self._run, name="chaos", daemon=True)

    def start(self) -> Chaos:
        if self.target:
            self._thread.start()
        return self

    @property
    def done(self) -> bool:
        return len(self.kills) >= self.target

    def restarted_working(self) -> bool:
        """Every controller killed so far runs again and says it works (since its last start)."""
        items = self.components.items
        return all(items[name].running and items[name].logged(WORKING[name]) for name in set(self.kills))

    def finish(self) -> None:
        """The walk's work is done: the in-flight kills not yet made become idle ones."""
        self._idle.set()

    def stop(self) -> None:
        self._stop.set()
        self._idle.set()
        if self._thread.is_alive():
            self._thread.join(30)

    def _run(self) -> None:
        try:
            self._in_flight_kills()
        finally:
            self._disarm()
        left = [n for n, k in self.in_flight_left.items() for _ in range(k)]
        plan = self.idle_plan + left
        self._idle.wait()  # set by finish() or stop()
        while len(self.kills) < self.target and not self._stop.wait(self.rand.uniform(*self.pause)):
            self._kill(plan[len(self.kills) - len(self.active)])

    def _in_flight_kills(self) -> None:
        while any(self.in_flight_left.values()) and not self._idle.is_set():
            for name, left in self.in_flight_left.items():
                if left:
                    armed_file(self.hold_dir, name).touch()
            for name in [n for n, k in self.in_flight_left.items() if k]:
                held = self._held(name)
                if held is None:
                    continue
                pid, what = held
                comp = self.components.items[name]
                if not comp.running or comp.proc.pid != pid:  # a write of a process already gone
                    inflight_file(self.hold_dir, name).unlink(missing_ok=True)
                    continue
                self.in_flight_left[name] -= 1
                if not self.in_flight_left[name]:
                    armed_file(self.hold_dir, name).unlink(missing_ok=True)
                self.active.append(f"{name}: {what}")
                self._kill(name, held_file=inflight_file(self.hold_dir, name))
            self._idle.wait(SCAN)

    def _held(self, name: str) -> tuple[int, str] | None:
        try:
            text = inflight_file(self.hold_dir, name).read_text()
        except FileNotFoundError:
            return None
        pid, _, what = text.strip().partition(" ")
        return int(pid), what

    def _kill(self, name: str, held_file: Path | None = None) -> None:
        comp = self.components.items[name]
        comp.kill()
        if held_file is not None:
            held_file.unlink(missing_ok=True)  # the holder is dead: the restarted one may announce again
        self.kills.append(name)
        if not comp.start(grace=RESTART_GRACE):
            self.failed_restarts.append(f"{name}: {comp.unavailable}")

    def _disarm(self) -> None:
        if self.hold_dir is None:
            return
        for name in CONTROLLERS:
            armed_file(self.hold_dir, name).unlink(missing_ok=True)
            inflight_file(self.hold_dir, name).unlink(missing_ok=True)  # releases a held write
