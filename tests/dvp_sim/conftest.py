# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures for simulator tests: a namespace per test, seeded classes, a scoped simulator, in one of two worlds.

`world` is the API the simulator plays DVP on: "api", the real kube-apiserver of testkit/harness, or "memory",
the in-memory API of sim/memory_api that the fast CSI tests and benchmarks use. The contract tests of the
modules in BOTH_WORLDS run in each, so the fast world cannot drift from the real one; the other modules (schema
422s, the CLI, faults on the HTTP transport, the component matrix, garbage collection: Kubernetes' own, which
runs beside kube-apiserver only) need the real API server and run there only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from dvp_common.kube import KubeClient
from dvp_common.runtime import Informer

from sim import SimConfig, Simulator, seed
from sim.builders import WAIT
from sim.memory_api import MemoryApi

FAST = 0.02  # seconds per phase: lifecycles finish quickly but every phase is still written and visible
BOTH_WORLDS = frozenset({"test_api_semantics", "test_disks", "test_vms", "test_attachments", "test_services",
                         "test_wakeups", "test_addresses",
                         "test_admission"})
# Tests of those modules that assert a schema answer (422): the in-memory API validates no schema.
SCHEMA_TESTS = frozenset({"test_vm_refuses_more_than_sixteen_static_devices"})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "world" in metafunc.fixturenames:
        module = metafunc.module.__name__.rpartition(".")[2]
        both = module in BOTH_WORLDS and metafunc.function.__name__ not in SCHEMA_TESTS
        metafunc.parametrize("world", ["api", "memory"] if both else ["api"], indirect=True)


def _seeded(client: KubeClient) -> KubeClient:
    seed.storage_class(client, "sim-fast")
    seed.storage_class(client, "sim-other")
    seed.storage_class(client, "sim-wffc", binding_mode="WaitForFirstConsumer")
    seed.vm_class(client, "generic")
    seed.cluster_image(client, "ubuntu")
    return client


@pytest.fixture(scope="session")
def api_dvp(dvp_api) -> Iterator[KubeClient]:
    client = _seeded(dvp_api.client())
    yield client
    client.close()


@pytest.fixture(scope="session")
def memory_world() -> tuple[MemoryApi, KubeClient]:
    api = MemoryApi()
    return api, _seeded(api.client())


@pytest.fixture
def world(request):
    """The API server object (`client()`, `create_namespace()`) of this test's world, seeded."""
    if request.param == "memory":
        return request.getfixturevalue("memory_world")[0]
    request.getfixturevalue("api_dvp")
    return request.getfixturevalue("dvp_api")


@pytest.fixture
def dvp(request, world) -> KubeClient:
    """An admin client of the world's DVP API."""
    return request.getfixturevalue("memory_world")[1] if isinstance(world, MemoryApi) else \
        request.getfixturevalue("api_dvp")


@pytest.fixture
def ns(world, dvp) -> str:
    return world.create_namespace("sim")


@pytest.fixture
def start_sim(world, ns) -> Iterator[Callable[..., Simulator]]:
    """start_sim(**SimConfig fields) -> a running simulator scoped to the test namespace."""
    started: list[Simulator] = []

    def start(**fields: Any) -> Simulator:
        fields.setdefault("default_latency", FAST)
        faults = fields.get("faults")
        sim = Simulator(world.client(faults=faults), SimConfig(namespace=ns, watch_timeout=1, **fields))
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
def record(world, ns) -> Iterator[Callable[[Any], Recorder]]:
    recorders: list[Recorder] = []
    clients: list[KubeClient] = []

    def make(res) -> Recorder:
        client = world.client()
        clients.append(client)
        recorders.append(Recorder(client, res, ns))
        return recorders[-1]

    yield make
    for r in recorders:
        r.stop()
