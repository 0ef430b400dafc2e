# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CCM's two APIs in memory (testkit.recorded: sim.memory_api under the real KubeClient, every request
recorded as (verb, kind, name[, subresource]) so tests assert the exact Kubernetes operations), and the informer
views the controllers read, live from the same store."""

from __future__ import annotations

from collections.abc import Callable

from dvp_common.dvp import DVPConnection
from dvp_common.kube import Resource

from testkit.recorded import RecordedApi

NS = "dvp-project"
UUID = "11111111-2222-3333-4444-555555555555"
GUEST_NAMESPACES = ("shop", "other")  # besides "default": where the tests' Services live


class InformedApi(RecordedApi):
    """A RecordedApi with the informer views (`store(res)`) the controllers read instead of the API."""

    def __init__(self, namespaces: tuple[str, ...] = (), *, admission: bool = False) -> None:
        super().__init__(namespaces=namespaces, admission=admission)
        self._stores: dict[str, Store] = {}

    def store(self, res: Resource) -> Store:
        """The cache view of a kind: one per kind, so the indexes installed on it stay."""
        return self._stores.setdefault(str(res), Store(self, res))


def guest_api() -> InformedApi:
    return InformedApi(GUEST_NAMESPACES)


def dvp_api() -> InformedApi:
    """With DVP's admission rules, as DVP's webhooks answer."""
    return InformedApi((NS,), admission=True)


class Store:
    """What an Informer offers the controllers (get by key, items, indexes), read live from the store: a test
    sees the controllers act on exactly the objects it put, with no informer to wait for."""

    def __init__(self, api: RecordedApi, res: Resource) -> None:
        self.api, self.res = api, res
        self.index_fns: dict[str, Callable[[dict], list[str]]] = {}

    def get(self, key: str) -> dict | None:
        ns, _, name = key.rpartition("/")
        return self.api.peek(self.res, name, ns or None)

    def items(self) -> list[dict]:
        return self.api.items(self.res)

    def add_index(self, name: str, fn: Callable[[dict], list[str]]) -> None:
        self.index_fns[name] = fn

    def by_index(self, name: str, value: str) -> list[dict]:
        if name not in self.index_fns:
            raise AssertionError(f"index {name!r} is not installed on the {self.res.kind} store")
        found = [o for o in self.items() if value in self.index_fns[name](o)]
        return sorted(found, key=lambda o: (o["metadata"].get("namespace") or "", o["metadata"]["name"]))

    def count(self, name: str, value: str) -> int:
        return len(self.by_index(name, value))

    def assume(self, obj: dict) -> None:
        """Reads are live here: nothing to cache."""


def dvp_connection(api: RecordedApi) -> DVPConnection:
    return DVPConnection(api.client, NS, UUID)
