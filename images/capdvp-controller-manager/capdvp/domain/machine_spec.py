# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DeckhouseMachine spec as a typed value, parsed with one-line errors that name the field."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dvp_common.dvp import labels as L
from dvp_common.dvp import node_selector as N
from dvp_common.quantity import QuantityError, parse_quantity

IMAGE_KINDS = ("ClusterVirtualImage", "VirtualImage", "VirtualDiskSnapshot")
BOOTLOADERS = ("BIOS", "EFI", "EFIWithSecureBoot")
RUN_POLICIES = ("AlwaysOn", "AlwaysOff", "Manual", "AlwaysOnUnlessStoppedManually")
LIVE_MIGRATION_POLICIES = ("AlwaysSafe", "PreferSafe", "AlwaysForced", "PreferForced")  # DVP's enum
TOLERATION_OPERATORS = ("Exists", "Equal")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
MAX_ADDITIONAL_DISKS = 14  # DVP allows 16 block devices; the boot disk and one CSI volume need room
_FRACTION = re.compile(r"^(100|[1-9][0-9]?)%$")
_DNS = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


class SpecError(ValueError):
    """A bad field; the message starts with the field path."""


@dataclass(frozen=True)
class Disk:
    size: str
    storage_class: str = ""


@dataclass(frozen=True)
class ImageRef:
    kind: str
    name: str


@dataclass(frozen=True)
class Toleration:
    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    seconds: int | None = None

    def to_dict(self) -> dict:
        out: dict = {k: v for k, v in (("key", self.key), ("operator", self.operator), ("value", self.value),
                                       ("effect", self.effect)) if v}
        if self.seconds is not None:
            out["tolerationSeconds"] = self.seconds
        return out


Pairs = tuple[tuple[str, str], ...]  # a string map, sorted, so the spec stays hashable


@dataclass(frozen=True)
class Placement:
    """Where DVP runs the VM and how it is tagged: carried from the DVPInstanceClass, applied at creation."""

    labels: Pairs = ()
    annotations: Pairs = ()
    node_selector: Pairs = ()
    node_selector_terms: tuple[N.Term, ...] = ()  # the VM's required node affinity
    priority_class: str = ""
    tolerations: tuple[Toleration, ...] = ()


@dataclass(frozen=True)
class MachineSpec:
    vm_class: str
    cores: int
    core_fraction: str  # "" when the machine names none: the VM then gets its class's default (DVP's defaulting)
    memory: str
    root_disk_size: str
    root_disk_storage_class: str
    image: ImageRef
    bootloader: str
    run_policy: str
    live_migration_policy: str  # "" = decided by the machine role
    additional_disks: tuple[Disk, ...] = field(default_factory=tuple)
    placement: Placement = field(default_factory=Placement)


def _str(spec: dict, key: str, path: str, default: str = "") -> str:
    value = spec.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise SpecError(f"{path}.{key}: must be a string, got {type(value).__name__}")
    return value


def _enum(spec: dict, key: str, path: str, allowed: tuple[str, ...], default: str) -> str:
    value = _str(spec, key, path, default)
    if value and value not in allowed:
        raise SpecError(f"{path}.{key}: {value!r} is not one of {', '.join(allowed)}")
    return value


def _qty(value: Any, where: str, positive: bool = True) -> str:
    if value is None or value == "":
        raise SpecError(f"{where}: required")
    try:
        q = parse_quantity(value).amount
    except QuantityError as exc:
        raise SpecError(f"{where}: {exc}") from None
    if positive and q <= 0:
        raise SpecError(f"{where}: must be greater than zero")
    return str(value)


def _pairs(spec: dict, key: str, path: str, dvp_metadata: str = "") -> Pairs:
    """A string map; `dvp_metadata` ("label" or "annotation") also applies DVP's rule for VM metadata."""
    value = spec.get(key) or {}
    if not isinstance(value, dict):
        raise SpecError(f"{path}.{key}: must be a map of strings")
    for k, v in value.items():
        if not isinstance(v, str):
            raise SpecError(f"{path}.{key}.{k}: must be a string, got {type(v).__name__}")
        refused = L.refused_metadata(k, v, label=dvp_metadata == "label") if dvp_metadata else None
        if refused:
            raise SpecError(f"{path}.{key}: {refused}")
    return tuple(sorted(value.items()))


def _tolerations(spec: dict, path: str) -> tuple[Toleration, ...]:
    raw = spec.get("tolerations") or []
    if not isinstance(raw, list):
        raise SpecError(f"{path}.tolerations: must be a list")
    out = []
    for i, t in enumerate(raw):
        where = f"{path}.tolerations[{i}]"
        if not isinstance(t, dict):
            raise SpecError(f"{where}: must be an object")
        seconds = t.get("tolerationSeconds")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int)):
            raise SpecError(f"{where}.tolerationSeconds: must be an integer, got {seconds!r}")
        out.append(Toleration(key=_str(t, "key", where), operator=_enum(t, "operator", where, TOLERATION_OPERATORS, ""),
                              value=_str(t, "value", where), effect=_enum(t, "effect", where, TAINT_EFFECTS, ""),
                              seconds=seconds))
    return tuple(out)


def _terms(spec: dict, path: str) -> tuple[N.Term, ...]:
    try:
        return N.parse_terms(spec.get(N.TERMS), f"{path}.{N.TERMS}")
    except N.SelectorError as exc:
        raise SpecError(str(exc)) from None


def _placement(spec: dict, path: str) -> Placement:
    return Placement(labels=_pairs(spec, "additionalLabels", path, "label"),
                     annotations=_pairs(spec, "additionalAnnotations", path, "annotation"),
                     node_selector=_pairs(spec, "nodeSelector", path),
                     node_selector_terms=_terms(spec, path),
                     priority_class=_str(spec, "priorityClassName", path),
                     tolerations=_tolerations(spec, path))


def parse_spec(spec: dict | None, path: str = "spec") -> MachineSpec:
    if not isinstance(spec, dict):
        raise SpecError(f"{path}: must be an object")
    vm_class = _str(spec, "vmClassName", path)
    if not vm_class:
        raise SpecError(f"{path}.vmClassName: required")
    if not _DNS.match(vm_class):
        raise SpecError(f"{path}.vmClassName: {vm_class!r} is not a valid object name")
    cpu = spec.get("cpu") or {}
    if not isinstance(cpu, dict):
        raise SpecError(f"{path}.cpu: must be an object")
    cores = cpu.get("cores", 4)
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        raise SpecError(f"{path}.cpu.cores: must be an integer >= 1, got {cores!r}")
    fraction = _str(cpu, "cpuFraction", f"{path}.cpu")
    if fraction and not _FRACTION.match(fraction):
        raise SpecError(f"{path}.cpu.cpuFraction: {fraction!r} must be a percentage from 1% to 100%")
    image = spec.get("bootDiskImageRef")
    if not isinstance(image, dict) or not image.get("name"):
        raise SpecError(f"{path}.bootDiskImageRef.name: required")
    image_kind = _enum(image, "kind", f"{path}.bootDiskImageRef", IMAGE_KINDS, "VirtualImage")
    disks_raw = spec.get("additionalDisks") or []
    if not isinstance(disks_raw, list):
        raise SpecError(f"{path}.additionalDisks: must be a list")
    if len(disks_raw) > MAX_ADDITIONAL_DISKS:
        raise SpecError(f"{path}.additionalDisks: at most {MAX_ADDITIONAL_DISKS} disks, got {len(disks_raw)}")
    disks = []
    for i, d in enumerate(disks_raw):
        where = f"{path}.additionalDisks[{i}]"
        if not isinstance(d, dict):
            raise SpecError(f"{where}: must be an object")
        disks.append(Disk(size=_qty(d.get("size"), f"{where}.size"),
                          storage_class=_str(d, "storageClass", where)))
    return MachineSpec(
        vm_class=vm_class,
        cores=cores,
        core_fraction=fraction,
        memory=_qty(spec.get("memory", "8Gi"), f"{path}.memory"),
        root_disk_size=_qty(spec.get("rootDiskSize"), f"{path}.rootDiskSize"),
        root_disk_storage_class=_str(spec, "rootDiskStorageClass", path),
        image=ImageRef(kind=image_kind, name=str(image["name"])),
        bootloader=_enum(spec, "bootloader", path, BOOTLOADERS, "EFI"),
        run_policy=_enum(spec, "runPolicy", path, RUN_POLICIES, "AlwaysOnUnlessStoppedManually"),
        live_migration_policy=_enum(spec, "liveMigrationPolicy", path, LIVE_MIGRATION_POLICIES, ""),
        additional_disks=tuple(disks),
        placement=_placement(spec, path),
    )
