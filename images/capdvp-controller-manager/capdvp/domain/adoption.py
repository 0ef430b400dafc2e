# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Which objects the upstream (Go) capdvp made for a machine count as this machine's once adopted (pure).

Upstream names a machine's VM after its DeckhouseMachine and labels it managed-by, cluster UUID (empty or absent
in older releases) and hostname (the oldest releases: hostname alone), never our component label; its boot disk
`<m>-boot`, additional disks `<m>-additional-disk-<i>` (labels managed-by, `virtualDiskName`, cluster UUID,
hostname) and cloud-init Secret `cloud-init-<m>` (no labels in some releases) each carry an ownerReference to the
VM. The rule that lets them in is `dvp_common.dvp.adoption.decide`; this module gives it the proofs and the labels
the scheme writes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from dvp_common.dvp import labels as L
from dvp_common.dvp.adoption import Proof

from capdvp.domain import names
from capdvp.domain.machine_spec import MachineSpec

KIND = "DeckhouseMachine"
_ADDITIONAL = re.compile(r"-additional-disk-(\d{1,3})$")


def _managed_by(obj: Mapping) -> dict[str, str]:
    """managed-by must say deckhouse when present: the oldest upstream releases wrote only the hostname label."""
    found = (obj.get("metadata") or {}).get("labels") or {}
    return {L.MANAGED_BY: L.MANAGED_BY_VALUE} if L.MANAGED_BY in found else {}


def vm_labels(machine: str, vm: Mapping) -> dict[str, str]:
    """The labels upstream writes on a machine's VM (besides the cluster UUID, ours, empty or absent)."""
    return {**_managed_by(vm), L.HOSTNAME: machine}


def created_vm_labels(module_labels: Mapping[str, str], spec: MachineSpec) -> dict[str, str]:
    """The labels besides the ownership ones that capdvp gives a VM it creates (`manifests.virtual_machine`: the
    module's additionalVMLabels, then the instance class's additionalLabels), which upstream's capdvp never wrote
    on its VMs: written by the adopting patch, so an adopted VM is selected like the ones we make."""
    return {**module_labels, **dict(spec.placement.labels)}


def secret_extra_labels(machine: str) -> dict[str, str]:
    """Our cloud-init Secret carries the hostname label (ownership.is_machines); upstream's has none in some
    releases: written by the adopting patch, not by a second one."""
    return {L.HOSTNAME: machine}


def disk_labels(machine: str, disk: Mapping) -> dict[str, str]:
    name = (disk.get("metadata") or {}).get("name", "")
    return {**_managed_by(disk), L.VIRTUAL_DISK_NAME: name, L.HOSTNAME: machine}


def secret_labels(machine: str, secret: Mapping) -> dict[str, str]:
    """Upstream's cloud-init Secret has no labels in some releases; a hostname label it has must name the machine."""
    found = (secret.get("metadata") or {}).get("labels") or {}
    return {**_managed_by(secret), **({L.HOSTNAME: machine} if L.HOSTNAME in found else {})}


def vm_proof(namespace: str, machine: str) -> Proof:
    """The DeckhouseMachine capdvp reconciles names the VM (same name). Strong (rule 5 of dvp_common's adoption):
    DeckhouseMachines are made by Cluster API from node-manager's templates, not by guest users, and it lives in
    the namespace this capdvp watches, so it is this cluster's."""
    return Proof(KIND, f"{namespace}/{machine}", "name", strong=True)


def owned_proof(vm: Mapping, namespace: str, machine: str) -> Proof:
    """An adopted VM proves the disks and Secret whose ownerReference names its uid (chosen by the API server,
    written only by whoever may write in the DVP project, never by a guest user): strong too."""
    md = vm.get("metadata") or {}
    return Proof("VirtualMachine", str(md.get("name", "")),
                 f"ownerReference uid {md.get('uid')}; adopted for {KIND} {namespace}/{machine}", strong=True)


def is_scheme_disk(machine: str, disk: str) -> bool:
    """`<m>-boot` or `<m>-additional-disk-<i>` (in our short form past 63 characters, as lookups compute it)."""
    if disk == names.boot_disk_name(machine):
        return True
    found = _ADDITIONAL.search(disk)
    if found and disk == names.additional_disk_name(machine, int(found.group(1))):
        return True
    return any(disk == names.additional_disk_name(machine, i) for i in range(64)) if len(disk) >= L.MAX_LABEL_NAME \
        else False


def owned_by(obj: Mapping, vm: Mapping) -> bool:
    """An ownerReference of `obj` names `vm` by kind, name and uid."""
    md = vm.get("metadata") or {}
    uid = md.get("uid")
    return bool(uid) and any(
        ref.get("uid") == uid and ref.get("kind") == "VirtualMachine" and ref.get("name") == md.get("name")
        for ref in (obj.get("metadata") or {}).get("ownerReferences") or [])
