# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The report's rows an upstream world (testkit.upstream) must get, written out once for the pure and the real
tests: (outcome, side, kind, name, component, reason), in the report's order."""

from __future__ import annotations

from collections.abc import Callable

from dvp_common.dvp import labels as L
from dvp_common.takeover import plan as T

from testkit.upstream import GUEST, PARENT, UpstreamWorld
from testkit.upstream import parent as P

MACHINES = "d8-cloud-instance-manager"
NAMES_NOTHING = f"{L.CLUSTER_UUID} empty or absent but no object of this cluster names it: a name alone proves nothing"
OTHER = f"{L.CLUSTER_UUID} names another cluster"
POLICY = "left to dhctl's layouts (no component changes a NetworkPolicy)"
Rows = list[tuple[str, str, str, str, str, str]]


def rows(rep: T.Report) -> Rows:
    return [(r.outcome.value, r.side, r.kind, r.name, r.component, r.reason) for r in rep.rows]


def ordered(found: Rows) -> Rows:
    return sorted(found, key=lambda r: T.row_order(T.Row(r[1], r[2], r[3], T.Outcome(r[0]), r[4], r[5])))


def master_names(prefix: str, uuid: str) -> tuple[str, str, str, str, str]:
    """(VM, root disk, etcd disk, address, cloud-init Secret) of master 0 as upstream's layout names them."""
    root, etcd = P.root_disk(prefix, 0, uuid), P.etcd_disk(prefix, 0, uuid)
    vm = P.master_vm(prefix, 0, uuid, root, etcd)
    return (vm["metadata"]["name"], root["metadata"]["name"], etcd["metadata"]["name"], f"{prefix}-master-0-auto",
            vm["spec"]["provisioning"]["userDataRef"]["name"])


def ours(w: UpstreamWorld, vm_uid: Callable[[str], str]) -> Rows:
    """A clean upstream world of one master, one worker, one volume, one load balancer; `vm_uid(name)`: a VM's
    uid as stored."""
    vm, root, etcd, address, cloudinit = master_names(w.prefix, w.uuid)
    worker, disk, att, lb, svc = w.machines[0], w.volumes[0], w.attachments[0], w.load_balancers[0], w.services[0]
    by_machine = (f"adopted: named by VirtualMachine {worker} of this cluster (ownerReference uid {vm_uid(worker)}; "
                  f"adopted for DeckhouseMachine {MACHINES}/{worker})")
    of_master = f"dhctl's, of VirtualMachine {vm} (its ownerReference); no component changes it, the layouts keep it"
    master_node = P.master_hostname(w.prefix, 0)
    return ordered([
        ("read", PARENT, "VirtualMachine", vm, "ccm",
         f"read as this cluster's instance (named by Node {master_node} of this cluster (providerID)); never written"),
        ("adopted", PARENT, "VirtualMachine", worker, "capdvp",
         f"adopted: named by DeckhouseMachine {MACHINES}/{worker} of this cluster (name)"),
        ("foreign", PARENT, "VirtualDisk", root, "", of_master),
        ("foreign", PARENT, "VirtualDisk", etcd, "", of_master),
        ("adopted", PARENT, "VirtualDisk", f"{worker}-additional-disk-0", "capdvp", by_machine),
        ("adopted", PARENT, "VirtualDisk", f"{worker}-boot", "capdvp", by_machine),
        ("adopted", PARENT, "VirtualDisk", disk, "csi",
         f"adopted: named by PersistentVolume {disk} of this cluster (volumeHandle; bound to PersistentVolumeClaim "
         f"app/data-0, uid {disk.removeprefix('pvc-')})"),
        ("adopted", PARENT, "VirtualMachineBlockDeviceAttachment", att, "csi",
         f"adopted: named by Node {worker} of this cluster (providerID of VirtualMachine {worker}; VirtualDisk "
         f"{disk} adopted)"),
        ("foreign", PARENT, "VirtualMachineIPAddress", address, "", of_master),
        ("adopted", PARENT, "Secret", f"cloud-init-{worker}", "capdvp", by_machine),
        ("foreign", PARENT, "Secret", cloudinit, "", of_master),
        ("adopted", PARENT, "Service", lb, "ccm", f"adopted: named by Service {svc} of this cluster (metadata.uid)"),
        ("foreign", PARENT, "NetworkPolicy", f"isolated-{w.prefix}", "", POLICY),
        ("kept", GUEST, "Node", master_node, "ccm", f"VirtualMachine {vm} is read"),
        ("kept", GUEST, "Node", worker, "ccm", f"VirtualMachine {worker} is adopted"),
        ("kept", GUEST, "DeckhouseMachine", f"{MACHINES}/{worker}", "capdvp", f"VirtualMachine {worker} is adopted"),
        ("kept", GUEST, "PersistentVolume", disk, "csi", f"VirtualDisk {disk} is adopted"),
        ("kept", GUEST, "Service", svc, "ccm", f"Service {lb} is adopted"),
    ])


def theirs(other: UpstreamWorld) -> Rows:
    """Another upstream-built cluster's objects beside ours (one of each, CSI disks of a release that left the
    cluster UUID empty, cloud-init Secrets without labels): all foreign, none adopted."""
    vm, root, etcd, address, cloudinit = master_names(other.prefix, other.uuid)
    worker = f"{other.prefix}-worker-0"
    found = [("VirtualMachine", vm, OTHER), ("VirtualMachine", worker, OTHER),
             ("VirtualDisk", root, OTHER), ("VirtualDisk", etcd, OTHER),
             ("VirtualDisk", f"{worker}-additional-disk-0", OTHER), ("VirtualDisk", f"{worker}-boot", OTHER),
             ("VirtualDisk", other.volumes[0], NAMES_NOTHING),
             ("VirtualMachineBlockDeviceAttachment", other.attachments[0], NAMES_NOTHING),
             ("VirtualMachineIPAddress", address, OTHER),
             ("Secret", f"cloud-init-{worker}", NAMES_NOTHING), ("Secret", cloudinit, NAMES_NOTHING),
             ("Service", other.load_balancers[0], NAMES_NOTHING), ("NetworkPolicy", f"isolated-{other.prefix}", OTHER)]
    return ordered([("foreign", PARENT, kind, name, "", why) for kind, name, why in found])
