# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP label keys, names and the providerID, as the upstream provider spells them (see DEVELOPMENT.md)."""

from __future__ import annotations

import hashlib
import re

CLUSTER_UUID = "dvp.deckhouse.io/cluster-uuid"
MANAGED_BY = "deckhouse.io/managed-by"
MANAGED_BY_VALUE = "deckhouse"
HOSTNAME = "dvp.deckhouse.io/hostname"
COMPONENT = "dvp.deckhouse.io/component"
CSI, CAPDVP, CCM = "csi", "capdvp", "ccm"
DHCTL = "dhctl"  # objects of the OpenTofu layouts (candi/): the master VMs, their disks and addresses
COMPONENTS = frozenset({CSI, CAPDVP, CCM, DHCTL})
NODE_MAKERS = frozenset({CAPDVP, DHCTL})  # whoever made a node's VM: CSI and CCM work with both

# An admin marks a pre-existing DVP disk usable as a CSI volume of one cluster (a pre-provisioned PV); only
# someone with write access to the DVP namespace can set it, never a guest user.
ADOPT_BY_CLUSTER = "csi.dvp.deckhouse.io/adopt-by-cluster"

VIRTUAL_DISK_NAME = "virtualDiskName"
VIRTUAL_MACHINE_DISK_NAME = "virtualMachineDiskName"
VIRTUAL_MACHINE_NAME = "virtualMachineName"

LB_LABEL_PREFIX = "dvp.deckhouse.io/"
LB_LABEL_VALUE = "loadbalancer"
# On our VMs behind eligible nodes: the backends of every LoadBalancer that does not filter nodes (its DVP object
# selects this label and the cluster UUID label), so n such LoadBalancers put one label on a VM, not n.
LB_BACKEND = LB_LABEL_PREFIX + "load-balancer-backend"

PROVIDER_ID_PREFIX = "dvp://"
_PROVIDER_ID = re.compile(r"^dvp://(.+)$")
MAX_NAME = 253
MAX_LABEL_NAME = 63


def provider_id(vm_name: str) -> str:
    if not vm_name:
        raise ValueError("providerID: the VM name is empty")
    return PROVIDER_ID_PREFIX + vm_name


def parse_provider_id(value: str) -> str | None:
    """The VM name of a `dvp://<vm>` providerID; None for another provider's ID (not ours to judge)."""
    if not value.startswith(PROVIDER_ID_PREFIX):
        return None
    match = _PROVIDER_ID.match(value)
    if not match or "/" in match.group(1):
        raise ValueError(f'providerID "{value}": expected dvp://<vm name>')
    return match.group(1)


def short_name(name: str, limit: int = MAX_LABEL_NAME) -> str:
    """`name` when it fits `limit`, else a readable head and a hash of the whole name: unique, stable across
    restarts and releases (lookups recompute it), and a valid label value or object name. DVP refuses label values
    over 63 characters, and disk names are label values (`virtualDiskName`, `virtualMachineDiskName`)."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:10]
    return f"{name[: limit - 11].rstrip('-.')}-{digest}"


def vmbda_name(disk: str, hostname: str) -> str:
    return short_name(f"vmbda-{disk}-{hostname}", MAX_NAME)


def lb_label_key(lb_name: str) -> str:
    """`dvp.deckhouse.io/<lb name lowercased, no dashes>`, its name part cut to 63 characters."""
    return LB_LABEL_PREFIX + lb_name.lower().replace("-", "")[:MAX_LABEL_NAME]


def lb_name(service_uid: str) -> str:
    """The DVP Service name for a guest LoadBalancer Service: "a" + uid without dashes, 32 characters."""
    return ("a" + service_uid.replace("-", ""))[:32]


_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")


def refused_metadata(key: str, value: str, *, label: bool) -> str | None:
    """Why DVP would refuse this label (label=True) or annotation on a VM or disk, None when it is accepted: DVP's
    webhooks deny keys that contain `kubevirt.io` (KubeVirt's own metadata), and label values are at most 63
    characters of [A-Za-z0-9-_.], starting and ending alphanumeric."""
    if "kubevirt.io" in key:
        return f"key {key!r} contains kubevirt.io, which DVP reserves"
    if label and (len(value) > MAX_LABEL_NAME or not _LABEL_VALUE.match(value)):
        return f"value {value!r} of {key!r} is not a label value (at most 63 of [A-Za-z0-9-_.], alphanumeric ends)"
    return None
