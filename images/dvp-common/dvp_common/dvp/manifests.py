# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVP objects we create, as pure functions of their inputs (no I/O, no clock): every component and every
typed kind builds its bodies here, so labels, ownerReferences and names are decided once.

The ownership labels (cluster UUID, component, managed-by) are applied last: no extra label can override them.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from .ownership import owned_labels
from .resources import (
    API_VERSION,
    VIRTUAL_DISK,
    VIRTUAL_MACHINE,
    VIRTUAL_MACHINE_IP_ADDRESS,
    VIRTUAL_MACHINE_OPERATION,
    VMBDA,
)

Obj = dict[str, Any]

CLOUD_INIT_SECRET_TYPE = "provisioning.virtualization.deckhouse.io/cloud-init"  # noqa: S105 - a Secret type
CLOUD_INIT_KEY = "userData"


def cloud_init_secret_name(machine: str) -> str:
    return f"cloud-init-{machine}"


OPERATION_TYPES = ("Start", "Stop", "Restart")


def owner_reference(owner: Mapping[str, Any], controller: bool = True) -> Obj:
    """An ownerReference to `owner`: DVP's garbage collector removes the dependant with it.

    blockOwnerDeletion is false on purpose. It only matters for a foreground deletion of the owner, which we
    never request (capdvp deletes a VM and then its disks itself, each wait bounded); and where the API server
    enforces owner-reference permissions, setting it true needs `update` on the owner's `finalizers`
    subresource, which the project role need not grant: a create could then be refused for a flag we never use.
    """
    meta = owner["metadata"]
    return {"apiVersion": owner.get("apiVersion") or API_VERSION, "kind": owner.get("kind") or VIRTUAL_MACHINE.kind,
            "name": meta["name"], "uid": meta["uid"], "controller": controller, "blockOwnerDeletion": False}


def metadata(name: str, cluster_uuid: str, component: str, labels: Mapping[str, str] | None = None, *,
             annotations: Mapping[str, str] | None = None, owner: Mapping[str, Any] | None = None,
             controller: bool = True) -> Obj:
    meta: Obj = {"name": name, "labels": owned_labels(cluster_uuid, component, dict(labels or {}))}
    if annotations:
        meta["annotations"] = dict(annotations)
    if owner is not None:
        meta["ownerReferences"] = [owner_reference(owner, controller)]
    return meta


def obj(api_version: str, kind: str, meta: Obj, spec: Obj | None = None, **extra: Any) -> Obj:
    body: Obj = {"apiVersion": api_version, "kind": kind, "metadata": meta}
    if spec is not None:
        body["spec"] = spec
    body.update(extra)
    return body


def virtual_machine(meta: Obj, spec: Obj) -> Obj:
    return obj(API_VERSION, VIRTUAL_MACHINE.kind, meta, spec)


def persistent_volume_claim(size: str | None, storage_class: str | None) -> Obj:
    pvc: Obj = {}
    if size:
        pvc["size"] = size
    if storage_class:
        pvc["storageClassName"] = storage_class
    return pvc


def image_source(kind: str, name: str) -> Obj:
    """A disk's dataSource: a VirtualImage, ClusterVirtualImage or VirtualDiskSnapshot."""
    return {"type": "ObjectRef", "objectRef": {"kind": kind, "name": name}}


def virtual_disk(meta: Obj, size: str | None, storage_class: str | None, data_source: Obj | None = None) -> Obj:
    spec: Obj = {"persistentVolumeClaim": persistent_volume_claim(size, storage_class)}
    if data_source:
        spec["dataSource"] = data_source
    return obj(API_VERSION, VIRTUAL_DISK.kind, meta, spec)


def cloud_init_secret(meta: Obj, user_data: bytes | str) -> Obj:
    """Immutable: changed bootstrap data means a new Secret, never an edit under a running VM."""
    raw = user_data.encode() if isinstance(user_data, str) else user_data
    return obj("v1", "Secret", meta, type=CLOUD_INIT_SECRET_TYPE, immutable=True,
               data={CLOUD_INIT_KEY: base64.b64encode(raw).decode()})


def operation_name(vm_name: str, op: str, token: str | int) -> str:
    """One name per (VM, operation, request token), e.g. the spec generation it applies.

    Deterministic on purpose (not generateName): creating an operation is not idempotent, and a POST whose answer
    was lost, or a reconcile repeated after a crash, must find the operation it already made (409) instead of
    starting a second Stop or Restart of the VM. A new request needs a new token.
    """
    return f"{vm_name}-{op.lower()}-g{token}"


def operation(meta: Obj, vm_name: str, op: str, force: bool = False) -> Obj:
    if op not in OPERATION_TYPES:
        raise ValueError(f'VirtualMachineOperation "{meta["name"]}": type {op!r} is not one of '
                         f'{", ".join(OPERATION_TYPES)}')
    if op == "Start" and force:
        raise ValueError(f'VirtualMachine "{vm_name}": Start cannot be forced')
    spec: Obj = {"type": op, "virtualMachineName": vm_name}
    if force:
        spec["force"] = True
    return obj(API_VERSION, VIRTUAL_MACHINE_OPERATION.kind, meta, spec)


def attachment(meta: Obj, vm_name: str, disk: str) -> Obj:
    return obj(API_VERSION, VMBDA.kind, meta,
               {"virtualMachineName": vm_name, "blockDeviceRef": {"kind": "VirtualDisk", "name": disk}})


def ip_address(meta: Obj, static_ip: str | None = None) -> Obj:
    spec = {"type": "Static", "staticIP": static_ip} if static_ip else {"type": "Auto"}
    return obj(API_VERSION, VIRTUAL_MACHINE_IP_ADDRESS.kind, meta, spec)
