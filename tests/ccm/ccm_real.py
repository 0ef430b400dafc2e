# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CCM against real API servers: DVP (played by dvp_sim) and the guest, one namespace and cluster UUID per test.

Nodes are cluster-scoped in the shared guest API, so each test names its Nodes with a unique prefix and
deletes them at the end; Nodes are created Ready (a NotReady Node of another test is never ours to judge). The
parent's ModuleConfig `service-with-healthchecks` is cluster-scoped too: each Env starts with it enabled (the
harness's DVP serves the kind, so its module is on), and a test that changes it says so.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any

from dvp_ccm import settings as S
from dvp_ccm.domain import parent_module as PM
from dvp_ccm.domain.lifecycle import LifecycleConfig
from dvp_ccm.manager import Manager
from dvp_common.dvp import DVPConnection
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import MODULE_CONFIG, VIRTUAL_DISK, VIRTUAL_MACHINE, VIRTUAL_MACHINE_OPERATION
from dvp_common.kube import KubeClient, KubeError, NotFound
from dvp_common.kube.resources import NODE, SERVICE
from prometheus_client import CollectorRegistry

from sim import SimConfig, Simulator, seed
from sim.builders import disk, vmop
from sim.builders import vm as sim_vm

WAIT = 30.0
UNINIT = {"key": "node.cloudprovider.kubernetes.io/uninitialized", "value": "true", "effect": "NoSchedule"}


def now_text(offset: float = 0.0) -> str:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(seconds=offset)).strftime("%Y-%m-%dT%H:%M:%SZ")


def eventually(check: Callable[[], Any], timeout: float = WAIT, what: str = "condition") -> Any:
    """Poll `check` (0.1 s) until it returns a truthy value; bounded, and says what it waited for."""
    deadline, last = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        try:
            last = check()
        except NotFound:
            last = None
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


class Env:
    def __init__(self, dvp_api, guest_api, **sim: Any) -> None:
        """`sim`: SimConfig fields besides the namespace and the latencies (e.g. network_pools)."""
        self.dvp_api, self.guest_api = dvp_api, guest_api
        self.dvp = dvp_api.client()
        self.guest = guest_api.client()
        seed.storage_class(self.dvp, "sim-fast")
        seed.vm_class(self.dvp, "generic")
        self.parent_module(True)
        self.ns = dvp_api.create_namespace("ccm")
        self.guest_ns = guest_api.create_namespace("ccm")
        self.uuid = str(uuid.uuid4())
        self.prefix = f"n{secrets.token_hex(3)}"
        self.sim = Simulator(dvp_api.client(), SimConfig(namespace=self.ns, watch_timeout=1, default_latency=0.02,
                                                             **sim))
        self.sim.start()
        self.nodes: list[str] = []
        self.managers: list[Manager] = []
        self.exits: list[str] = []

    # DVP ---------------------------------------------------------------------------------------------------
    def vm(self, name: str, *, hostname: str | None = None, cluster_uuid: str | None = None,
           component: str | None = L.CAPDVP, wait: bool = True, extra: dict | None = None,
           networks: list | None = None) -> dict:
        self.dvp.create(VIRTUAL_DISK, disk(f"{name}-boot"), self.ns)
        body = sim_vm(name, [f"{name}-boot"])
        if networks:
            body["spec"]["networks"] = networks
        labels = {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.HOSTNAME: hostname or name,
                  L.CLUSTER_UUID: cluster_uuid if cluster_uuid is not None else self.uuid, **(extra or {})}
        if component:
            labels[L.COMPONENT] = component
        body["metadata"]["labels"] = labels
        self.dvp.create(VIRTUAL_MACHINE, body, self.ns)
        return self.wait_vm(name, "Running") if wait else body

    def wait_vm(self, name: str, phase: str) -> dict:
        def reached() -> dict | None:
            vm = self.dvp.get(VIRTUAL_MACHINE, name, self.ns)
            st = vm.get("status") or {}
            return vm if st.get("phase") == phase and (phase != "Running" or st.get("ipAddress")) else None

        return eventually(reached, what=f"VM {name} {phase}")

    def vm_op(self, vm_name: str, kind: str) -> None:
        self.dvp.create(VIRTUAL_MACHINE_OPERATION, vmop(f"{vm_name}-{kind.lower()}-{secrets.token_hex(2)}",
                                                         vm_name, kind), self.ns)

    def vm_labels(self, name: str) -> dict[str, str]:
        return self.dvp.get(VIRTUAL_MACHINE, name, self.ns)["metadata"].get("labels") or {}

    def parent_module(self, enabled: bool | None) -> None:
        """The parent's ModuleConfig service-with-healthchecks with `spec.enabled`; None: no such ModuleConfig."""
        if enabled is None:
            self.dvp.delete(MODULE_CONFIG, PM.NAME, missing_ok=True)
            return
        mc = self.dvp.create(MODULE_CONFIG, {"metadata": {"name": PM.NAME}, "spec": {"enabled": enabled,
                                                                                    "version": 1}},
                             get_existing=True)
        if (mc.get("spec") or {}).get("enabled") is not enabled:
            self.dvp.patch(MODULE_CONFIG, PM.NAME, {"spec": {"enabled": enabled}})

    # guest -------------------------------------------------------------------------------------------------
    def node(self, short: str, *, provider_id: str = "", taints: list | None = None, ready: bool = True,
             since: str | None = None) -> str:
        name = f"{self.prefix}-{short}"
        spec: dict[str, Any] = {"taints": taints if taints is not None else [UNINIT]}
        if provider_id:
            spec["providerID"] = provider_id
        self.guest.create(NODE, {"metadata": {"name": name}, "spec": spec})
        self.nodes.append(name)
        self.set_ready(name, ready, since)
        return name

    def set_ready(self, name: str, ready: bool, since: str | None = None) -> None:
        cond = {"type": "Ready", "status": "True" if ready else "False", "reason": "KubeletReady" if ready else
                "NodeStatusUnknown", "lastHeartbeatTime": now_text(), "lastTransitionTime": since or now_text()}
        self.guest.patch(NODE, name, {"status": {"conditions": [cond]}}, subresource="status")

    def get_node(self, name: str) -> dict | None:
        try:
            return self.guest.get(NODE, name)
        except NotFound:
            return None

    # the CCM -----------------------------------------------------------------------------------------------
    def settings(self, **fields: Any) -> S.Settings:
        base = S.Settings(dvp=None, leader_election_namespace=self.guest_ns,  # type: ignore[arg-type]
                          leader_election_id=f"ccm-{self.prefix}", health_bind="127.0.0.1:0", metrics_bind=None,
                          workers=2, address_refresh=30.0,
                          # the harness's DVP serves ServiceWithHealthchecks; tests of that path ask for "auto"
                          load_balancer_kind="Service",
                          lifecycle=LifecycleConfig(out_of_service=True, grace=2.0, hold=1.0, recheck=0.5))
        return dataclasses.replace(base, **fields)

    def manager(self, *, dvp_faults=None, guest_faults=None, prober=None, start: bool = True,
                guest_token: str | None = None, dvp_token: str | None = None, **fields: Any) -> Manager:
        guest = self.guest_api.client(token=guest_token, faults=guest_faults)
        conn = DVPConnection(self.dvp_api.client(token=dvp_token, faults=dvp_faults), self.ns, self.uuid)
        m = Manager(self.settings(**fields), guest, conn, registry=CollectorRegistry(), prober=prober,
                    exit_on_lost_lease=lambda: self.exits.append("lost"), watch_timeout=1)
        self.managers.append(m)
        if start:
            m.start()
        return m

    def close(self) -> None:
        for m in self.managers:
            m.shutdown()
        try:  # the guest API is shared: later tests' CCMs must not find this test's Nodes and Services
            for name in self.nodes:
                self.guest.delete(NODE, name, missing_ok=True)
            for svc in self.guest.list(SERVICE, self.guest_ns).items:
                self.guest.patch(SERVICE, svc["metadata"]["name"], {"metadata": {"finalizers": None}}, self.guest_ns)
                self.guest.delete(SERVICE, svc["metadata"]["name"], self.guest_ns, missing_ok=True)
        except KubeError as exc:
            print(f"cleanup of test objects failed: {exc}")
        self.sim.stop()
        for client in (self.dvp, self.guest, self.sim.client):
            client.close()


def client_of(m: Manager) -> KubeClient:
    return m.guest
