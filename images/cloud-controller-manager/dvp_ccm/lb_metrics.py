# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`dvp_ccm_load_balancers{state}`: the guest's LoadBalancer Services, `ensured` once their status holds the DVP
address, else `pending`. Read from the Service informer's cache at scrape time; the label set is these two values.
`dvp_ccm_adoptions_total{kind}`: parent objects the previous module made that the CCM adopted (`kind`: Service,
ServiceWithHealthchecks)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import GaugeMetricFamily

from dvp_ccm.domain import loadbalancer as LB

STATES = ("ensured", "pending")


def census(services: Iterable[dict]) -> dict[str, int]:
    counts = dict.fromkeys(STATES, 0)
    for svc in services:
        if LB.wants_lb(svc):
            ingress = ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress")
            counts["ensured" if ingress else "pending"] += 1
    return counts


class _LoadBalancers:
    def __init__(self, services: Callable[[], Iterable[dict]]) -> None:
        self.services = services

    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily("dvp_ccm_load_balancers", "LoadBalancer Services by whether DVP's address is "
                                   "in their status", labels=["state"])
        for state, n in census(self.services()).items():
            family.add_metric([state], n)
        yield family


def register(registry: CollectorRegistry, services: Callable[[], Iterable[dict]]) -> None:
    registry.register(_LoadBalancers(services))


def adoptions(registry: CollectorRegistry) -> Callable[[str], None]:
    """`dvp_ccm_adoptions_total{kind}` on `registry`; the returned callable counts one adoption of `kind`."""
    counter = Counter("dvp_ccm_adoptions", "Parent objects of the previous module adopted, by kind", ["kind"],
                      registry=registry)
    return lambda kind: counter.labels(kind=kind).inc()
