# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The driver's DVP objects: dvp_common.dvp's typed kinds on one connection, and the lookups every path shares.

Writes go through the kinds, which check ownership and carry the uid of the object the caller read and judged as
a precondition, so a same-named object made in between is never touched. Lookups apply the ownership rule once:
a foreign disk reads as absent (a guest must not learn about others), or PermissionDenied where the path would
change it.

Adoption with proof (`dvp_common.dvp.adoption`): the upstream (Go) driver never wrote our component label, so its
disks and attachments would read as foreign. A disk becomes ours when a PersistentVolume of this guest cluster,
of this driver, names it by volumeHandle, its labels are the upstream scheme (managed-by, `virtualDiskName`) and
its cluster UUID is ours, or empty or absent with the PV bound to a live claim whose uid is in the disk's name
(`pvc-<uid>`; a PV alone a guest user could write); an upstream attachment of an adopted disk when its labels and
spec name the disk and the VM of the node (a VM of this cluster that the guest Node's providerID names). Without
the guest API (no proof to read) nothing is adopted. The PVs and claims come from `guest_proofs`' watches when the
driver has them, else from one read per call or pass.

A node's VM is ours (capdvp's, found by hostname label) or, on a cluster the Go module built, dhctl's master or
static VM, which carries our cluster UUID but no component label: it is the attach target only when the guest
Node of that name names it in its providerID and its hostname label is the Node's (`dvp_common.dvp.instances`),
and it is only read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import grpc
from dvp_common.dvp import (
    Attachments,
    DVPConnection,
    Snapshots,
    StorageClasses,
    VirtualDisks,
    VirtualMachines,
    instances,
)
from dvp_common.dvp import labels as L
from dvp_common.dvp.adoption import Proof, Verdict, decide
from dvp_common.dvp.objects import Obj
from dvp_common.dvp.resources import VIRTUAL_DISK
from dvp_common.kube import Conflict, KubeClient, get_or_none
from dvp_common.kube.metrics import RequestMetrics
from dvp_common.kube.resources import NODE

from . import guest_proofs
from .domain import disks
from .domain.errors import CsiError, not_found
from .guest_proofs import GuestProofs

log = logging.getLogger(__name__)


@dataclass
class Dvp:
    conn: DVPConnection
    disks: VirtualDisks
    attachments: Attachments
    snapshots: Snapshots
    vms: VirtualMachines
    storage_classes: StorageClasses
    guest: KubeClient | None = None  # the guest API: its PersistentVolumes and Nodes prove what we adopt
    on_adopt: Callable[[str], None] | None = None  # called with the kind of each object adopted (a metric)
    proof_cache: GuestProofs | None = None  # the guest's PVs and claims, watched (none: read live per call)

    @classmethod
    def over(cls, client: KubeClient, namespace: str, cluster_uuid: str, guest: KubeClient | None = None) -> Dvp:
        conn = DVPConnection(client, namespace, cluster_uuid)
        return cls(conn, VirtualDisks(conn, L.CSI, adoptable=True), Attachments(conn, L.CSI), Snapshots(conn, L.CSI),
                   VirtualMachines(conn, L.CSI), StorageClasses(conn), guest)

    @classmethod
    def from_kubeconfig(cls, kubeconfig_base64: str, namespace: str, cluster_uuid: str,
                        metrics: RequestMetrics | None = None) -> Dvp:
        """`kubeconfig_base64`: DVP_KUBERNETES_CONFIG_BASE64 as the pod gets it (the one kubeconfig rule judges it);
        `metrics`: where the DVP requests are counted and timed (by verb and resource)."""
        from dvp_common.kube import config as kube_config

        creds = kube_config.from_kubeconfig_base64(kubeconfig_base64)
        return cls.over(KubeClient.from_credentials(creds, metrics=metrics), namespace, cluster_uuid)

    @property
    def cluster_uuid(self) -> str:
        return self.conn.cluster_uuid

    def ping(self) -> None:
        self.conn.client.list(VIRTUAL_DISK, self.conn.namespace, limit=1)

    # -- lookups ----------------------------------------------------------------------------------------------
    def volume(self, volume_id: str) -> Obj:
        """The disk of a volume; a missing or foreign disk is NotFound (an upstream one is adopted with proof)."""
        disk = self.adopted_disk(self.disks.get_or_none(volume_id))
        if disk is None or not self.disks.is_ours(disk):
            raise not_found(f"volume {volume_id}: no VirtualDisk of this cluster's CSI volumes has that name")
        return disk

    def volume_or_none(self, volume_id: str, denied: str) -> Obj | None:
        """None when missing; PermissionDenied for a foreign disk (paths that change it, e.g. DeleteVolume)."""
        disk = self.adopted_disk(self.disks.get_or_none(volume_id))
        if disk is not None and not self.disks.is_ours(disk):
            raise CsiError(grpc.StatusCode.PERMISSION_DENIED,
                           f"VirtualDisk {volume_id} is not a CSI volume of this cluster; refusing to {denied} it")
        return disk

    # -- adoption with proof ----------------------------------------------------------------------------------
    @staticmethod
    def upstream_disk_labels(name: str) -> dict[str, str]:
        """The labels the upstream driver writes on a volume's disk (besides an optional cluster UUID)."""
        return {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.VIRTUAL_DISK_NAME: name}

    def _provable(self, obj: Obj, expected: dict[str, str]) -> bool:
        return self.guest is not None and decide(obj, self.cluster_uuid, L.CSI, None, expected).provable

    def _proof(self, disk: Obj, expected: dict[str, str], proofs: dict[str, Proof] | None) -> Proof | None:
        """The proof that adopts `disk` (dvp_common.dvp.pv_proof's rule): from `proofs` when the caller read them,
        else from the guest cache, else (nothing adoptable cached) from one live read."""
        name = disk["metadata"]["name"]
        if proofs is not None:
            return proofs.get(name)
        if self.proof_cache is not None:
            cached = self.proof_cache.cached([name]).get(name)
            if cached is not None and self._adopts(disk, cached, expected):
                return cached
        return self.pv_proofs().get(name)

    def _adopts(self, disk: Obj, proof: Proof, expected: dict[str, str]) -> bool:
        return decide(disk, self.cluster_uuid, L.CSI, proof, expected).verdict is Verdict.ADOPT

    def pv_proofs(self) -> dict[str, Proof]:
        """volumeHandle -> the proof a PersistentVolume of this guest cluster and driver gives, read live once."""
        assert self.guest is not None
        return guest_proofs.read(self.guest)

    def adopted_disk(self, disk: Obj | None, proofs: dict[str, Proof] | None = None) -> Obj | None:
        """`disk` as it is when ours or not provable; adopted (labels written once) when a PV of this cluster
        names it. `proofs`: the proofs read once for many disks (a pass)."""
        if disk is None or self.disks.is_ours(disk):
            return disk
        name = disk["metadata"]["name"]
        expected = self.upstream_disk_labels(name)
        if not self._provable(disk, expected):
            return disk
        proof = self._proof(disk, expected, proofs)
        if proof is None or not self._adopts(disk, proof, expected):
            return disk  # no proof, or one too weak for this disk: foreign as before
        try:
            adopted = self.disks.adopt(disk, proof, expected)
        except Conflict:
            # changed since read: adopted meanwhile by a concurrent call (then it is ours now), else the caller retries
            again = self.disks.get_or_none(name)
            if again is not None and again["metadata"]["uid"] == disk["metadata"]["uid"] and self.disks.is_ours(again):
                return again
            raise
        self._count("VirtualDisk")
        return adopted

    def adopt_attachments(self, volume_id: str, node_id: str, vm_name: str) -> None:
        """Adopt the upstream attachment `vmbda-<volume>-<node>` of an adopted (or our) disk to the node's VM:
        its labels name the disk and the node, its spec the disk and the VM, and the guest Node's providerID
        names that VM, one of this cluster's."""
        if self.guest is None or not vm_name:
            return
        # upstream's name is the only one adopted: one read by it, not a list that scans every attachment
        att = self.attachments.get_or_none(f"vmbda-{volume_id}-{node_id}")
        found = [att] if att is not None and not self.attachments.is_ours(att) else []
        if not found:
            return
        if instances.vm_named_by(get_or_none(self.guest, NODE, node_id)) != vm_name:
            return
        expected = {L.VIRTUAL_MACHINE_DISK_NAME: volume_id, L.VIRTUAL_MACHINE_NAME: node_id}
        for att in found:
            spec = att.get("spec") or {}
            ref = spec.get("blockDeviceRef") or {}
            if att["metadata"]["name"] != f"vmbda-{volume_id}-{node_id}" or spec.get("virtualMachineName") != vm_name \
                    or ref.get("kind") != "VirtualDisk" or ref.get("name") != volume_id:
                continue
            decision = decide(att, self.cluster_uuid, L.CSI, None, expected)
            if decision.verdict is not Verdict.FOREIGN or not decision.provable:
                continue
            self.attachments.adopt(att, Proof("Node", node_id, f"providerID of VirtualMachine {vm_name}; "
                                              f"VirtualDisk {volume_id} adopted", strong=True), expected)
            self._count("VirtualMachineBlockDeviceAttachment")

    def adopted_volumes(self) -> list[Obj]:
        """ListVolumes: the upstream disks a PV of this cluster names, adopted now (the PVs read once)."""
        if self.guest is None:
            return []
        candidates = [d for d in self.disks.list({L.MANAGED_BY: L.MANAGED_BY_VALUE}, ours=False)
                      if not self.disks.is_ours(d)
                      and self._provable(d, self.upstream_disk_labels(d["metadata"]["name"]))]
        if not candidates:
            return []
        proofs: dict[str, Proof] = {}
        if self.proof_cache is not None:
            proofs = self.proof_cache.cached([d["metadata"]["name"] for d in candidates])
        unproven = [d for d in candidates if not (d["metadata"]["name"] in proofs and self._adopts(
            d, proofs[d["metadata"]["name"]], self.upstream_disk_labels(d["metadata"]["name"])))]
        if unproven:  # the cache may lag a PV or claim just made: one live read for the whole pass
            live = self.pv_proofs()
            proofs.update({d["metadata"]["name"]: live[d["metadata"]["name"]] for d in unproven
                           if d["metadata"]["name"] in live})
        out = []
        for disk in candidates:
            adopted = self.adopted_disk(disk, proofs)
            if adopted is not None and self.disks.is_ours(adopted):
                out.append(adopted)
        return out

    def _count(self, kind: str) -> None:
        log.debug("adopted a %s", kind)
        if self.on_adopt is not None:
            self.on_adopt(kind)

    def snapshot(self, snapshot_id: str) -> Obj:
        vds = self.snapshots.get_or_none(snapshot_id)
        if vds is None or not self.snapshots.is_ours(vds):
            raise not_found(f"snapshot {snapshot_id}: no VirtualDiskSnapshot of this cluster has that name")
        return vds

    def vm_of_node(self, node_id: str) -> Obj | None:
        """The VM of a guest node: found by hostname label among this cluster's node VMs, else the upstream VM the
        guest Node names (`node_named_vm`)."""
        vms = self.vms.list({L.HOSTNAME: node_id})
        if len(vms) > 1:
            names = ", ".join(sorted(v["metadata"]["name"] for v in vms))
            raise CsiError(grpc.StatusCode.FAILED_PRECONDITION, f"node {node_id}: several VirtualMachines ({names})")
        return vms[0] if vms else self.node_named_vm(node_id)

    def node_named_vm(self, node_id: str) -> Obj | None:
        """dhctl's master or static VM of an upstream-built cluster (our cluster UUID, no component label, so never
        listed as ours) that the guest Node `node_id` names in its providerID, with `node_id` as its hostname
        (`dvp_common.dvp.instances.named_by_node`): the attach target, read only (never labelled nor patched; the
        attachments made to it are ours). One read of the Node: none is cached here. Without the guest API there
        is no Node to prove it, so None."""
        if self.guest is None or not node_id:
            return None
        vm_name = instances.vm_named_by(get_or_none(self.guest, NODE, node_id))
        if vm_name is None:
            return None
        vm = self.vms.get_or_none(vm_name)
        return vm if instances.named_by_node(vm, self.cluster_uuid, node_id) else None

    def vm_alive(self, vm_name: str) -> bool:
        """Read only: any VM of that name that runs counts as alive, so nothing is detached on a doubt."""
        return disks.vm_alive(self.vms.get_or_none(vm_name))
