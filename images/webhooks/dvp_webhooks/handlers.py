# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Routes: path -> the kind it serves and a handler(Request, Lookups) -> Verdict. Handlers only gather what a
rule needs and call it."""

from __future__ import annotations

from collections.abc import Callable

from dvp_common import node_groups
from dvp_common.admission.decider import Route
from dvp_common.admission.review import Request
from dvp_common.admission.verdict import Verdict
from dvp_common.kube import names

from .domain import class_selection, credentials, nodes, shapes, snapshots
from .lookups import Lookups

__all__ = ["ROUTES", "Route"]


def route(kind: str, group: str, handler: Callable[[Request, Lookups], Verdict]) -> Route:
    """A route of these webhooks: every field a rule reads is type-checked first (domain/shapes.py)."""
    return Route(kind, group, handler, shapes.check)



def _paused(lookups: Lookups) -> Verdict | None:
    """Validation pauses while the legacy configuration migrates (the module's resources are moved then)."""
    if lookups.migrating():
        return Verdict.allow("cloud-provider-dvp: validation is paused while the module configuration migrates")
    return None


def secret(req: Request, lookups: Lookups) -> Verdict:
    """Every credentials Secret is judged, whoever labelled it what. The one exception is decided here, from the
    identity the API server authenticated: Deckhouse itself, while it migrates the legacy configuration."""
    verdict = credentials.validate(req)
    if verdict.allowed or req.username not in credentials.MODULE_IDENTITIES:
        return verdict
    return _paused(lookups) or verdict


def _bad_name(req: Request, field: str, value: str, rule: str = names.SUBDOMAIN) -> Verdict | None:
    """A name from the object that is about to be looked up: refused here, before any request, when it cannot be
    a Kubernetes name (it would otherwise point the lookup at another object)."""
    problem = names.problem(value, rule)
    return Verdict.deny(f"{req.ref()}: {field} {problem}") if problem else None


def node_group(req: Request, lookups: Lookups) -> Verdict:
    new_ref = node_groups.class_reference(req.obj or {})
    old_ref = node_groups.class_reference(req.old or {})
    for ref, what in ((new_ref, "object"), (old_ref, "oldObject")):
        if ref.get("kind") == node_groups.CLASS_KIND and ref.get("name"):
            bad = _bad_name(req, f"{what}.spec.cloudInstances.classReference.name", ref["name"])
            if bad:
                return bad
    paused = _paused(lookups)
    if paused:
        return paused
    ic = lookups.instance_class(new_ref.get("name") or "") if new_ref.get("kind") == node_groups.CLASS_KIND else None
    old_ic = ic if old_ref == new_ref else (
        lookups.instance_class(old_ref.get("name") or "") if old_ref.get("kind") == node_groups.CLASS_KIND else None)
    return nodes.validate_node_group(req, ic, old_ic, lookups.cluster_prefix)


def instance_class(req: Request, lookups: Lookups) -> Verdict:
    return _paused(lookups) or nodes.validate_instance_class(req, lookups.node_groups())


def volume_snapshot(req: Request, lookups: Lookups) -> Verdict:
    return snapshots.validate_snapshot(req)


def volume_snapshot_content(req: Request, lookups: Lookups) -> Verdict:
    return snapshots.validate_content(req)


def volume_snapshot_class(req: Request, lookups: Lookups) -> Verdict:
    if req.operation not in ("CREATE", "UPDATE") or not snapshots.is_default(req.obj):
        return Verdict.allow()  # no need to list classes
    return snapshots.validate_class(req, lookups.snapshot_classes())


def select_snapshot_class(req: Request, lookups: Lookups) -> Verdict:
    pvc_name = class_selection.pvc_name(req)
    if pvc_name is None:
        return Verdict.allow()
    bad = (_bad_name(req, "request.namespace", req.namespace, names.LABEL)
           or _bad_name(req, "spec.source.persistentVolumeClaimName", pvc_name))
    if bad:
        return bad
    pvc = lookups.pvc(req.namespace, pvc_name)
    sc_name = ((pvc or {}).get("spec") or {}).get("storageClassName") or ""
    return class_selection.select(req, pvc, lookups.storage_class(sc_name))


SNAPSHOT_GROUP = "snapshot.storage.k8s.io"
ROUTES: dict[str, dict[str, Route]] = {
    "validation": {
        "/validate--v1-secret": route("Secret", "", secret),
        "/validate-deckhouse-io-v1-nodegroup": route("NodeGroup", "deckhouse.io", node_group),
        "/validate-deckhouse-io-v1alpha1-dvpinstanceclass": route("DVPInstanceClass", "deckhouse.io",
                                                                  instance_class),
    },
    "snapshot": {
        "/validate-volumesnapshot": route("VolumeSnapshot", SNAPSHOT_GROUP, volume_snapshot),
        "/validate-volumesnapshotcontent": route("VolumeSnapshotContent", SNAPSHOT_GROUP, volume_snapshot_content),
        "/validate-volumesnapshotclass": route("VolumeSnapshotClass", SNAPSHOT_GROUP, volume_snapshot_class),
        "/volume-snapshot-mutate": route("VolumeSnapshot", SNAPSHOT_GROUP, select_snapshot_class),
    },
}
