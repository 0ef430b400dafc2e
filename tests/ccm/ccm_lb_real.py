# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""LoadBalancer helpers for the CCM's real-API tests (ccm_real.Env): nodes with VMs, guest LoadBalancer Services,
and the DVP object that backs one, read as a plain Service or a ServiceWithHealthchecks once it has an address."""

from __future__ import annotations

import threading
from collections import Counter

from ccm_real import Env
from dvp_common.dvp.resources import SERVICE as DVP_SERVICE
from dvp_common.dvp.resources import SERVICE_WITH_HEALTHCHECKS as SWHC
from dvp_common.kube import NotFound
from dvp_common.kube.resources import SERVICE

PORTS = [{"name": "http", "port": 80, "targetPort": 8080}, {"name": "https", "port": 443, "targetPort": 8443}]


def get(client, res, name, ns):
    try:
        return client.get(res, name, ns)
    except NotFound:
        return None


def ingress(obj: dict | None) -> list | None:
    return ((obj or {}).get("status") or {}).get("loadBalancer", {}).get("ingress")


def guest_ingress(env: Env, name: str = "web") -> list | None:
    return ingress(env.guest.get(SERVICE, name, env.guest_ns))


def nodes(env: Env, count: int, prefix: str = "h") -> list[str]:
    for i in range(count):
        env.vm(f"{prefix}{i}")
        env.node(f"{prefix}{i}", provider_id=f"dvp://{prefix}{i}", taints=[])
    return [f"{prefix}{i}" for i in range(count)]


def lb_service(env: Env, name: str = "web", ports=None) -> dict:
    return env.guest.create(SERVICE, {"metadata": {"name": name}, "spec": {
        "type": "LoadBalancer", "selector": {"app": name}, "ports": ports or PORTS}}, env.guest_ns)


def plain_with_address(env: Env, name: str) -> dict | None:
    """Our plain DVP Service `name` once it has an address (not a ServiceWithHealthchecks' child)."""
    obj = get(env.dvp, DVP_SERVICE, name, env.ns)
    return obj if obj and "ownerReferences" not in obj["metadata"] and ingress(obj) else None


def healthchecks_with_address(env: Env, name: str) -> dict | None:
    obj = get(env.dvp, SWHC, name, env.ns)
    return obj if ingress(obj) else None


class Requests:
    """A fault hook on the CCM's DVP client that injects nothing and counts requests by (verb, resource):
    ("discover", "<group>/<version>"), ("get", "<plural>.<group>"), ..."""

    def __init__(self) -> None:
        self.seen: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()

    def __call__(self, info):
        with self._lock:
            self.seen[(info.verb, info.resource)] += 1
        return None

    def count(self, verb: str, resource: str) -> int:
        with self._lock:
            return self.seen[(verb, resource)]
