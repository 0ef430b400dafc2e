# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""SIGKILL of the controllers at random points of the walk; each is restarted at once, as its Deployment would.

`kills` is per controller: every controller is killed that many times, in a random order at random pauses."""

from __future__ import annotations

import random
import threading

from demo.components import Components

CONTROLLERS = ("cloud-controller-manager", "capdvp-controller-manager", "csi-controller")
RESTART_GRACE = 0.5  # seconds a restarted controller must stay up (a crash at start shows well within it)


class Chaos:
    def __init__(self, components: Components, kills: int, seed: int, pause: tuple[float, float] = (0.1, 0.8)):
        self.components, self.pause = components, pause
        self.rand = random.Random(seed)  # noqa: S311 - not cryptographic
        self.plan = [name for name in CONTROLLERS for _ in range(kills)]
        self.rand.shuffle(self.plan)
        self.target = len(self.plan)
        self.kills: list[str] = []
        self.failed_restarts: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="chaos", daemon=True)

    def start(self) -> Chaos:
        if self.target:
            self._thread.start()
        return self

    @property
    def done(self) -> bool:
        return len(self.kills) >= self.target

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(30)

    def _run(self) -> None:
        while len(self.kills) < self.target and not self._stop.wait(self.rand.uniform(*self.pause)):
            name = self.plan[len(self.kills)]
            comp = self.components.items[name]
            comp.kill()
            self.kills.append(name)
            if not comp.start(grace=RESTART_GRACE):
                self.failed_restarts.append(f"{name}: {comp.unavailable}")
