# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Helpers for capdvp tests on the real API (testkit/harness): CAPI objects made the way CAPI makes them, in a
fresh guest namespace, and a fresh DVP namespace with a VirtualMachineClass and an image."""

from __future__ import annotations

import base64
import secrets

from capdvp import resources as r
from capdvp.controllers.cluster import ClusterReconciler
from capdvp.controllers.context import Context, ReconcileConfig, project
from capdvp.controllers.machine import MachineReconciler
from dvp_common.dvp import DVPConnection
from dvp_common.kube import get_or_none

WAIT_S = 30.0  # Kubernetes' garbage collector (beside the DVP API) releasing an orphaned object's dependents
SPEC = {
    "vmClassName": "", "cpu": {"cores": 2, "cpuFraction": "50%"}, "memory": "4Gi", "rootDiskSize": "20Gi",
    "bootDiskImageRef": {"kind": "ClusterVirtualImage", "name": ""}, "additionalDisks": [{"size": "10Gi"}],
}


class RealEnv:
    def __init__(self, dvp_api, guest_api, *, share_dvp: RealEnv | None = None, cluster_uuid: str | None = None,
                 **config) -> None:
        """A new guest namespace; a new DVP namespace with its class and image, or `share_dvp`'s (another
        cluster in the same DVP project)."""
        self.dvp_api, self.guest_api = dvp_api, guest_api
        self.guest, self.dvp = guest_api.client(), dvp_api.client()
        self.ns = guest_api.create_namespace("capi")
        self.uuid = cluster_uuid or f"uuid-{secrets.token_hex(6)}"
        if share_dvp is not None:
            self.dvp_ns, self.vm_class, self.image = share_dvp.dvp_ns, share_dvp.vm_class, share_dvp.image
        else:
            self.dvp_ns = dvp_api.create_namespace("tenant")
            self.vm_class = f"generic-{secrets.token_hex(3)}"
            self.image = f"ubuntu-{secrets.token_hex(3)}"
            self.dvp.create(r.VIRTUAL_MACHINE_CLASS, {"metadata": {"name": self.vm_class},
                                                      "spec": {"cpu": {"type": "Host"}}})
            self.dvp.create(r.CLUSTER_VIRTUAL_IMAGE, {"metadata": {"name": self.image}, "spec": {
                "dataSource": {"type": "HTTP", "http": {"url": "https://example.invalid/img.qcow2"}}}})
        self.config = ReconcileConfig(dvp_namespace=self.dvp_ns, cluster_uuid=self.uuid, **config)
        self.ctx = Context(self.guest, project(DVPConnection(self.dvp, self.dvp_ns, self.uuid)), self.config)
        self.machines = MachineReconciler(self.ctx)
        self.clusters = ClusterReconciler(self.ctx)
        self.cluster = self.guest.create(r.CLUSTER, {"metadata": {"name": "dvp"}, "spec": {
            "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DeckhouseCluster",
                                  "name": "dvp"}}}, self.ns)
        self.guest.patch(r.CLUSTER, "dvp", {"status": {"initialization": {"infrastructureProvisioned": True}}},
                         self.ns, subresource="status")

    def spec(self, **patch) -> dict:
        spec = {**SPEC, "vmClassName": self.vm_class, **patch}
        spec.setdefault("bootDiskImageRef", {})
        if not spec["bootDiskImageRef"].get("name"):
            spec["bootDiskImageRef"] = {"kind": "ClusterVirtualImage", "name": self.image}
        return spec

    def capi_machine(self, name: str, spec: dict | None = None) -> dict:
        """Machine (with its bootstrap data Secret, key `value`), then the DeckhouseMachine it owns."""
        labels = {"cluster.x-k8s.io/cluster-name": "dvp"}
        self.guest.create(r.SECRET, {"metadata": {"name": f"{name}-bootstrap", "labels": labels},
                                     "type": "cluster.x-k8s.io/secret",
                                     "data": {"value": base64.b64encode(b"#cloud-config\n").decode(),
                                              "format": base64.b64encode(b"cloud-config").decode()}}, self.ns)
        machine = self.guest.create(r.MACHINE, {"metadata": {"name": name, "labels": labels}, "spec": {
            "clusterName": "dvp", "bootstrap": {"dataSecretName": f"{name}-bootstrap"},
            "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DeckhouseMachine",
                                  "name": name}}}, self.ns)
        return self.guest.create(r.DECKHOUSE_MACHINE, {"metadata": {"name": name, "labels": labels, "ownerReferences": [
            {"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine", "name": name,
             "uid": machine["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]},
            "spec": spec or self.spec()}, self.ns)

    def reconcile(self, name: str):
        return self.machines.reconcile(self.ns, name)

    def dm(self, name: str) -> dict | None:
        return get_or_none(self.guest, r.DECKHOUSE_MACHINE, name, self.ns)

    def condition(self, name: str, ctype: str = "Ready") -> dict:
        return next(c for c in self.dm(name)["status"]["conditions"] if c["type"] == ctype)

    def vm(self, name: str) -> dict | None:
        return get_or_none(self.dvp, r.VIRTUAL_MACHINE, name, self.dvp_ns)

    def names(self, res) -> list[str]:
        return sorted(o["metadata"]["name"] for o in self.dvp.list(res, self.dvp_ns).items)

    def vm_phase(self, name: str, phase: str, ip: str = "10.66.0.7") -> None:
        """What DVP's VM controller reports (until sim plays it)."""
        self.dvp.patch(r.VIRTUAL_MACHINE, name, {"status": {"phase": phase, "ipAddress": ip}}, self.dvp_ns,
                       subresource="status")

    def delete_keeping_dependents(self, res, name: str, uid: str | None = None) -> None:
        """Delete `name` from the DVP namespace with propagationPolicy Orphan (and, given `uid`, only that very
        object) and wait until it is gone: what it owned stays, released from it. Kubernetes' garbage collector runs
        on the DVP API (testkit/harness): after a plain delete of a VM it takes the VM's disks and Secret at once,
        so a test of what capdvp does while they are still there holds that window open this way."""
        self.dvp.delete(res, name, self.dvp_ns, propagation="Orphan", preconditions={"uid": uid} if uid else None)
        self.dvp.wait_for(res, name, lambda o: o is None or (uid is not None and o["metadata"]["uid"] != uid),
                          WAIT_S, self.dvp_ns)

    def close(self) -> None:
        self.guest.close()
        self.dvp.close()
