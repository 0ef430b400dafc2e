# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The caches' indexes: every lookup a reconcile makes per object is a dict lookup, never a scan of a cache.

A scan per reconcile makes n Services or Nodes cost O(n²): a Node's VM, a LoadBalancer's labelled VMs, the
eligible Nodes behind the LoadBalancers, the LoadBalancers that follow the node set, the DVP objects made for a
guest Service. The Manager installs them on its informers; tests install them on their stores.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from dvp_common.dvp import labels as L

from dvp_ccm.domain import loadbalancer as LB
from dvp_ccm.domain.instances import labels

Obj = dict[str, Any]
IndexFn = Callable[[Obj], list[str]]

VM_HOSTNAME, VM_LABEL_KEYS = "hostname", "label-keys"
NODE_LB_ELIGIBLE, ELIGIBLE = "lb-eligible", "yes"
SERVICE_BACKENDS = "lb-backends"  # LB.SHARED or LB.FILTERED, for Services that want a load balancer
GUEST_SERVICE = "guest-service"  # a DVP object's guest Service, "<namespace>/<name>"


class Indexed(Protocol):
    def add_index(self, name: str, fn: IndexFn) -> None: ...


def vm_hostnames(vm: Obj) -> list[str]:
    host = labels(vm).get(L.HOSTNAME)
    return [host] if host else []


def vm_label_keys(vm: Obj) -> list[str]:
    return list(labels(vm))


def node_eligible(node: Obj) -> list[str]:
    return [ELIGIBLE] if LB.node_eligible(node) else []


def service_backends(svc: Obj) -> list[str]:
    return [LB.backends(svc)] if LB.wants_lb(svc) else []


def guest_service(obj: Obj) -> list[str]:
    key = ((obj.get("metadata") or {}).get("annotations") or {}).get(LB.GUEST_SERVICE)
    return [key] if key else []


VM_INDEXES: dict[str, IndexFn] = {VM_HOSTNAME: vm_hostnames, VM_LABEL_KEYS: vm_label_keys}


def install(vms: Indexed, nodes: Indexed | None = None, services: Indexed | None = None,
            dvp_services: list[Indexed] | None = None) -> None:
    """`nodes`, `services` and `dvp_services` (Services and ServicesWithHealthchecks): for the LoadBalancers."""
    for name, fn in VM_INDEXES.items():
        vms.add_index(name, fn)
    if nodes is not None:
        nodes.add_index(NODE_LB_ELIGIBLE, node_eligible)
    if services is not None:
        services.add_index(SERVICE_BACKENDS, service_backends)
    for store in dvp_services or []:
        store.add_index(GUEST_SERVICE, guest_service)
