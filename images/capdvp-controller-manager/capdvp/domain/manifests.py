# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVP objects of one machine, built from its spec: VirtualMachine, cloud-init Secret, VirtualDisks,
operations and attachments. The bodies come from dvp_common.dvp.manifests (ownerReferences, labels, API version
decided there); this module only says what a DeckhouseMachine's spec puts into them."""

from __future__ import annotations

from collections.abc import Mapping

from dvp_common.dvp import labels as L
from dvp_common.dvp import manifests as m
from dvp_common.dvp import node_selector as N

from capdvp.domain import names, zones
from capdvp.domain.machine_spec import MachineSpec


def live_migration_policy(spec: MachineSpec, control_plane: bool) -> str:
    if spec.live_migration_policy:
        return spec.live_migration_policy
    # A control-plane VM must move even when it cannot migrate safely; workers can be drained instead.
    return "PreferForced" if control_plane else "PreferSafe"


def _meta(name: str, cluster_uuid: str, machine: str, extra: Mapping[str, str] | None = None,
          owner: Mapping | None = None, annotations: Mapping[str, str] | None = None) -> dict:
    # The machine's hostname label comes after any extra label: nobody can move an object to another machine.
    return m.metadata(name, cluster_uuid, L.CAPDVP, {**(extra or {}), L.HOSTNAME: machine},
                      annotations=annotations, owner=owner)


def disk_names(machine: str, spec: MachineSpec) -> list[str]:
    return [names.boot_disk_name(machine)] + [
        names.additional_disk_name(machine, i) for i in range(len(spec.additional_disks))]


def virtual_machine(machine: str, spec: MachineSpec, cluster_uuid: str, control_plane: bool,
                    extra_labels: Mapping[str, str] | None = None, zone: str = "") -> dict:
    # Module-wide labels, then the class's, then ours: nobody can relabel a VM out of (or into) ownership.
    labels = {**(extra_labels or {}), **dict(spec.placement.labels)}
    meta = _meta(names.vm_name(machine), cluster_uuid, machine, labels,
                 annotations=dict(spec.placement.annotations) or None)
    return m.virtual_machine(meta, vm_spec(machine, spec, control_plane, zone))


def vm_spec(machine: str, spec: MachineSpec, control_plane: bool, zone: str = "") -> dict:
    return {**_vm_core(machine, spec, control_plane), **_vm_placement(spec, zone)}


def _vm_placement(spec: MachineSpec, zone: str) -> dict:
    p = spec.placement
    out: dict = {}
    # The machine's failure domain wins over a zone in the class's nodeSelector: Cluster API asked for it.
    selector = {**dict(p.node_selector), **({zones.ZONE_LABEL: zone} if zone else {})}
    if selector:
        out["nodeSelector"] = selector
    # The class's nodeSelectorTerms: DVP's VM carries them as required node affinity; they AND with the zone.
    affinity = N.affinity(p.node_selector_terms)
    if affinity:
        out["affinity"] = affinity
    if p.tolerations:
        out["tolerations"] = [t.to_dict() for t in p.tolerations]
    if p.priority_class:
        out["priorityClassName"] = p.priority_class
    return out


def cpu(spec: MachineSpec) -> dict:
    """The VM's `spec.cpu`: without a core fraction when the machine names none, so DVP applies the class's
    sizing policy's `defaultCoreFraction` (100% when it has none)."""
    return {"cores": spec.cores, **({"coreFraction": spec.core_fraction} if spec.core_fraction else {})}


def _vm_core(machine: str, spec: MachineSpec, control_plane: bool) -> dict:
    return {
        "virtualMachineClassName": spec.vm_class,
        "runPolicy": spec.run_policy,
        "liveMigrationPolicy": live_migration_policy(spec, control_plane),
        "osType": "Generic",
        "bootloader": spec.bootloader,
        "enableParavirtualization": True,
        "cpu": cpu(spec),
        "memory": {"size": spec.memory},
        "blockDeviceRefs": [{"kind": "VirtualDisk", "name": n} for n in disk_names(machine, spec)],
        "provisioning": {"type": "UserDataRef",
                         "userDataRef": {"kind": "Secret", "name": names.cloud_init_secret_name(machine)}},
    }


def cloud_init_secret(machine: str, user_data: bytes, cluster_uuid: str, vm: Mapping) -> dict:
    return m.cloud_init_secret(_meta(names.cloud_init_secret_name(machine), cluster_uuid, machine, owner=vm),
                               user_data)


def _disk(name: str, machine: str, cluster_uuid: str, vm: Mapping, size: str, storage_class: str,
          data_source: dict | None) -> dict:
    meta = _meta(name, cluster_uuid, machine, {L.VIRTUAL_DISK_NAME: name}, owner=vm)
    return m.virtual_disk(meta, size, storage_class, data_source)


def boot_disk(machine: str, spec: MachineSpec, cluster_uuid: str, vm: Mapping) -> dict:
    return _disk(names.boot_disk_name(machine), machine, cluster_uuid, vm, spec.root_disk_size,
                 spec.root_disk_storage_class, m.image_source(spec.image.kind, spec.image.name))


def additional_disks(machine: str, spec: MachineSpec, cluster_uuid: str, vm: Mapping) -> list[dict]:
    return [_disk(names.additional_disk_name(machine, i), machine, cluster_uuid, vm, d.size, d.storage_class, None)
            for i, d in enumerate(spec.additional_disks)]


def owned_objects(machine: str, spec: MachineSpec, cluster_uuid: str, vm: Mapping, user_data: bytes) -> list[dict]:
    """Everything a VM needs besides itself, in creation order."""
    return [cloud_init_secret(machine, user_data, cluster_uuid, vm), boot_disk(machine, spec, cluster_uuid, vm),
            *additional_disks(machine, spec, cluster_uuid, vm)]


def vmop(machine: str, op: str, generation: int, cluster_uuid: str, vm: Mapping) -> dict:
    meta = _meta(names.vmop_name(machine, op, generation), cluster_uuid, machine, owner=vm)
    return m.operation(meta, names.vm_name(machine), op)


def vmbda(machine: str, disk: str, cluster_uuid: str, vm: Mapping) -> dict:
    meta = _meta(names.vmbda_name(disk, machine), cluster_uuid, machine,
                 {L.VIRTUAL_MACHINE_DISK_NAME: disk, L.VIRTUAL_MACHINE_NAME: machine}, owner=vm)
    return m.attachment(meta, names.vm_name(machine), disk)
