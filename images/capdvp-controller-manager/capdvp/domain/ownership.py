# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Labels on everything capdvp creates in DVP, and the ownership rule (tenant isolation).

An object is capdvp's only if it carries this cluster's UUID and the capdvp component label; a machine's
object is that machine's only if its hostname label names the machine too. Every delete or modify path checks it.
"""

from __future__ import annotations

from collections.abc import Mapping

from dvp_common.dvp import labels as L
from dvp_common.dvp import ownership as rule

CLUSTER_UUID = L.CLUSTER_UUID
COMPONENT = L.COMPONENT
HOSTNAME = L.HOSTNAME
MANAGED_BY = L.MANAGED_BY
COMPONENT_CAPDVP = L.CAPDVP
VIRTUAL_DISK_NAME = L.VIRTUAL_DISK_NAME
VIRTUAL_MACHINE_NAME = L.VIRTUAL_MACHINE_NAME
VIRTUAL_MACHINE_DISK_NAME = L.VIRTUAL_MACHINE_DISK_NAME

ORPHANED_VM = "dvp.deckhouse.io/orphaned-vm"
ORPHANED_VM_TIMESTAMP = "dvp.deckhouse.io/orphaned-vm-timestamp"


def cluster_labels(cluster_uuid: str) -> dict[str, str]:
    return rule.owned_labels(cluster_uuid, L.CAPDVP)


def machine_labels(cluster_uuid: str, machine: str) -> dict[str, str]:
    return rule.owned_labels(cluster_uuid, L.CAPDVP, {HOSTNAME: machine})


def is_ours(obj: Mapping, cluster_uuid: str) -> bool:
    return rule.is_ours(dict(obj), cluster_uuid, L.CAPDVP)


def is_machines(obj: Mapping, cluster_uuid: str, machine: str) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return is_ours(obj, cluster_uuid) and labels.get(HOSTNAME) == machine
