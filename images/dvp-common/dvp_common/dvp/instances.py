# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A VM named by a Node of this cluster: the instance of a node the Go module built, read and never written.

dhctl's master and static VMs of an upstream-built cluster carry our cluster-UUID label and
`dvp.deckhouse.io/hostname=<node name>` but no component label, so the ownership rule never counts them as ours.
The Node of such a VM names it in `spec.providerID` (`dvp://<vm name>`), which kubelets and the CCM write, not
guest users: that is a strong proof (`dvp_common.dvp.adoption`). `named_by_node` is the one rule by which the CCM
reads such a VM as its Node's instance and the CSI controller attaches volumes to it; it asks the adoption rule for
its verdict only (nothing is adopted, no label is written). A VM of another cluster's UUID, of any component, or
whose hostname label is not the Node's name stays foreign. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import labels as L
from .adoption import Proof, Verdict, decide


def node_proof(node_name: str) -> Proof:
    """A Node of this cluster naming a VM in its providerID: written by kubelets and the CCM, not by guest users."""
    return Proof("Node", node_name, "providerID", strong=True)


def named_by_node(vm: Mapping[str, Any] | None, cluster_uuid: str, node_name: str) -> bool:
    """An upstream VM (our cluster UUID, no component label, hostname `node_name`) that the Node `node_name` names
    in its providerID: this cluster's instance, to read only (the adoption rule's verdict, no adoption). The
    cluster UUID must be on the VM: a VM without it could be any cluster's."""
    if not vm or not node_name or ((vm.get("metadata") or {}).get("labels") or {}).get(L.CLUSTER_UUID) != cluster_uuid:
        return False
    # the component only shapes the patch an adoption would write, and none is written: any of ours judges alike
    decision = decide(vm, cluster_uuid, L.CCM, node_proof(node_name), {L.HOSTNAME: node_name})
    return decision.verdict is Verdict.ADOPT


def vm_named_by(node: Mapping[str, Any] | None) -> str | None:
    """The VM name a Node's `dvp://<vm>` providerID gives; None when there is no Node, no providerID, another
    provider's or a malformed one (nothing to read)."""
    pid = str(((node or {}).get("spec") or {}).get("providerID") or "")
    try:
        return L.parse_provider_id(pid) or None
    except ValueError:
        return None
