# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A guest cluster and a DVP namespace in memory (testkit.recorded: sim.memory_api under the real KubeClient,
every request recorded), with Cluster API objects made the way CAPI makes them."""

from __future__ import annotations

import base64
import datetime as dt

from capdvp import resources as r
from capdvp.controllers.cluster import ClusterReconciler
from capdvp.controllers.context import Context, ReconcileConfig, project
from capdvp.controllers.machine import MachineReconciler
from dvp_common.dvp import DVPConnection

from testkit.recorded import RecordedApi

NS = "d8-cloud-instance-manager"
DVP_NS = "tenant-a"
UUID = "5f7c3a2e-0000-4000-8000-000000000001"
OTHER_UUID = "9e1d0000-0000-4000-8000-000000000002"
CLUSTER = "dvp"

MACHINE_SPEC = {
    "vmClassName": "generic",
    "cpu": {"cores": 2, "cpuFraction": "50%"},
    "memory": "4Gi",
    "rootDiskSize": "20Gi",
    "rootDiskStorageClass": "fast",
    "bootDiskImageRef": {"kind": "ClusterVirtualImage", "name": "ubuntu-24-04"},
    "bootloader": "EFI",
    "runPolicy": "AlwaysOnUnlessStoppedManually",
    "additionalDisks": [{"size": "10Gi", "storageClass": "slow"}],
}


class Clock:
    def __init__(self) -> None:
        self.t = dt.datetime(2026, 12, 2, 12, 0, 0, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += dt.timedelta(seconds=seconds)


class World:
    def __init__(self, latency: float = 0.0) -> None:
        """`latency`: seconds per request to either API."""
        self.clock = Clock()
        self.guest = RecordedApi(namespaces=(NS,), clock=self.clock, latency=latency)
        self.dvp = RecordedApi(admission=True, namespaces=(DVP_NS,), clock=self.clock,  # DVP's webhooks' rules
                               latency=latency)
        self.config = ReconcileConfig(dvp_namespace=DVP_NS, cluster_uuid=UUID,
                                      additional_vm_labels={"bastion-access": "true"},
                                      control_plane_host="10.0.0.1", control_plane_port=6443)
        self.ctx = Context(self.guest.client, project(DVPConnection(self.dvp.client, DVP_NS, UUID)), self.config,
                           self.clock)
        self.machines = MachineReconciler(self.ctx)
        self.clusters = ClusterReconciler(self.ctx)
        self.dvp.put(r.VIRTUAL_MACHINE_CLASS, {"metadata": {"name": "generic"}})
        self.dvp.put(r.CLUSTER_VIRTUAL_IMAGE, {"metadata": {"name": "ubuntu-24-04"}, "status": {"phase": "Ready"}})
        self.cluster = self.guest.put(r.CLUSTER, {
            "metadata": {"name": CLUSTER},
            "spec": {"infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DeckhouseCluster",
                                           "name": CLUSTER}},
            "status": {"initialization": {"infrastructureProvisioned": True}}}, NS)

    # Cluster API side -------------------------------------------------------------------------------------
    def capi_machine(self, name: str, spec: dict | None = None, *, bootstrap: bool = True,
                     control_plane: bool = False) -> dict:
        """What CAPI creates for one MachineDeployment replica: Machine, bootstrap Secret, DeckhouseMachine."""
        labels = {"cluster.x-k8s.io/cluster-name": CLUSTER}
        if control_plane:
            labels["cluster.x-k8s.io/control-plane"] = ""
        machine = self.guest.put(r.MACHINE, {
            "metadata": {"name": name, "labels": dict(labels)},
            "spec": {"clusterName": CLUSTER,
                     "bootstrap": {"dataSecretName": f"{name}-bootstrap"} if bootstrap else {},
                     "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io",
                                           "kind": "DeckhouseMachine", "name": name}}}, NS)
        if bootstrap:
            self.bootstrap_secret(name)
        return self.guest.put(r.DECKHOUSE_MACHINE, {
            "metadata": {"name": name, "labels": labels,
                         "ownerReferences": [{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
                                              "name": name, "uid": machine["metadata"]["uid"],
                                              "controller": True, "blockOwnerDeletion": True}]},
            "spec": dict(spec or MACHINE_SPEC)}, NS)

    def bootstrap_secret(self, name: str, data: bytes = b"#cloud-config\nruncmd: [bootstrap]\n") -> None:
        self.guest.put(r.SECRET, {"metadata": {"name": f"{name}-bootstrap"}, "type": "cluster.x-k8s.io/secret",
                                  "data": {"value": base64.b64encode(data).decode(), "format": "Y2xvdWQtY29uZmln"}},
                       NS)
        m = self.guest.peek(r.MACHINE, name, NS)
        if m and not m["spec"].get("bootstrap", {}).get("dataSecretName"):
            m["spec"]["bootstrap"] = {"dataSecretName": f"{name}-bootstrap"}
            self.guest.put(r.MACHINE, m, NS)

    def reconcile(self, name: str):
        return self.machines.reconcile(NS, name)

    def dm(self, name: str) -> dict:
        return self.guest.peek(r.DECKHOUSE_MACHINE, name, NS)

    def condition(self, name: str, ctype: str = "Ready") -> dict:
        conds = (self.dm(name).get("status") or {}).get("conditions") or []
        return next(c for c in conds if c["type"] == ctype)

    def delete_machine(self, name: str) -> None:
        self.guest.client.delete(r.DECKHOUSE_MACHINE, name, NS)

    # DVP side (what DVP's controllers would do) -----------------------------------------------------------
    def vm(self, name: str) -> dict | None:
        return self.dvp.peek(r.VIRTUAL_MACHINE, name, DVP_NS)

    def vm_phase(self, name: str, phase: str, ip: str = "10.10.0.5") -> None:
        self.dvp.set_status(r.VIRTUAL_MACHINE, name, DVP_NS, {"phase": phase, "ipAddress": ip})

    def node_ref(self, name: str) -> None:
        self.guest.set_status(r.MACHINE, name, NS, {"nodeRef": {"name": name}})

    def names(self, res) -> list[str]:
        return [o["metadata"]["name"] for o in self.dvp.items(res)]
