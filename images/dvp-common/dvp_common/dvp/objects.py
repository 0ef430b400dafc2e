# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Operations shared by every DVP object kind, with the ownership rule on every write.

Reads of our own objects go through `get_ours`/`find`; writes to an existing object first check it is
ours and then carry its uid as a precondition, so a same-named replacement is never touched.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from ..kube.client import get_or_none
from ..kube.errors import Conflict, Invalid
from ..kube.resources import Resource
from . import labels as L
from . import manifests
from .adoption import Proof, Verdict, decide
from .connection import DVPConnection
from .errors import DuplicateObjects
from .ownership import NotOurs, is_ours, owned_labels, require_ours
from .state import condition, phase

Obj = dict[str, Any]
__all__ = ["Obj", "Objects", "condition", "phase"]  # phase and condition: dvp_common.dvp.state
log = logging.getLogger(__name__)


class Objects:
    resource: Resource

    default_owners: frozenset[str] | None = None  # whose objects of this kind count as ours (None: the caller's)

    def __init__(self, conn: DVPConnection, component: str | None = None,
                 owners: frozenset[str] | None = None) -> None:
        """`component` is who we are (None for read-only users: discoverer, webhooks); `owners` the components
        whose objects we may use (VMs are made by capdvp but read and labelled by CSI and CCM)."""
        self.conn, self.kube, self.component = conn, conn.client, component
        self.owners = owners or self.default_owners or (frozenset({component}) if component else None)

    @property
    def ns(self) -> str | None:
        return self.conn.namespace if self.resource.namespaced else None

    def _me(self) -> str:
        if not self.component:
            raise ValueError(f"{self.resource.kind}: a component is needed to create or change objects")
        return self.component

    # reads
    def get(self, name: str) -> Obj:
        return self.kube.get(self.resource, name, self.ns)

    def get_or_none(self, name: str) -> Obj | None:
        return get_or_none(self.kube, self.resource, name, self.ns)

    def _owners(self) -> frozenset[str]:
        if not self.owners:
            raise ValueError(f"{self.resource.kind}: a component is needed to judge ownership")
        return self.owners

    def require_ours(self, obj: Obj) -> Obj:
        return require_ours(obj, self.conn.cluster_uuid, self._owners(), self.resource.kind)

    def get_ours(self, name: str) -> Obj:
        return self.require_ours(self.get(name))

    def is_ours(self, obj: Obj | None) -> bool:
        return is_ours(obj, self.conn.cluster_uuid, self._owners())

    def list(self, labels: dict[str, str] | None = None, ours: bool = True, *,
             deadline: float | None = None) -> list[Obj]:
        """Objects with these labels; `ours=True` keeps only ours (selected server-side, checked again here).
        `deadline`: seconds for all pages and retries."""
        selector = dict(labels or {})
        if ours:
            owners = self._owners()
            selector[L.CLUSTER_UUID] = self.conn.cluster_uuid
            if len(owners) == 1:
                selector[L.COMPONENT] = next(iter(owners))
        bound = {"deadline": deadline} if deadline is not None else {}
        items = self.kube.list_all(self.resource, self.ns, label_selector=selector or None, **bound).items
        return [o for o in items if self.is_ours(o)] if ours else items

    def find_one(self, labels: dict[str, str], ours: bool = True) -> Obj | None:
        found = self.list(labels, ours)
        if len(found) > 1:
            names = ", ".join(sorted(o["metadata"]["name"] for o in found))
            raise DuplicateObjects(self.resource.kind, ",".join(f"{k}={v}" for k, v in labels.items()),
                                   f"{len(found)} objects match: {names}")
        return found[0] if found else None

    # writes
    def build(self, name: str, spec: Obj, labels: dict[str, str] | None = None, **extra: Any) -> Obj:
        metadata = {"name": name, "labels": owned_labels(self.conn.cluster_uuid, self._me(), labels)}
        metadata.update(extra.pop("metadata", {}))
        return {"apiVersion": self.resource.api_version, "kind": self.resource.kind, "metadata": metadata,
                "spec": spec, **extra}

    def create(self, body: Obj, *, existing: bool = True) -> Obj:
        """Create with our labels; an existing object of the same name is returned if ours, else NotOurs
        (`existing=False`: AlreadyExists is raised instead, without a read)."""
        labels = body.setdefault("metadata", {}).setdefault("labels", {})
        labels.update(owned_labels(self.conn.cluster_uuid, self._me()))
        out = self.kube.create(self.resource, body, self.ns, get_existing=existing)
        return require_ours(out, self.conn.cluster_uuid, self._me(), self.resource.kind)

    def owner_ref(self, obj: Obj, controller: bool = True) -> Obj:
        """An ownerReference to `obj` (DVP garbage-collects dependants with it); flags: manifests.owner_reference."""
        return manifests.owner_reference(obj, controller)

    def patch(self, name: str, body: Obj, current: Obj | None = None) -> Obj:
        """Merge-patch one of our objects (uid-guarded: a same-named replacement answers 409)."""
        current = current if current is not None else self.get(name)
        self.require_ours(current)
        guarded = {**body, "metadata": {**(body.get("metadata") or {}), "uid": current["metadata"]["uid"]}}
        return self._guarded_patch(name, guarded, current)

    def adopt(self, current: Obj, proof: Proof | None, expected: Mapping[str, str] | None = None, *,
              extra_labels: Mapping[str, str] | None = None, annotations: Mapping[str, str | None] | None = None,
              body: Mapping[str, Any] | None = None) -> Obj:
        """Make `current` (as read and judged) ours when `dvp_common.dvp.adoption` says its provenance is proven by
        `proof`; `expected`: the labels the scheme that made it writes. Ours already: returned, nothing written.
        Foreign: NotOurs, nothing written. Else our labels (and `extra_labels`, `annotations`, the rest of `body`
        but its metadata: what the adopter would write next to make it as its own) are patched in, one request,
        under uid and resourceVersion preconditions (a change since the read answers Conflict), logged once with
        the proof; the object returned."""
        decision = decide(current, self.conn.cluster_uuid, self._me(), proof, expected, extra_labels=extra_labels,
                          annotations=annotations)
        md = current.get("metadata") or {}
        name = md.get("name", "")
        if decision.verdict is Verdict.OURS:
            return current
        if decision.verdict is Verdict.FOREIGN or decision.patch is None:
            raise NotOurs(f"not adopted: {decision.reason}", status=404, reason="NotOurs", kind=self.resource.kind,
                          name=name, namespace=self.ns or "")
        patch = {**{k: v for k, v in (body or {}).items() if k != "metadata"}, "metadata": decision.patch["metadata"]}
        out = self._guarded_patch(name, patch, current)
        log.info("adopted %s %s: named by %s", self.resource.kind, name, decision.proof,
                 extra={"kind": self.resource.kind, "object": name, "proof": str(decision.proof)})
        return out

    def _guarded_patch(self, name: str, guarded: Obj, current: Obj) -> Obj:
        try:
            return self.kube.patch(self.resource, name, guarded, self.ns)
        except Invalid as exc:
            # kube-apiserver answers a uid mismatch in a patch with 422 "metadata.uid: field is immutable":
            # for the caller it is a conflict (the object was replaced since it was read).
            if "metadata.uid" not in exc.message:
                raise
            raise Conflict(f"replaced since it was read (uid {current['metadata']['uid']} is gone)", status=409,
                           reason="Conflict", kind=self.resource.kind, name=name, namespace=self.ns or "",
                           verb="patch") from None

    def delete(self, name: str, current: Obj | None = None) -> bool:
        """Delete one of our objects; False when it was already gone. A foreign object raises NotOurs.

        `current` is the object the caller judged (read from a cache or a list): the delete carries its uid, so a
        same-named object made since that read answers 409 and is never touched."""
        current = current if current is not None else self.get_or_none(name)
        if current is None:
            return False
        self.require_ours(current)
        return self.kube.delete(self.resource, name, self.ns, missing_ok=True,
                                preconditions={"uid": current["metadata"]["uid"]}) is not None

    # waits
    def wait(self, name: str, predicate: Callable[[Obj | None], Any], timeout: float,
             describe: Callable[[Obj | None], str] | None = None) -> Obj | None:
        """`describe` words the last state seen for the WaitTimeout message."""
        return self.kube.wait_for(self.resource, name, predicate, timeout, self.ns, describe=describe)

    def wait_gone(self, name: str, timeout: float) -> None:
        self.wait(name, lambda o: o is None, timeout)
