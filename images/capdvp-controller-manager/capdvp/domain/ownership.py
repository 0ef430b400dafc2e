# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Labels on everything capdvp creates in DVP, and the ownership rule (issue 12).

An object is capdvp's only if it carries this cluster's UUID and the capdvp component label; a machine's
object is that machine's only if its hostname label names the machine too. Every delete or modify path checks it.
"""

from __future__ import annotations

from collections.abc import Mapping

CLUSTER_UUID = "dvp.deckhouse.io/cluster-uuid"
COMPONENT = "dvp.deckhouse.io/component"
HOSTNAME = "dvp.deckhouse.io/hostname"
MANAGED_BY = "deckhouse.io/managed-by"
MANAGED_BY_VALUE = "deckhouse"
COMPONENT_CAPDVP = "capdvp"
VIRTUAL_DISK_NAME = "virtualDiskName"
VIRTUAL_MACHINE_NAME = "virtualMachineName"
VIRTUAL_MACHINE_DISK_NAME = "virtualMachineDiskName"

ORPHANED_VM = "dvp.deckhouse.io/orphaned-vm"
ORPHANED_VM_TIMESTAMP = "dvp.deckhouse.io/orphaned-vm-timestamp"


def cluster_labels(cluster_uuid: str) -> dict[str, str]:
    return {MANAGED_BY: MANAGED_BY_VALUE, CLUSTER_UUID: cluster_uuid, COMPONENT: COMPONENT_CAPDVP}


def machine_labels(cluster_uuid: str, machine: str) -> dict[str, str]:
    return {**cluster_labels(cluster_uuid), HOSTNAME: machine}


def _labels(obj: Mapping) -> Mapping[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def is_ours(obj: Mapping, cluster_uuid: str) -> bool:
    labels = _labels(obj)
    return labels.get(CLUSTER_UUID) == cluster_uuid and labels.get(COMPONENT) == COMPONENT_CAPDVP


def is_machines(obj: Mapping, cluster_uuid: str, machine: str) -> bool:
    return is_ours(obj, cluster_uuid) and _labels(obj).get(HOSTNAME) == machine
