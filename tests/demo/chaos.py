# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""SIGKILL of the controllers at random points of the walk; each is restarted at once, as its Deployment would."""

from __future__ import annotations

import random
import threading

from demo.components import Components

CONTROLLERS = ("cloud-controller-manager", "capdvp-controller-manager", "csi-controller")


class Chaos:
    def __init__(self, components: Components, kills: int, seed: int, pause: tuple[float, float] = (0.3, 1.5)):
        self.components, self.target, self.pause = components, kills, pause
        self.rand = random.Random(seed)  # noqa: S311 - not cryptographic
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
            name = self.rand.choice(CONTROLLERS)
            comp = self.components.items[name]
            comp.kill()
            self.kills.append(name)
            if not comp.start():
                self.failed_restarts.append(f"{name}: {comp.unavailable}")
