# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Bodies of the DVP objects the driver creates (pure builders)."""

from __future__ import annotations

from typing import Any

from dvp_common.quantity import format_bytes

from ..domain import labels, ownership

GROUP_VERSION = "virtualization.deckhouse.io/v1alpha2"
SIZE_ANNOTATION = "csi.dvp.deckhouse.io/size-bytes"


def _meta(name: str, namespace: str, cluster_uuid: str, extra: dict[str, str], csi_name: str = "",
          annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace,
                            "labels": {**ownership.owned_labels(cluster_uuid), **extra}}
    ann = dict(annotations or {})
    if csi_name:
        ann[labels.CSI_NAME_ANNOTATION] = csi_name
    if ann:
        meta["annotations"] = ann
    return meta


def virtual_disk(name: str, namespace: str, cluster_uuid: str, csi_name: str, storage_class: str, size: int,
                 source: tuple[str, str] | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"persistentVolumeClaim": {"storageClassName": storage_class,
                                                      "size": format_bytes(size)}}
    if source:
        spec["dataSource"] = {"type": "ObjectRef", "objectRef": {"kind": source[0], "name": source[1]}}
    return {"apiVersion": GROUP_VERSION, "kind": "VirtualDisk",
            "metadata": _meta(name, namespace, cluster_uuid, {labels.VIRTUAL_DISK_NAME: name}, csi_name),
            "spec": spec}


def vmbda(name: str, namespace: str, cluster_uuid: str, disk: str, vm: str, node: str) -> dict[str, Any]:
    extra = {labels.VMBDA_DISK: disk, labels.VMBDA_VM: vm, labels.HOSTNAME: node}
    return {"apiVersion": GROUP_VERSION, "kind": "VirtualMachineBlockDeviceAttachment",
            "metadata": _meta(name, namespace, cluster_uuid, extra),
            "spec": {"virtualMachineName": vm, "blockDeviceRef": {"kind": "VirtualDisk", "name": disk}}}


def snapshot(name: str, namespace: str, cluster_uuid: str, csi_name: str, disk: str, size: int,
             consistent: bool, clone_for: str = "") -> dict[str, Any]:
    extra = {labels.VIRTUAL_DISK_NAME: disk}
    if clone_for:
        extra[CLONE_FOR_LABEL] = clone_for
    return {"apiVersion": GROUP_VERSION, "kind": "VirtualDiskSnapshot",
            "metadata": _meta(name, namespace, cluster_uuid, extra, csi_name, {SIZE_ANNOTATION: str(size)}),
            "spec": {"virtualDiskName": disk, "requiredConsistency": consistent}}


# Intermediate snapshots made for a clone carry the clone's name so DeleteVolume can remove them.
CLONE_FOR_LABEL = "csi.dvp.deckhouse.io/clone-for"


def snapshot_size(vds: dict[str, Any]) -> int:
    raw = ((vds.get("metadata") or {}).get("annotations") or {}).get(SIZE_ANNOTATION, "0")
    return int(raw) if raw.isdigit() else 0


def spec_vm(vmbda_obj: dict[str, Any]) -> str:
    return (vmbda_obj.get("spec") or {}).get("virtualMachineName", "")
