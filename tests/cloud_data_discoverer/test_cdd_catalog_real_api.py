# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The InstanceTypesCatalog through the real API servers: VirtualMachineClasses in DVP (the simulator running)
become node-manager's catalog in the guest (which serves the kind from testkit/harness/schemas).

VirtualMachineClasses are cluster-wide in the shared DVP API: each test names its classes with a unique prefix
and asserts on those entries exactly (plus: the whole list is sorted). The catalog is cluster-wide too, so each
test writes one of its own name (Guest.catalog_name); the RBAC test (test_cdd_rbac.py) writes the real one.
"""

from __future__ import annotations

import logging
import secrets
import uuid

import pytest
from cloud_data_discoverer import guest as g
from cloud_data_discoverer.discoverer import Discoverer
from cloud_data_discoverer.guest import INSTANCE_TYPES_CATALOG, Guest
from cloud_data_discoverer.metrics import Metrics
from dvp_common.dvp import DVPConnection, Inventory
from dvp_common.dvp.resources import VIRTUAL_MACHINE_CLASS
from dvp_common.kube import NO_RETRY, RequestInfo
from dvp_common.kube.resources import SECRET

from sim import SimConfig, Simulator

OURS = {"heritage": "deckhouse", "module": "cloud-provider-dvp"}
WRITES = ("create", "update", "patch", "delete")


class Env:
    def __init__(self, dvp_api, guest_api, guest_client=None, guest_ns: str | None = None) -> None:
        self.dvp, self.guest = dvp_api.client(), guest_api.client()
        self.ns = dvp_api.create_namespace("cddc")
        self.p = f"cddc{secrets.token_hex(3)}"
        self.name = f"{self.p}-catalog"
        self.requests: list[RequestInfo] = []
        self.on_request = lambda req: None
        client = guest_client or guest_api.client(retry=NO_RETRY, faults=self._seen)
        self.sleeps: list[float] = []
        self.guest_io = Guest(client, attempts=3, backoff=0.01, cap=0.02, sleep=self.sleeps.append,
                              namespace=guest_ns or guest_api.create_namespace("cddc"), catalog_name=self.name)
        conn = DVPConnection(dvp_api.client(), self.ns, str(uuid.uuid4()))
        self.disc = Discoverer(Inventory(conn), self.guest_io, Metrics(), conn.cluster_uuid)
        self.classes: list[str] = []

    def _seen(self, req: RequestInfo):
        self.requests.append(req)
        self.on_request(req)

    def vm_class(self, suffix: str, *policies: dict) -> str:
        name = f"{self.p}-{suffix}"
        body = {"metadata": {"name": name}, "spec": {"cpu": {"type": "Discovery"}}}
        if policies:
            body["spec"]["sizingPolicies"] = list(policies)
        self.dvp.create(VIRTUAL_MACHINE_CLASS, body)
        self.classes.append(name)
        return name

    def catalog(self) -> dict:
        return self.guest.get(INSTANCE_TYPES_CATALOG, self.name)

    def mine(self) -> list[dict]:
        return [e for e in self.catalog()["instanceTypes"] if e["name"].startswith(self.p)]

    def writes(self) -> list[tuple[str, str]]:
        return [(r.verb, r.resource) for r in self.requests if r.verb in WRITES]

    def close(self) -> None:
        for name in self.classes:
            self.dvp.delete(VIRTUAL_MACHINE_CLASS, name, missing_ok=True)
        self.guest.delete(INSTANCE_TYPES_CATALOG, self.name, missing_ok=True)


@pytest.fixture
def env(dvp_api, guest_api):
    e = Env(dvp_api, guest_api)
    yield e
    e.close()


def test_classes_become_the_catalog_a_change_updates_it_and_a_second_round_writes_nothing(env, dvp_api):
    small = env.vm_class("small", {"cores": {"min": 1, "max": 4}, "coreFractions": [5, 100],
                                   "memory": {"min": "1Gi", "max": "8Gi", "step": "512Mi"}})
    big = env.vm_class("big", {"cores": {"min": 1, "max": 16}, "memory": {"perCore": {"min": "1Gi", "max": "4Gi"}}},
                       {"cores": {"min": 17, "max": 63}, "memory": {"max": "128Gi"}})
    env.vm_class("any")  # no sizing policy: any size, no largest one
    with Simulator(dvp_api.client(), SimConfig(namespace=env.ns, watch_timeout=1, default_latency=0.02)):
        result = env.disc.run_once()
        assert result.catalog_outcome == g.CREATED and result.refused is None and result.write_error is None
        obj = env.catalog()
        assert obj["metadata"]["labels"] == OURS and obj["apiVersion"] == "deckhouse.io/v1alpha1"
        assert env.mine() == [
            {"name": f"{big}-1-16c", "cpu": "16", "memory": "64Gi", "rootDisk": "0"},
            {"name": f"{big}-17-63c", "cpu": "60", "memory": "128Gi", "rootDisk": "0"},
            {"name": f"{small}-1-4c", "cpu": "4", "memory": "8Gi", "rootDisk": "0"},
        ]
        names = [e["name"] for e in obj["instanceTypes"]]
        assert names == sorted(names)
        assert env.writes().count(("create", "instancetypescatalogs.deckhouse.io")) == 1

        # a second round with nothing changed: one read of the catalog, no write of it at all
        rv = obj["metadata"]["resourceVersion"]
        env.requests.clear()
        assert env.disc.run_once().catalog_outcome == g.UNCHANGED
        assert [w for w in env.writes() if w[1] == "instancetypescatalogs.deckhouse.io"] == []
        assert [(r.verb, r.name) for r in env.requests if r.resource == "instancetypescatalogs.deckhouse.io"] == [
            ("get", env.name)]
        assert env.catalog()["metadata"]["resourceVersion"] == rv

        # a class change in DVP: its entry follows, the others stay
        env.dvp.patch(VIRTUAL_MACHINE_CLASS, small, {"spec": {"sizingPolicies": [
            {"cores": {"min": 1, "max": 8}, "memory": {"min": "1Gi", "max": "16Gi"}}]}})
        env.requests.clear()
        assert env.disc.run_once().catalog_outcome == g.UPDATED
        assert env.mine() == [
            {"name": f"{big}-1-16c", "cpu": "16", "memory": "64Gi", "rootDisk": "0"},
            {"name": f"{big}-17-63c", "cpu": "60", "memory": "128Gi", "rootDisk": "0"},
            {"name": f"{small}-1-8c", "cpu": "8", "memory": "16Gi", "rootDisk": "0"},
        ]
        assert [w for w in env.writes() if w[1] == "instancetypescatalogs.deckhouse.io"] == [
            ("update", "instancetypescatalogs.deckhouse.io")]
        assert env.catalog()["metadata"]["uid"] == obj["metadata"]["uid"]  # updated in place, never re-created

        # a class gone from DVP: its entries go too
        env.dvp.delete(VIRTUAL_MACHINE_CLASS, big)
        assert env.disc.run_once().catalog_outcome == g.UPDATED
        assert [e["name"] for e in env.mine()] == [f"{small}-1-8c"]


def test_an_update_is_conditional_on_what_was_read(env):
    """Another writer changes the catalog between our read and our update: the update is refused (409), the
    retry reads again and writes on top of the newer object, keeping what the other writer added."""
    cls = env.vm_class("c", {"cores": {"min": 1, "max": 2}, "memory": {"max": "2Gi"}})
    env.disc.run_once()
    env.dvp.patch(VIRTUAL_MACHINE_CLASS, cls, {"spec": {"sizingPolicies": [
        {"cores": {"min": 1, "max": 2}, "memory": {"max": "4Gi"}}]}})
    raced: list[str] = []

    def race(req: RequestInfo) -> None:
        if req.verb == "update" and req.resource == "instancetypescatalogs.deckhouse.io" and not raced:
            raced.append(req.name)
            env.guest.patch(INSTANCE_TYPES_CATALOG, env.name, {"metadata": {"labels": {"other": "writer"}}})

    env.on_request = race
    result = env.disc.run_once()
    assert raced == [env.name] and result.catalog_outcome == g.UPDATED and result.write_error is None
    assert env.sleeps == [0.01]  # one retry after the Conflict
    obj = env.catalog()
    assert obj["metadata"]["labels"] == {**OURS, "other": "writer"}
    assert env.mine() == [{"name": f"{cls}-1-2c", "cpu": "2", "memory": "4Gi", "rootDisk": "0"}]


def test_a_catalog_without_our_labels_is_left_alone(env, caplog):
    env.vm_class("c", {"cores": {"min": 1, "max": 2}, "memory": {"max": "2Gi"}})
    theirs = env.guest.create(INSTANCE_TYPES_CATALOG, {"metadata": {"name": env.name},
                                                       "instanceTypes": [{"name": "x", "cpu": 1, "memory": "1Gi"}]})
    with caplog.at_level(logging.INFO, logger="cloud_data_discoverer"):
        for _ in range(2):
            result = env.disc.run_once()
            assert result.catalog_outcome == g.FOREIGN and result.refused is None and result.write_error is None
    assert env.catalog()["metadata"]["resourceVersion"] == theirs["metadata"]["resourceVersion"]
    said = [r.getMessage() for r in caplog.records if "without our labels" in r.getMessage()]
    assert said == [f'InstanceTypesCatalog "{env.name}" exists without our labels: someone else\'s, left alone']
    assert env.disc.readiness() is None


def test_a_guest_that_does_not_serve_the_kind_is_said_once_and_the_round_goes_on(dvp_api, caplog):
    """node-manager absent: the DVP API server stands in for such a guest (a real API that has no deckhouse.io
    kinds); the discovery Secret is still written and health stays fine."""
    e = Env(dvp_api, dvp_api, guest_ns=dvp_api.create_namespace("cddc"))
    try:
        with caplog.at_level(logging.INFO, logger="cloud_data_discoverer"):
            for _ in range(3):
                result = e.disc.run_once()
                assert result.catalog_outcome == g.NOT_SERVED
                assert result.refused is None and result.write_error is None and result.failed is None
        assert result.discovery_written is False  # written by the first round, unchanged since
        assert e.dvp.get(SECRET, "d8-cloud-provider-discovery-data", e.guest_io.namespace)["data"]
        assert e.disc.readiness() is None and e.disc.liveness() is None
        said = [r.getMessage() for r in caplog.records if "does not serve" in r.getMessage()]
        assert said == [f'InstanceTypesCatalog "{e.name}": the guest does not serve the kind (node-manager '
                        "absent): not published"]
        assert ("create", "instancetypescatalogs.deckhouse.io") not in e.writes()
    finally:
        for name in e.classes:
            e.dvp.delete(VIRTUAL_MACHINE_CLASS, name, missing_ok=True)
