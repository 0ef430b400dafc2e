# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Names of the DVP objects made for a DeckhouseMachine, and the providerID.

The VM is named after the DeckhouseMachine, so a machine finds its VM again after a restart without any state.
Disk names are also label values (at most 63 characters): past that they get the short form of
`labels.short_name`, which is recomputed on every lookup.
"""

from __future__ import annotations

import hashlib

from dvp_common.dvp import labels as L
from dvp_common.dvp import manifests

MAX_NAME = L.MAX_LABEL_NAME  # VM names become pod and hostname labels


def vm_name(machine_name: str) -> str:
    return machine_name


def boot_disk_name(machine_name: str) -> str:
    return L.short_name(f"{machine_name}-boot")


def additional_disk_name(machine_name: str, index: int) -> str:
    return L.short_name(f"{machine_name}-additional-disk-{index}")


def cloud_init_secret_name(machine_name: str) -> str:
    return manifests.cloud_init_secret_name(machine_name)


def vmbda_name(disk_name: str, machine_name: str) -> str:
    return L.vmbda_name(disk_name, machine_name)


def vmop_name(machine_name: str, op: str, generation: int) -> str:
    """One operation per (machine, kind, spec generation): re-creating it after a crash finds the first one."""
    return manifests.operation_name(vm_name(machine_name), op, generation)


def provider_id(vm: str) -> str:
    return L.provider_id(vm)


def parse_provider_id(value: str) -> str | None:
    """The VM name of a `dvp://<vm>` providerID, None when it is another provider's (ValueError if malformed)."""
    return L.parse_provider_id(value)


def orphaned_disk_annotation(disk_name: str) -> str:
    digest = hashlib.sha1(disk_name.encode(), usedforsecurity=False).hexdigest()[:4]
    return f"dvp.deckhouse.io/orphaned-disk-{digest}"
