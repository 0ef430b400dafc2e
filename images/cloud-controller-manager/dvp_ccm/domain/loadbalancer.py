# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""LoadBalancer rules: which guest Services we serve, the DVP Service that backs one, which nodes it selects.

- Served: `type: LoadBalancer` without a `loadBalancerClass` (a class names another implementation).
- The DVP Service: named `"a" + uid without dashes`, cut to 32 (upstream's name); `type: LoadBalancer`; one port
  per guest port (name, protocol, port) targeting that port's NodePort; `externalTrafficPolicy` and
  `loadBalancerIP` copied. Its selector names the VMs of the backing nodes by a label the CCM puts on them:
  - shared: every Service that does not filter nodes (all but `externalTrafficPolicy: Local`) has the same
    backends, so it selects `{dvp.deckhouse.io/cluster-uuid: <ours>, dvp.deckhouse.io/load-balancer-backend:
    loadbalancer}`, one label on each VM of an eligible node for all of them. Upstream puts a label per Service on
    every backing VM: n Services made each VM carry n labels and cost n writes per VM on every node change.
  - filtered (`Local`): `{dvp.deckhouse.io/<name>: loadbalancer}`, on the VMs that pass its health check.
  A Service whose selector changes (an upgrade from per-Service labels, a policy change) switches only once the
  new selector's VMs carry its label, so it never selects no backend in between.
- Not copied, on purpose (tenant isolation): `externalIPs` (a guest user could claim any address in DVP, as in
  CVE-2020-8554) and annotations, except keys under configured prefixes.
- Refused with an Event (nothing changed in DVP): protocols other than TCP/UDP, ports without a NodePort, no
  ports, `externalIPs`, a `spec.selector`-less Service is fine (endpoints are the guest's business).
- ServiceWithHealthchecks (when the parent serves it and the Service has a TCP port): the same spec plus a
  `healthcheck` block, one TCP probe per distinct TCP target port (the NodePort), so the parent balances only to
  nodes answering there; a UDP-only Service stays a plain Service (a TCP probe would find no node healthy).
- The address is kept: a guest Service that has an address asks for it again (`loadBalancerIP`) whenever the
  parent object is made anew (a switch between the two kinds, a parent object deleted by hand); a
  `loadBalancerIP` set on the guest Service wins.
- Eligible nodes: initialised DVP Nodes not labelled `node.kubernetes.io/exclude-from-external-load-balancers`
  and not being removed by the cluster autoscaler; with `externalTrafficPolicy: Local` only those whose
  kube-proxy answers 200 on `healthCheckNodePort` (they run a ready endpoint).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dvp_common.dvp import labels as L

from . import taints as T
from .instances import is_foreign, labels, provider_id

Obj = dict[str, Any]
FINALIZER = "service.kubernetes.io/load-balancer-cleanup"
EXCLUDE_LABEL = "node.kubernetes.io/exclude-from-external-load-balancers"
PROTOCOLS = frozenset({"TCP", "UDP"})
# On the DVP Service: which guest Service it serves (annotations: names may exceed label limits).
GUEST_SERVICE = "dvp.deckhouse.io/guest-service"  # "<namespace>/<name>"
GUEST_SERVICE_UID = "dvp.deckhouse.io/guest-service-uid"


SERVICE_KIND, HEALTHCHECKS_KIND = "Service", "ServiceWithHealthchecks"
SHARED, FILTERED = "shared", "filtered"  # which backends a LoadBalancer selects (see the module docstring)


@dataclass(frozen=True)
class Healthchecks:
    """Probe timings of a ServiceWithHealthchecks (seconds)."""

    initial_delay: int = 10
    period: int = 10
    timeout: int = 1


class BadService(ValueError):
    """The guest Service asks for something we do not do; the message names the object and field."""


@dataclass(frozen=True)
class Desired:
    name: str
    label_key: str  # the Service's own label: its selector when filtered, to be removed from VMs when shared
    spec: Obj
    annotations: dict[str, str]
    kind: str = SERVICE_KIND
    keep_ip: str = ""  # the address the guest Service has now: asked for when the parent object is made anew
    shared: bool = True  # selects the shared backends (else its own label)

    def create_spec(self) -> Obj:
        """The spec of a new parent object: the guest's loadBalancerIP, else the address it already has."""
        if self.keep_ip and not self.spec.get("loadBalancerIP"):
            return {**self.spec, "loadBalancerIP": self.keep_ip}
        return self.spec


def md(obj: Obj) -> Obj:
    return obj.get("metadata") or {}


def key(svc: Obj) -> str:
    return f"{md(svc).get('namespace')}/{md(svc).get('name')}"


def wants_lb(svc: Obj) -> bool:
    spec = svc.get("spec") or {}
    return spec.get("type") == "LoadBalancer" and not spec.get("loadBalancerClass") \
        and not md(svc).get("deletionTimestamp")


def has_finalizer(svc: Obj) -> bool:
    return FINALIZER in (md(svc).get("finalizers") or [])


def needs_cleanup(svc: Obj) -> bool:
    """Ours once (finalizer) but no longer served: deleted, type changed, or class set."""
    return has_finalizer(svc) and not wants_lb(svc)


def names(svc: Obj) -> tuple[str, str]:
    name = L.lb_name(str(md(svc).get("uid") or ""))
    return name, L.lb_label_key(name)


def backends(svc: Obj) -> str:
    """SHARED, or FILTERED when nodes are filtered by their local endpoints."""
    return FILTERED if local_traffic(svc) is not None else SHARED


def shared_selector(cluster_uuid: str) -> dict[str, str]:
    return {L.CLUSTER_UUID: cluster_uuid, L.LB_BACKEND: L.LB_LABEL_VALUE}


def healthcheck(ports: list[Obj], timing: Healthchecks) -> Obj | None:
    """One TCP probe per distinct TCP target port; None when no port is TCP."""
    targets = sorted({p["targetPort"] for p in ports if p["protocol"] == "TCP"})
    if not targets:
        return None
    return {"initialDelaySeconds": timing.initial_delay, "periodSeconds": timing.period,
            "probes": [{"mode": "TCP", "timeoutSeconds": timing.timeout, "tcp": {"targetPort": t}} for t in targets]}


def desired(svc: Obj, cluster_uuid: str, annotation_prefixes: tuple[str, ...] = (),
            healthchecks: Healthchecks | None = None) -> Desired:
    """`healthchecks`: the parent serves ServiceWithHealthchecks and we use it (None: a plain Service)."""
    spec = svc.get("spec") or {}
    where = f'Service "{key(svc)}"'
    if spec.get("externalIPs"):
        raise BadService(f"{where}: spec.externalIPs is not supported by the DVP load balancer")
    ports = spec.get("ports") or []
    if not ports:
        raise BadService(f"{where}: spec.ports is empty")
    out_ports = []
    for i, port in enumerate(ports):
        proto = port.get("protocol") or "TCP"
        if proto not in PROTOCOLS:
            raise BadService(f"{where}: spec.ports[{i}].protocol {proto} is not supported (TCP, UDP)")
        if not port.get("nodePort"):
            raise BadService(f"{where}: spec.ports[{i}].nodePort is not set (allocateLoadBalancerNodePorts: false "
                             "is not supported)")
        item = {"protocol": proto, "port": int(port["port"]), "targetPort": int(port["nodePort"])}
        if port.get("name"):
            item["name"] = port["name"]
        out_ports.append(item)
    name, label_key = names(svc)
    shared = backends(svc) == SHARED
    selector = shared_selector(cluster_uuid) if shared else {label_key: L.LB_LABEL_VALUE}
    out: Obj = {"type": "LoadBalancer", "ports": out_ports, "selector": selector,
                "externalTrafficPolicy": spec.get("externalTrafficPolicy") or "Cluster"}
    if spec.get("loadBalancerIP"):
        out["loadBalancerIP"] = spec["loadBalancerIP"]
    annotations = {k: v for k, v in (md(svc).get("annotations") or {}).items()
                   if any(k.startswith(p) for p in annotation_prefixes if p)}
    annotations.update({GUEST_SERVICE: key(svc), GUEST_SERVICE_UID: str(md(svc).get("uid") or "")})
    kind = SERVICE_KIND
    probes = healthcheck(out_ports, healthchecks) if healthchecks is not None else None
    if probes is not None:
        out["healthcheck"] = probes
        kind = HEALTHCHECKS_KIND
    ips = [i.get("ip") for i in ingress(svc) if i.get("ip")]
    return Desired(name, label_key, out, annotations, kind, ips[0] if ips else "", shared)


def local_traffic(svc: Obj) -> int | None:
    """The healthCheckNodePort when nodes must be filtered by local endpoints, else None."""
    spec = svc.get("spec") or {}
    if spec.get("externalTrafficPolicy") == "Local" and spec.get("healthCheckNodePort"):
        return int(spec["healthCheckNodePort"])
    return None


def node_eligible(node: Obj) -> bool:
    if is_foreign(node) or not provider_id(node) or EXCLUDE_LABEL in labels(node):
        return False
    return not T.has(node, T.UNINITIALIZED) and not T.has(node, T.TO_BE_DELETED)


def selector_changes(current: Obj | None, want: Desired) -> bool:
    """Whether our existing DVP object selects other VMs than wanted (a new object changes no selector)."""
    return current is not None and ((current.get("spec") or {}).get("selector") or {}) != want.spec["selector"]


def spec_matches(current: Obj | None, want: Desired) -> bool:
    """Whether our DVP Service already says what we want (then no write at all)."""
    if current is None:
        return False
    spec = current.get("spec") or {}
    ports = [{k: p.get(k) for k in ("name", "protocol", "port", "targetPort") if p.get(k) is not None}
             for p in spec.get("ports") or []]
    asked = want.spec.get("loadBalancerIP")
    same_ip = spec.get("loadBalancerIP") == asked if asked else spec.get("loadBalancerIP") in (None, "", want.keep_ip)
    same_spec = (ports == want.spec["ports"] and (spec.get("selector") or {}) == want.spec["selector"]
                 and spec.get("externalTrafficPolicy") == want.spec["externalTrafficPolicy"] and same_ip
                 and spec.get("healthcheck") == want.spec.get("healthcheck"))
    return same_spec and (md(current).get("annotations") or {}) == want.annotations


def ingress(obj: Obj | None) -> list[Obj]:
    return list((((obj or {}).get("status") or {}).get("loadBalancer") or {}).get("ingress") or [])
