# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Garbage collection, which kube-controller-manager would do: kube-apiserver alone never deletes dependents.

Background: a dependent whose owners are all gone (confirmed by a live GET, the cache may lag) is deleted.
Foreground: an owner deleted with propagationPolicy=Foreground keeps its `foregroundDeletion` finalizer
until its dependents are gone. Orphan: dependents lose their ownerReference, then the finalizer goes.
"""

from __future__ import annotations

from typing import Any

from dvp_common.kube import Conflict, NotFound

from .indexes import owners
from .world import KINDS, World, meta

FOREGROUND, ORPHAN = "foregroundDeletion", "orphan"
Key = tuple[str, str, str]


def handles(obj: dict[str, Any]) -> bool:
    return bool({FOREGROUND, ORPHAN} & set(meta(obj).get("finalizers") or []))


def _watched(ref: dict[str, Any]) -> str | None:
    res = KINDS.get(ref.get("kind", ""))
    return ref["kind"] if res is not None and res.api_version == ref.get("apiVersion") else None


def _children(world: World, uid: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for kind in KINDS:  # by the owner index: a deletion never scans every object
        for obj in world.by(kind, owners, uid):
            if any(r.get("uid") == uid for r in meta(obj).get("ownerReferences") or []):
                out.append((kind, obj))
    return out


def dependents(world: World, uid: str) -> list[Key]:
    """gc keys for the objects owned by `uid`, and for owners waiting on it (foreground deletion)."""
    keys = [(f"gc:{kind}", meta(o).get("namespace") or "", meta(o)["name"]) for kind, o in _children(world, uid)]
    return keys


def waiting_owners(world: World, obj: dict[str, Any]) -> list[Key]:
    keys = []
    for ref in meta(obj).get("ownerReferences") or []:
        kind = _watched(ref)
        if kind is None:
            continue
        ns = meta(obj).get("namespace") if KINDS[kind].namespaced else None
        owner = world.get(kind, ns, ref.get("name", ""))
        if owner is not None and handles(owner):
            keys.append((f"gc:{kind}", ns or "", meta(owner)["name"]))
    return keys


def owners_unseen(world: World, obj: dict[str, Any]) -> bool:
    """Every owner we could know of is absent from the cache: worth a live check by collect()."""
    refs = [r for r in meta(obj).get("ownerReferences") or [] if _watched(r)]
    if not refs:
        return False
    return not any(world.has_owner(obj, r) for r in refs)


def orphan_candidates(world: World) -> list[Key]:
    seen = {meta(o).get("uid") for kind in KINDS for o in world.list(kind)}
    keys = []
    for kind in KINDS:
        for obj in world.list(kind):
            refs = [r for r in meta(obj).get("ownerReferences") or [] if _watched(r)]
            if refs and all(r.get("uid") not in seen for r in refs):
                keys.append((f"gc:{kind}", meta(obj).get("namespace") or "", meta(obj)["name"]))
            if handles(obj):
                keys.append((f"gc:{kind}", meta(obj).get("namespace") or "", meta(obj)["name"]))
    return keys


def _owner_gone(client, world: World, obj: dict[str, Any], ref: dict[str, Any]) -> bool:
    kind = _watched(ref)
    if kind is None:
        return False  # a kind we do not watch: never guess that it is gone
    ns = meta(obj).get("namespace") if KINDS[kind].namespaced else None
    cached = world.get(kind, ns, ref.get("name", ""))
    if cached is not None and meta(cached).get("uid") == ref.get("uid"):
        return False
    try:
        live = client.get(KINDS[kind], ref["name"], ns)
    except NotFound:
        return True
    return meta(live).get("uid") != ref.get("uid")


def collect(client, world: World, kind: str, ns: str, name: str) -> int:
    """Run the garbage collector for one object; returns how many objects it deleted."""
    obj = world.get(kind, ns or None, name)
    if obj is None:
        return 0
    res = KINDS[kind]
    finalizers = list(meta(obj).get("finalizers") or [])
    removed = 0
    if meta(obj).get("deletionTimestamp") and ORPHAN in finalizers:
        for child_kind, child in _children(world, str(meta(obj)["uid"])):
            refs = [r for r in meta(child).get("ownerReferences") or [] if r.get("uid") != meta(obj)["uid"]]
            client.patch(KINDS[child_kind], meta(child)["name"], {"metadata": {"ownerReferences": refs or None}},
                         meta(child).get("namespace"))
        finalizers.remove(ORPHAN)
        client.patch(res, name, {"metadata": {"finalizers": finalizers or None,
                                              "resourceVersion": meta(obj)["resourceVersion"]}}, ns or None)
        return 0
    if meta(obj).get("deletionTimestamp") and FOREGROUND in finalizers:
        children = _children(world, str(meta(obj)["uid"]))
        for child_kind, child in children:
            if not meta(child).get("deletionTimestamp"):
                client.delete(KINDS[child_kind], meta(child)["name"], meta(child).get("namespace"),
                              propagation="Foreground", missing_ok=True)
                removed += 1
        if not children:
            finalizers.remove(FOREGROUND)
            client.patch(res, name, {"metadata": {"finalizers": finalizers or None,
                                                  "resourceVersion": meta(obj)["resourceVersion"]}}, ns or None)
        return removed
    refs = meta(obj).get("ownerReferences") or []
    if not refs or meta(obj).get("deletionTimestamp") or not all(_owner_gone(client, world, obj, r) for r in refs):
        return 0
    # As kube's collector does: re-read the dependent, decide on its live owners, and delete that very version.
    # The cached copy may predate an orphaning patch that already released it.
    try:
        live = client.get(res, name, ns or None)
    except NotFound:
        return 0
    live_refs = meta(live).get("ownerReferences") or []
    if not live_refs or not all(_owner_gone(client, world, live, r) for r in live_refs):
        return 0
    try:
        client.delete(res, name, ns or None, propagation="Background", missing_ok=True,
                      preconditions={"uid": meta(live)["uid"], "resourceVersion": meta(live)["resourceVersion"]})
    except Conflict:
        return 0  # changed since the read: its next event brings it back here
    return 1
