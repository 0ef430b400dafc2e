# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VolumeSnapshot, VolumeSnapshotContent and VolumeSnapshotClass rules (the v6.x snapshot-validation-webhook
rule set).

- VolumeSnapshot: exactly one of source.persistentVolumeClaimName / source.volumeSnapshotContentName; a source
  once set never changes; volumeSnapshotClassName, when set, is not "".
- VolumeSnapshotContent: exactly one of source.volumeHandle / source.snapshotHandle; a set handle and a set
  sourceVolumeMode never change; volumeSnapshotRef has name and namespace; a set class name is not "".
- VolumeSnapshotClass: at most one default (annotation snapshot.storage.kubernetes.io/is-default-class) per
  driver; making a class default when another one of its driver already is gets denied.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dvp_common.admission.review import Request
from dvp_common.admission.verdict import Verdict, classify

DEFAULT_ANNOTATION = "snapshot.storage.kubernetes.io/is-default-class"
VS_SOURCES = ("persistentVolumeClaimName", "volumeSnapshotContentName")
VSC_SOURCES = ("volumeHandle", "snapshotHandle")


def _spec(obj: dict[str, Any] | None) -> dict[str, Any]:
    return (obj or {}).get("spec") or {}


def _exactly_one(ref: str, source: dict[str, Any], fields: tuple[str, str]) -> list[str]:
    given = [f for f in fields if source.get(f)]
    if len(given) == 1:
        return []
    what = "both are set" if given else "neither is set"
    return [f"{ref}: exactly one of spec.source.{fields[0]} and spec.source.{fields[1]} is required ({what})"]


def _class_name(ref: str, spec: dict[str, Any]) -> list[str]:
    if "volumeSnapshotClassName" in spec and spec["volumeSnapshotClassName"] is not None \
            and not str(spec["volumeSnapshotClassName"]).strip():
        return [f'{ref}: spec.volumeSnapshotClassName must not be empty when set']
    return []


def _immutable(ref: str, old: dict[str, Any], new: dict[str, Any], fields: Iterable[str], prefix: str) -> list[str]:
    out = []
    for f in fields:
        if old.get(f) and new.get(f) != old.get(f):
            out.append(f"{ref}: {prefix}{f} is immutable ({old.get(f)!r} -> {new.get(f)!r})")
    return out


def snapshot_problems(req: Request, obj: dict[str, Any]) -> list[str]:
    spec = _spec(obj)
    return _exactly_one(req.ref(), spec.get("source") or {}, VS_SOURCES) + _class_name(req.ref(), spec)


def validate_snapshot(req: Request) -> Verdict:
    if req.operation not in ("CREATE", "UPDATE"):
        return Verdict.allow()
    if req.operation == "UPDATE":
        changed = _immutable(req.ref(), _spec(req.old).get("source") or {}, _spec(req.obj).get("source") or {},
                             VS_SOURCES, "spec.source.")
        if changed:
            return Verdict.deny("; ".join(changed))
    old = snapshot_problems(req, req.old) if req.old is not None else []
    return classify(req, snapshot_problems(req, req.obj or {}), old)


def content_problems(req: Request, obj: dict[str, Any]) -> list[str]:
    spec = _spec(obj)
    out = _exactly_one(req.ref(), spec.get("source") or {}, VSC_SOURCES)
    vsref = spec.get("volumeSnapshotRef") or {}
    missing = [f for f in ("name", "namespace") if not vsref.get(f)]
    if missing:
        out.append(f"{req.ref()}: spec.volumeSnapshotRef.{' and '.join(missing)} "
                   f"{'are' if len(missing) > 1 else 'is'} required")
    return out + _class_name(req.ref(), spec)


def validate_content(req: Request) -> Verdict:
    if req.operation not in ("CREATE", "UPDATE"):
        return Verdict.allow()
    if req.operation == "UPDATE":
        old_spec, new_spec = _spec(req.old), _spec(req.obj)
        changed = _immutable(req.ref(), old_spec.get("source") or {}, new_spec.get("source") or {}, VSC_SOURCES,
                             "spec.source.")
        changed += _immutable(req.ref(), old_spec, new_spec, ("sourceVolumeMode",), "spec.")
        if changed:
            return Verdict.deny("; ".join(changed))
    old = content_problems(req, req.old) if req.old is not None else []
    return classify(req, content_problems(req, req.obj or {}), old)


def is_default(obj: dict[str, Any] | None) -> bool:
    ann = ((obj or {}).get("metadata") or {}).get("annotations") or {}
    return str(ann.get(DEFAULT_ANNOTATION, "")).lower() == "true"


def validate_class(req: Request, classes: list[dict[str, Any]]) -> Verdict:
    """`classes`: every VolumeSnapshotClass of the cluster as it is now."""
    if req.operation not in ("CREATE", "UPDATE") or not is_default(req.obj):
        return Verdict.allow()
    driver = (req.obj or {}).get("driver")
    others = sorted(c["metadata"]["name"] for c in classes
                    if c["metadata"]["name"] != req.name and c.get("driver") == driver and is_default(c))
    if not others:
        return Verdict.allow()
    text = (f'{req.ref()}: default snapshot class "{others[0]}" already exists for driver {driver!r}'
            if len(others) == 1 else
            f'{req.ref()}: default snapshot classes {", ".join(others)} already exist for driver {driver!r}')
    if req.operation == "UPDATE" and is_default(req.old) and (req.old or {}).get("driver") == driver:
        return Verdict.allow(text)  # already default before: the duplicate is not this change's doing
    return Verdict.deny(text)
