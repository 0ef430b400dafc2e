# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The types of every field a rule reads, checked before the rule runs: a wrong type is a denial naming the
field, never a crash inside a rule. The API server only sends objects of these types; anything else comes from a
direct client, so the check is strict."""

from __future__ import annotations

from typing import Any

from .review import Request

STR, MAP, LIST, STR_MAP, STR_LIST, ANY = "a string", "an object", "a list", "a map of strings", \
    "a list of strings", "any"
METADATA = {"metadata": MAP, "metadata.name": STR, "metadata.namespace": STR, "metadata.labels": STR_MAP,
            "metadata.annotations": STR_MAP}
FIELDS: dict[str, dict[str, str]] = {
    "Secret": {"type": STR, "data": STR_MAP, "stringData": STR_MAP},
    "NodeGroup": {"spec": MAP, "spec.nodeType": STR, "spec.cloudInstances": MAP,
                  "spec.cloudInstances.classReference": MAP, "spec.cloudInstances.classReference.kind": STR,
                  "spec.cloudInstances.classReference.name": STR},
    "DVPInstanceClass": {"spec": MAP, "spec.virtualMachine": MAP, "spec.virtualMachine.additionalLabels": MAP,
                         "spec.virtualMachine.additionalAnnotations": MAP, "status": MAP,
                         "status.nodeGroupConsumers": STR_LIST},
    "VolumeSnapshot": {"spec": MAP, "spec.source": MAP, "spec.source.persistentVolumeClaimName": STR,
                       "spec.source.volumeSnapshotContentName": STR, "spec.volumeSnapshotClassName": STR},
    "VolumeSnapshotContent": {"spec": MAP, "spec.source": MAP, "spec.source.volumeHandle": STR,
                              "spec.source.snapshotHandle": STR, "spec.sourceVolumeMode": STR,
                              "spec.volumeSnapshotRef": MAP, "spec.volumeSnapshotRef.name": STR,
                              "spec.volumeSnapshotRef.namespace": STR, "spec.volumeSnapshotClassName": STR},
    "VolumeSnapshotClass": {"driver": STR},
}


def _fits(value: Any, want: str) -> bool:
    if want == STR:
        return isinstance(value, str)
    if want == MAP:
        return isinstance(value, dict)
    if want == LIST:
        return isinstance(value, list)
    if want == STR_MAP:
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    if want == STR_LIST:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return True


def problem(obj: dict[str, Any], kind: str) -> str | None:
    """The first field of `obj` whose type the rules of `kind` cannot read; None when all fit."""
    for path, want in {**METADATA, **FIELDS.get(kind, {})}.items():
        node: Any = obj
        for key in path.split("."):
            if not isinstance(node, dict):
                node = None
                break
            node = node.get(key)
        if node is not None and not _fits(node, want):
            return f"{path} must be {want}"
    return None


def check(req: Request) -> str | None:
    """A denial message naming the first badly typed field of the request's objects, or None."""
    for what, obj in (("object", req.obj), ("oldObject", req.old)):
        found = problem(obj, req.kind) if obj is not None else None
        if found:
            return f"{req.ref()}: {what}.{found}"
    return None
