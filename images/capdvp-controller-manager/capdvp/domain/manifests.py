# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVP objects of one machine, built from its spec: VirtualMachine, cloud-init Secret, VirtualDisks."""

from __future__ import annotations

import base64
from collections.abc import Mapping

from capdvp.domain import names, ownership
from capdvp.domain.machine_spec import MachineSpec

VIRT_API = "virtualization.deckhouse.io/v1alpha2"
CLOUD_INIT_SECRET_TYPE = "provisioning.virtualization.deckhouse.io/cloud-init"  # noqa: S105 (a type name)


def live_migration_policy(spec: MachineSpec, control_plane: bool) -> str:
    if spec.live_migration_policy:
        return spec.live_migration_policy
    # A control-plane VM must move even when it cannot migrate safely; workers can be drained instead.
    return "PreferForced" if control_plane else "PreferSafe"


def _meta(name: str, labels: Mapping[str, str], extra: Mapping[str, str] | None = None) -> dict:
    return {"name": name, "labels": {**(extra or {}), **labels}}


def owner_ref(vm: Mapping) -> dict:
    meta = vm["metadata"]
    return {"apiVersion": VIRT_API, "kind": "VirtualMachine", "name": meta["name"], "uid": meta["uid"],
            "controller": True, "blockOwnerDeletion": True}


def disk_names(machine: str, spec: MachineSpec) -> list[str]:
    return [names.boot_disk_name(machine)] + [
        names.additional_disk_name(machine, i) for i in range(len(spec.additional_disks))]


def virtual_machine(machine: str, spec: MachineSpec, cluster_uuid: str, control_plane: bool,
                    extra_labels: Mapping[str, str] | None = None) -> dict:
    # Module-wide labels, then the class's, then ours: nobody can relabel a VM out of (or into) ownership.
    labels = {**(extra_labels or {}), **dict(spec.placement.labels)}
    meta = _meta(names.vm_name(machine), ownership.machine_labels(cluster_uuid, machine), labels)
    if spec.placement.annotations:
        meta["annotations"] = dict(spec.placement.annotations)
    return {"apiVersion": VIRT_API, "kind": "VirtualMachine", "metadata": meta,
            "spec": vm_spec(machine, spec, control_plane)}


def vm_spec(machine: str, spec: MachineSpec, control_plane: bool) -> dict:
    return {**_vm_core(machine, spec, control_plane), **_vm_placement(spec)}


def _vm_placement(spec: MachineSpec) -> dict:
    p = spec.placement
    out: dict = {}
    if p.node_selector:
        out["nodeSelector"] = dict(p.node_selector)
    if p.tolerations:
        out["tolerations"] = [t.to_dict() for t in p.tolerations]
    if p.priority_class:
        out["priorityClassName"] = p.priority_class
    return out


def _vm_core(machine: str, spec: MachineSpec, control_plane: bool) -> dict:
    return {
        "virtualMachineClassName": spec.vm_class,
        "runPolicy": spec.run_policy,
        "liveMigrationPolicy": live_migration_policy(spec, control_plane),
        "osType": "Generic",
        "bootloader": spec.bootloader,
        "enableParavirtualization": True,
        "cpu": {"cores": spec.cores, "coreFraction": spec.core_fraction},
        "memory": {"size": spec.memory},
        "blockDeviceRefs": [{"kind": "VirtualDisk", "name": n} for n in disk_names(machine, spec)],
        "provisioning": {"type": "UserDataRef",
                         "userDataRef": {"kind": "Secret", "name": names.cloud_init_secret_name(machine)}},
    }


def cloud_init_secret(machine: str, user_data: bytes, cluster_uuid: str, vm: Mapping) -> dict:
    meta = _meta(names.cloud_init_secret_name(machine), ownership.machine_labels(cluster_uuid, machine))
    meta["ownerReferences"] = [owner_ref(vm)]
    return {
        "apiVersion": "v1", "kind": "Secret", "metadata": meta,
        "type": CLOUD_INIT_SECRET_TYPE,
        # Immutable: a changed bootstrap script means a new Secret, never an edit under a running VM.
        "immutable": True,
        "data": {"userData": base64.b64encode(user_data).decode()},
    }


def _disk(name: str, machine: str, cluster_uuid: str, vm: Mapping, pvc: dict, data_source: dict | None) -> dict:
    meta = _meta(name, ownership.machine_labels(cluster_uuid, machine), {ownership.VIRTUAL_DISK_NAME: name})
    meta["ownerReferences"] = [owner_ref(vm)]
    spec: dict = {"persistentVolumeClaim": pvc}
    if data_source:
        spec["dataSource"] = data_source
    return {"apiVersion": VIRT_API, "kind": "VirtualDisk", "metadata": meta, "spec": spec}


def _pvc(size: str, storage_class: str) -> dict:
    pvc = {"size": size}
    if storage_class:
        pvc["storageClassName"] = storage_class
    return pvc


def boot_disk(machine: str, spec: MachineSpec, cluster_uuid: str, vm: Mapping) -> dict:
    source = {"type": "ObjectRef", "objectRef": {"kind": spec.image.kind, "name": spec.image.name}}
    return _disk(names.boot_disk_name(machine), machine, cluster_uuid, vm,
                 _pvc(spec.root_disk_size, spec.root_disk_storage_class), source)


def additional_disks(machine: str, spec: MachineSpec, cluster_uuid: str, vm: Mapping) -> list[dict]:
    return [_disk(names.additional_disk_name(machine, i), machine, cluster_uuid, vm,
                  _pvc(d.size, d.storage_class), None) for i, d in enumerate(spec.additional_disks)]


def owned_objects(machine: str, spec: MachineSpec, cluster_uuid: str, vm: Mapping, user_data: bytes) -> list[dict]:
    """Everything a VM needs besides itself, in creation order."""
    return [cloud_init_secret(machine, user_data, cluster_uuid, vm), boot_disk(machine, spec, cluster_uuid, vm),
            *additional_disks(machine, spec, cluster_uuid, vm)]


def vmop(machine: str, op: str, generation: int, cluster_uuid: str, vm: Mapping) -> dict:
    meta = _meta(names.vmop_name(machine, op, generation), ownership.machine_labels(cluster_uuid, machine))
    meta["ownerReferences"] = [owner_ref(vm)]
    return {"apiVersion": VIRT_API, "kind": "VirtualMachineOperation", "metadata": meta,
            "spec": {"type": op, "virtualMachineName": names.vm_name(machine)}}


def vmbda(machine: str, disk: str, cluster_uuid: str, vm: Mapping) -> dict:
    meta = _meta(names.vmbda_name(disk, machine), ownership.machine_labels(cluster_uuid, machine),
                 {ownership.VIRTUAL_MACHINE_DISK_NAME: disk, ownership.VIRTUAL_MACHINE_NAME: machine})
    meta["ownerReferences"] = [owner_ref(vm)]
    return {"apiVersion": VIRT_API, "kind": "VirtualMachineBlockDeviceAttachment", "metadata": meta,
            "spec": {"virtualMachineName": names.vm_name(machine),
                     "blockDeviceRef": {"kind": "VirtualDisk", "name": disk}}}
