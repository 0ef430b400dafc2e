# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""In-place update rule: which spec changes a running machine takes, and how.

* hot: applied to the running VM (new additional disks hot-plugged, runPolicy, liveMigrationPolicy);
* warm: Stop (VirtualMachineOperation) -> patch the VM / grow the boot disk -> Start
  (VM class, cores, core fraction, memory, boot disk growth);
* recreate: anything else (bootloader, boot image, boot disk storage class or shrink, a changed or removed
  additional disk). capdvp never does these in place: the Machine has to be replaced by a rollout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

from dvp_common.quantity import parse_quantity

from capdvp.domain.machine_spec import Disk, ImageRef, MachineSpec


class Kind(IntEnum):
    NONE = 0
    HOT = 1
    WARM = 2
    RECREATE = 3


@dataclass(frozen=True)
class Actual:
    """The running machine as DVP shows it."""

    vm_class: str
    cores: int
    core_fraction: str
    memory: str
    bootloader: str
    run_policy: str
    live_migration_policy: str
    root_size: str
    root_storage_class: str
    image: ImageRef
    additional_disks: tuple[Disk, ...] = ()


@dataclass(frozen=True)
class Plan:
    kind: Kind
    changes: tuple[str, ...] = field(default_factory=tuple)  # field names, for conditions and logs
    new_disks: tuple[int, ...] = ()  # indexes of additional disks to create and hot-plug


def actual_from(vm: Mapping, boot_disk: Mapping, additional: Sequence[Mapping]) -> Actual:
    spec = vm.get("spec") or {}
    boot = boot_disk.get("spec") or {}
    src = (boot.get("dataSource") or {}).get("objectRef") or {}
    return Actual(
        vm_class=spec.get("virtualMachineClassName", ""),
        cores=int((spec.get("cpu") or {}).get("cores", 0)),
        core_fraction=(spec.get("cpu") or {}).get("coreFraction", ""),
        memory=str((spec.get("memory") or {}).get("size", "0")),
        bootloader=spec.get("bootloader", ""),
        run_policy=spec.get("runPolicy", ""),
        live_migration_policy=spec.get("liveMigrationPolicy", ""),
        root_size=str((boot.get("persistentVolumeClaim") or {}).get("size", "0")),
        root_storage_class=(boot.get("persistentVolumeClaim") or {}).get("storageClassName", ""),
        image=ImageRef(kind=src.get("kind", ""), name=src.get("name", "")),
        additional_disks=tuple(
            Disk(size=str((d.get("spec", {}).get("persistentVolumeClaim") or {}).get("size", "0")),
                 storage_class=(d.get("spec", {}).get("persistentVolumeClaim") or {}).get("storageClassName", ""))
            for d in additional),
    )


def _q(a: str) -> object:
    return parse_quantity(a)


def classify(desired: MachineSpec, desired_lmp: str, actual: Actual) -> Plan:
    recreate, warm, hot = [], [], []
    if desired.bootloader != actual.bootloader:
        recreate.append("bootloader")
    if desired.image != actual.image:
        recreate.append("bootDiskImageRef")
    # An empty storage class means "the DVP default": only a named class that differs is a change.
    if desired.root_disk_storage_class and desired.root_disk_storage_class != actual.root_storage_class:
        recreate.append("rootDiskStorageClass")
    if _q(desired.root_disk_size) < _q(actual.root_size):
        recreate.append("rootDiskSize")
    elif _q(desired.root_disk_size) > _q(actual.root_size):
        warm.append("rootDiskSize")
    have, want = actual.additional_disks, desired.additional_disks
    if len(want) < len(have):
        recreate.append("additionalDisks")
    for i, (w, h) in enumerate(zip(want, have, strict=False)):
        if _q(w.size) != _q(h.size) or (w.storage_class and w.storage_class != h.storage_class):
            recreate.append(f"additionalDisks[{i}]")
    new_disks = tuple(range(len(have), len(want))) if len(want) > len(have) else ()
    if new_disks:
        hot.append("additionalDisks")
    if desired.vm_class != actual.vm_class:
        warm.append("vmClassName")
    if desired.cores != actual.cores:
        warm.append("cpu.cores")
    # No core fraction named means "the class's default", which DVP wrote into the VM: only a named one that
    # differs is a change.
    if desired.core_fraction and desired.core_fraction != actual.core_fraction:
        warm.append("cpu.cpuFraction")
    if _q(desired.memory) != _q(actual.memory):
        warm.append("memory")
    if desired.run_policy != actual.run_policy:
        hot.append("runPolicy")
    if desired_lmp != actual.live_migration_policy:
        hot.append("liveMigrationPolicy")
    if recreate:
        return Plan(Kind.RECREATE, tuple(recreate))
    if warm:
        return Plan(Kind.WARM, tuple(warm + hot), new_disks)
    if hot:
        return Plan(Kind.HOT, tuple(hot), new_disks)
    return Plan(Kind.NONE)


# How DVP lets a warm update restart the VM, by the VM's current runPolicy (DVP fails a VirtualMachineOperation
# its policy does not permit): Stop and Start only under Manual and AlwaysOnUnlessStoppedManually; under AlwaysOn
# only Restart, which applies a patched spec on the way; under AlwaysOff nothing (the VM never runs).
STOP_START, RESTART = "stop-start", "restart"
_METHODS = {"Manual": STOP_START, "AlwaysOnUnlessStoppedManually": STOP_START, "AlwaysOn": RESTART}

# VirtualMachineOperation phases after which DVP accepts the next operation on the same VM.
VMOP_FINISHED = frozenset({"Completed", "Failed", "Superseded"})


def warm_method(run_policy: str) -> str:
    """STOP_START, RESTART, or "" when DVP offers no way to restart the VM."""
    return _METHODS.get(run_policy, "")


def unfinished_operations(vmops: Sequence[Mapping], vm_name: str) -> list[Mapping]:
    """Operations on this VM DVP still counts: it refuses (403) a new one while any is unfinished."""
    return [o for o in vmops if (o.get("spec") or {}).get("virtualMachineName") == vm_name
            and (o.get("status") or {}).get("phase") not in VMOP_FINISHED]
