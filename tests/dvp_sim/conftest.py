# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures for simulator tests on the real DVP API: a namespace per test, seeded classes, a scoped simulator."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from dvp_common.kube import KubeClient
from dvp_common.runtime import Informer

from dvp_sim import SimConfig, Simulator, seed
from dvp_sim.builders import WAIT

FAST = 0.02  # seconds per phase: lifecycles finish quickly but every phase is still written and visible


@pytest.fixture(scope="session")
def dvp(dvp_api) -> Iterator[KubeClient]:
    client = dvp_api.client()
    seed.storage_class(client, "sim-fast")
    seed.storage_class(client, "sim-other")
    seed.storage_class(client, "sim-wffc", binding_mode="WaitForFirstConsumer")
    seed.vm_class(client, "generic")
    seed.cluster_image(client, "ubuntu")
    yield client
    client.close()


@pytest.fixture
def ns(dvp_api, dvp) -> str:
    return dvp_api.create_namespace("sim")


@pytest.fixture
def start_sim(dvp_api, ns) -> Iterator[Callable[..., Simulator]]:
    """start_sim(**SimConfig fields) -> a running simulator scoped to the test namespace."""
    started: list[Simulator] = []

    def start(**fields: Any) -> Simulator:
        fields.setdefault("default_latency", FAST)
        faults = fields.get("faults")
        sim = Simulator(dvp_api.client(faults=faults), SimConfig(namespace=ns, watch_timeout=1, **fields))
        started.append(sim.start())
        return sim

    yield start
    for sim in started:
        sim.stop()
        sim.client.close()


@pytest.fixture
def sim(start_sim) -> Simulator:
    return start_sim()


class Recorder:
    """Every phase each object of one kind went through, from a watch opened before the test acts."""

    def __init__(self, client: KubeClient, res, namespace: str) -> None:
        self.phases: dict[str, list[str]] = {}
        self._lock = threading.Condition()
        self._stop = threading.Event()
        self.informer = Informer(client, res, namespace, watch_timeout=1)
        self.informer.add_handlers(on_add=self._see, on_update=lambda _o, n: self._see(n))
        self._thread = threading.Thread(target=self.informer.run, args=(self._stop,), daemon=True)
        self._thread.start()
        assert self.informer.synced.wait(WAIT)

    def _see(self, obj: dict[str, Any]) -> None:
        name, phase = obj["metadata"]["name"], (obj.get("status") or {}).get("phase")
        with self._lock:
            seen = self.phases.setdefault(name, [])
            if phase and (not seen or seen[-1] != phase):
                seen.append(phase)
                self._lock.notify_all()

    def of(self, name: str) -> list[str]:
        with self._lock:
            return list(self.phases.get(name, []))

    def until(self, name: str, count: int) -> list[str]:
        """The phases of `name` once `count` of them were seen (this watch may trail the test's own wait)."""
        with self._lock:
            self._lock.wait_for(lambda: len(self.phases.get(name, [])) >= count, WAIT)
            return list(self.phases.get(name, []))

    def stop(self) -> None:
        self._stop.set()


@pytest.fixture
def record(dvp_api, ns) -> Iterator[Callable[[Any], Recorder]]:
    recorders: list[Recorder] = []
    clients: list[KubeClient] = []

    def make(res) -> Recorder:
        client = dvp_api.client()
        clients.append(client)
        recorders.append(Recorder(client, res, ns))
        return recorders[-1]

    yield make
    for r in recorders:
        r.stop()
