# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The ownership rule (tenant isolation), in one place.

An object in DVP is ours only if it carries our cluster-UUID label AND the component label of the component
that made it. Looking objects up by name alone would let a guest user who can create a PV or a Service reach
another cluster's disks, a node's boot disk or foreign VMs in the same DVP namespace.
"""

from __future__ import annotations

from typing import Any

from ..kube.errors import NotFound
from . import labels as L


class NotOurs(NotFound):
    """The object exists but is not ours: callers treat it exactly as absent, and never change it."""


def _require_uuid(cluster_uuid: str) -> None:
    if not cluster_uuid:
        raise ValueError("cluster UUID is empty: refusing to judge ownership")


def is_ours(obj: dict[str, Any] | None, cluster_uuid: str, component: str | frozenset[str] | set[str]) -> bool:
    _require_uuid(cluster_uuid)
    if not obj:
        return False
    found = (obj.get("metadata") or {}).get("labels") or {}
    wanted = {component} if isinstance(component, str) else component
    return found.get(L.CLUSTER_UUID) == cluster_uuid and found.get(L.COMPONENT) in wanted


def require_ours(obj: dict[str, Any], cluster_uuid: str, component: str | frozenset[str] | set[str],
                 kind: str | None = None) -> dict[str, Any]:
    if is_ours(obj, cluster_uuid, component):
        return obj
    md = obj.get("metadata") or {}
    kind = kind or obj.get("kind") or "object"
    name, namespace = md.get("name", ""), md.get("namespace", "")
    wanted = component if isinstance(component, str) else "|".join(sorted(component))
    raise NotOurs(f"not managed by {wanted} of this cluster", status=404, reason="NotOurs", kind=kind,
                  name=name, namespace=namespace)


def owned_labels(cluster_uuid: str, component: str, extra: dict[str, str] | None = None,
                 **more: str) -> dict[str, str]:
    """The labels every object we create carries (extra labels cannot override the ownership ones)."""
    _require_uuid(cluster_uuid)
    if component not in L.COMPONENTS:
        raise ValueError(f"unknown component {component!r}")
    out = {**(extra or {}), **more}
    out.update({L.MANAGED_BY: L.MANAGED_BY_VALUE, L.CLUSTER_UUID: cluster_uuid, L.COMPONENT: component})
    return out
