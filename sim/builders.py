# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Builders of DVP objects as the provider writes them, and wait predicates, for tests on the simulator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

WAIT = 20.0  # seconds: bound of every wait in the simulator tests
GV = "virtualization.deckhouse.io/v1alpha2"


def disk(name: str, size: str | None = "1Gi", storage_class: str | None = "sim-fast",
         source: tuple[str, str] | None = None, owner: dict | None = None) -> dict:
    pvc: dict[str, Any] = {}
    if size:
        pvc["size"] = size
    if storage_class:
        pvc["storageClassName"] = storage_class
    spec: dict[str, Any] = {"persistentVolumeClaim": pvc}
    if source:
        spec["dataSource"] = {"type": "ObjectRef", "objectRef": {"kind": source[0], "name": source[1]}}
    md: dict[str, Any] = {"name": name}
    if owner:
        md["ownerReferences"] = [owner_ref(owner)]
    return {"apiVersion": GV, "kind": "VirtualDisk", "metadata": md, "spec": spec}


def vm(name: str, disks: list[str], user_data: str | None = None, run_policy: str | None = None) -> dict:
    spec: dict[str, Any] = {"virtualMachineClassName": "generic", "cpu": {"cores": 1}, "memory": {"size": "1Gi"},
                            "blockDeviceRefs": [{"kind": "VirtualDisk", "name": d} for d in disks]}
    if user_data:  # the name of the cloud-init Secret
        spec["provisioning"] = {"type": "UserDataRef", "userDataRef": {"kind": "Secret", "name": user_data}}
    if run_policy:
        spec["runPolicy"] = run_policy
    return {"apiVersion": GV, "kind": "VirtualMachine", "metadata": {"name": name}, "spec": spec}


def cloud_init(name: str, owner: dict | None = None) -> dict:
    md: dict[str, Any] = {"name": name}
    if owner:
        md["ownerReferences"] = [owner_ref(owner)]
    return {"apiVersion": "v1", "kind": "Secret", "metadata": md,
            "type": "provisioning.virtualization.deckhouse.io/cloud-init", "stringData": {"userData": "#cloud-config"}}


def vmbda(name: str, vm_name: str, disk_name: str) -> dict:
    return {"apiVersion": GV, "kind": "VirtualMachineBlockDeviceAttachment", "metadata": {"name": name},
            "spec": {"virtualMachineName": vm_name, "blockDeviceRef": {"kind": "VirtualDisk", "name": disk_name}}}


def vmop(name: str, vm_name: str, kind: str) -> dict:
    return {"apiVersion": GV, "kind": "VirtualMachineOperation", "metadata": {"name": name},
            "spec": {"type": kind, "virtualMachineName": vm_name}}


def owner_ref(owner: dict) -> dict:
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}


def phase_is(*phases: str) -> Callable[[dict | None], bool]:
    return lambda obj: obj is not None and (obj.get("status") or {}).get("phase") in phases


def gone(obj: dict | None) -> bool:
    return obj is None


def condition(obj: dict, ctype: str) -> dict:
    return next(c for c in obj["status"]["conditions"] if c["type"] == ctype)

