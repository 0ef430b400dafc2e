# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Reads and metadata writes on the guest side shared by both reconcilers (owner, pause, finalizer)."""

from __future__ import annotations

import base64

from dvp_common.kube import NotFound, Resource, get_or_none

from capdvp import resources as r
from capdvp.controllers.context import Context

CAPI_GROUP = "cluster.x-k8s.io"
PAUSED_ANNOTATION = "cluster.x-k8s.io/paused"
CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name"
CONTROL_PLANE_LABEL = "cluster.x-k8s.io/control-plane"


def owner_machine_name(obj: dict) -> str | None:
    for ref in obj.get("metadata", {}).get("ownerReferences") or []:
        if ref.get("kind") == "Machine" and str(ref.get("apiVersion", "")).startswith(CAPI_GROUP + "/"):
            return ref.get("name")
    return None


def owner_cluster_name(obj: dict) -> str | None:
    for ref in obj.get("metadata", {}).get("ownerReferences") or []:
        if ref.get("kind") == "Cluster" and str(ref.get("apiVersion", "")).startswith(CAPI_GROUP + "/"):
            return ref.get("name")
    return None


def is_paused(obj: dict, cluster: dict | None) -> bool:
    if PAUSED_ANNOTATION in (obj.get("metadata", {}).get("annotations") or {}):
        return True
    return bool(cluster and (cluster.get("spec") or {}).get("paused"))


def infrastructure_ready(cluster: dict) -> bool:
    status = cluster.get("status") or {}
    return bool((status.get("initialization") or {}).get("infrastructureProvisioned")
                or status.get("infrastructureReady"))


def bootstrap_data(ctx: Context, machine: dict) -> bytes | None:
    name = ((machine.get("spec") or {}).get("bootstrap") or {}).get("dataSecretName")
    if not name:
        return None
    secret = get_or_none(ctx.guest, r.SECRET, name, machine["metadata"].get("namespace"))
    value = ((secret or {}).get("data") or {}).get("value")
    return base64.b64decode(value) if value else None


def set_finalizer(ctx: Context, res: Resource, obj: dict, finalizer: str, present: bool) -> dict:
    """Add or remove one finalizer; the resourceVersion makes a concurrent edit fail with 409, never lose data."""
    meta = obj["metadata"]
    current = list(meta.get("finalizers") or [])
    if (finalizer in current) == present:
        return obj
    wanted = current + [finalizer] if present else [f for f in current if f != finalizer]
    body = {"metadata": {"finalizers": wanted, "resourceVersion": meta.get("resourceVersion")}}
    try:
        return ctx.guest.patch(res, meta["name"], body, meta.get("namespace"))
    except NotFound:
        if present:
            raise
        # `obj` came from a cache a moment behind: an earlier reconcile already lifted our finalizer and the object
        # went with it. Nothing is left to release.
        return obj


def annotate(ctx: Context, res: Resource, obj: dict, annotations: dict[str, str]) -> dict:
    meta = obj["metadata"]
    have = meta.get("annotations") or {}
    if all(have.get(k) == v for k, v in annotations.items()):
        return obj
    return ctx.guest.patch(res, meta["name"], {"metadata": {"annotations": annotations}}, meta.get("namespace"))
