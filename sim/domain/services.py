# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""LoadBalancer Services get status.loadBalancer.ingress from the pool (what MetalLB/L2 does in DVP)."""

from __future__ import annotations

import functools
import ipaddress

from .. import indexes as ix
from ..world import deleting, meta, spec, status
from .plan import Obj, Plan, changed, new_status


def ingress_ips(svc: Obj) -> list[str]:
    return [i.get("ip") for i in (status(svc).get("loadBalancer") or {}).get("ingress") or [] if i.get("ip")]


@functools.cache
def hosts(cidr: str) -> tuple[str, ...]:
    return tuple(str(h) for h in ipaddress.ip_network(cidr).hosts())


def reconcile(svc: Obj, world, cfg) -> Plan:
    plan = Plan()
    if deleting(svc):
        return plan
    st = new_status(svc)
    if spec(svc).get("type") != "LoadBalancer":
        if ingress_ips(svc):
            st["loadBalancer"] = {}
            plan.status = changed(svc, st)
        return plan
    if ingress_ips(svc):
        return plan
    def used(ip: str) -> bool:  # by the ingress index: a lookup per address tried, not a list of every Service
        return any(meta(other).get("uid") != meta(svc).get("uid") and ip in ingress_ips(other)
                   for other in world.by("Service", ix.service_ingress, ip))

    wanted = spec(svc).get("loadBalancerIP")
    ip = wanted if wanted and not used(wanted) else world.next_free(f"lb:{cfg.lb_pool}", hosts(cfg.lb_pool), used)
    if ip is None:
        return plan  # pool exhausted: stays pending, as a real LB would
    st["loadBalancer"] = {"ingress": [{"ip": ip, "ipMode": "VIP"}]}
    plan.status = changed(svc, st)
    return plan
