# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP-side load balancers backing guest LoadBalancers, a Service or a ServiceWithHealthchecks (the parent's
service-with-healthchecks module: a Service whose endpoints are only the targets passing its probes): only ours
are updated or deleted, every write guarded by the object's uid."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..kube.errors import AlreadyExists, NotFound
from ..kube.resources import SERVICE
from . import labels as L
from .connection import DVPConnection
from .objects import Obj, Objects
from .ownership import owned_labels
from .resources import SERVICE_WITH_HEALTHCHECKS


def ingress(obj: Obj | None) -> list[dict[str, Any]]:
    return list((((obj or {}).get("status") or {}).get("loadBalancer") or {}).get("ingress") or [])


def _replacing(old: dict[str, str] | None, new: dict[str, str]) -> dict[str, str | None]:
    """A merge patch turning map `old` into `new` (merge patches merge maps; keys gone must be nulled)."""
    return {**{k: None for k in old or {} if k not in new}, **new}


class Services(Objects):
    resource = SERVICE

    def ensure(self, name: str, spec: Obj, labels: dict[str, str] | None = None,
               annotations: dict[str, str] | None = None, *, known: bool = False,
               matches: Callable[[Obj], bool] | None = None) -> Obj:
        """Create, or bring our existing Service to `spec` (a foreign Service of that name raises NotOurs).
        `known`: the caller's cache holds it, so it is read first; otherwise created first, one request for a new
        one. `matches(live)`: the existing object already says what is wanted, so nothing is written (a cache that
        had not seen it yet costs a read, not a patch)."""
        body = self.build(name, spec, labels, metadata={"annotations": annotations or {}})
        current = None
        if known:
            current = self.get_or_none(name)
        if current is None:
            try:
                return self.create(body, existing=False)
            except AlreadyExists:
                current = self.get(name)
        self.require_ours(current)
        if matches is not None and matches(current):
            return current
        return self.patch(name, self.update_patch(current, spec, labels, annotations), current)

    def update_patch(self, current: Obj, spec: Obj, labels: dict[str, str] | None = None,
                     annotations: dict[str, str] | None = None) -> Obj:
        """The merge patch that makes `current` say `spec`, our labels with `labels` and exactly `annotations`
        (merge patches merge maps: keys gone are nulled, in the selector too)."""
        old_meta, old_spec = current.get("metadata") or {}, current.get("spec") or {}
        ours = owned_labels(self.conn.cluster_uuid, self._me(), labels)
        return {"metadata": {"labels": _replacing(old_meta.get("labels"), ours),
                             "annotations": _replacing(old_meta.get("annotations"), annotations or {})},
                "spec": {**spec, "selector": _replacing(old_spec.get("selector"), spec.get("selector") or {})}}

    def wait_ingress(self, name: str, timeout: float) -> Obj:
        obj = self.wait(name, lambda o: bool(ingress(o)), timeout)
        assert obj is not None
        return obj


class ServicesWithHealthchecks(Services):
    """The same operations on `network.deckhouse.io/v1alpha1` ServiceWithHealthchecks: DVP's controller of that
    kind makes a child Service of the same name (owned by it) and gives it the address."""

    resource = SERVICE_WITH_HEALTHCHECKS


def owned_by_healthchecks(obj: Obj | None) -> bool:
    """A Service made by DVP's ServiceWithHealthchecks controller (changed only through its parent)."""
    refs = ((obj or {}).get("metadata") or {}).get("ownerReferences") or []
    return any(r.get("kind") == SERVICE_WITH_HEALTHCHECKS.kind for r in refs)


def cluster_load_balancers(conn: DVPConnection, component: str) -> list[tuple[Services, Obj]]:
    """Every DVP load balancer the CCM of this cluster made (our cluster UUID and the ccm component label: the
    ownership rule, nothing else), both kinds, for `component` to remove when the cluster is torn down.
    A kind DVP does not serve (404) has none."""
    out: list[tuple[Services, Obj]] = []
    for kind in (ServicesWithHealthchecks(conn, component, frozenset({L.CCM})),
                 Services(conn, component, frozenset({L.CCM}))):
        try:
            out += [(kind, obj) for obj in kind.list()]
        except NotFound:
            continue
    return out
