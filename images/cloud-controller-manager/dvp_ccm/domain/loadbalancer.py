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

Adoption (a cluster switched from the Go module): a parent object of either kind named `a<uid32>` for a guest
LoadBalancer Service of this cluster that carries our cleanup finalizer, with no component label and no other
cluster's UUID, is adopted (`adoption_proof`: the guest Service, whose uid the API server chose, names it; a strong
proof; the Go module writes no labels, so none are expected) with `Objects.adopt` (uid and resourceVersion
guarded), then reconciled as ours: our annotations and selector, its address into the guest Service. A Normal
`AdoptedLoadBalancer` on the guest Service, `dvp_ccm_adoptions_total{kind}` counts it. A child Service of an
upstream ServiceWithHealthchecks is its parent's and never adopted. The parent is read live only for a guest
Service that carried the cleanup finalizer before this pass (someone served it) and has no parent in our caches:
one GET and the adopting patch; a new LoadBalancer is still created without a read.
An adopted parent of the other kind than the one we would make (the Go module chose by its own probe of the
parent; we by the parent's ModuleConfig) keeps its kind: replacing it would free its address in the parent's
load balancer pool, and the replacement only asks for it again (`loadBalancerIP`), which another project's Service
may take first and which the guest Service may not even report yet. The adopting patch marks it
(`ADOPTED_KIND`); `desired(..., kept=True)` keeps the mark while the kind we would choose differs; once we would
choose that kind ourselves, the mark goes with the next patch and it is an ordinary parent of ours (a later
switch of kinds moves it as any other). A UDP-only Service adopted as a ServiceWithHealthchecks cannot keep it
(no TCP probe to give) and is switched as before. The Go module's VMs (read as this cluster's
instances, `instances.readable`) are never labelled: they keep their per-Service label until they go, and an
adopted parent whose selector names them keeps it until a VM of ours is eligible.

Foreign objects on the way (a cluster switched from the Go module: its parent Service has the same name, no
labels, and selects `{dvp.deckhouse.io/<name>: loadbalancer}` on VMs the Go module's nodes run in):
- A VM that carries a load balancer's label and is not ours (the ownership rule, `instances.considered`) is left
  alone: no label is put on or taken off it, a Warning `LoadBalancerNotOurs` on the guest Service names it (the
  log says it once), and the rest of the work goes on, so nothing a foreign VM carries keeps a guest Service
  from being served or deleted.
- A release (the guest Service deleted, its type changed, its class set) deletes our parent objects of both
  kinds and takes its label off our VMs; it is reported done (`release_outcome`) only on what is left under
  that name afterwards, read live (a child Service of a ServiceWithHealthchecks is its parent's and not looked
  at):
  - nothing: done, Normal `DeletedLoadBalancer` "load balancer deleted";
  - an object of ours (deleting: DVP still holds it, e.g. its own load balancer finalizer): not done, looked at
    again after `recheck` seconds; the guest Service keeps its finalizer, so its address is never reported free
    while DVP still holds it;
  - only objects not ours: done, never changed; a Warning `LoadBalancerNotOurs` names each (kind, name, its
    address), so the operator knows that the parent object and its address stay in DVP. The guest Service's
    finalizer goes: waiting would keep it Terminating for ever, since nothing of this cluster may remove them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dvp_common.dvp import labels as L
from dvp_common.dvp.adoption import Proof
from dvp_common.dvp.ownership import is_ours

from . import events as E
from . import taints as T
from .instances import considered, is_foreign, labels, provider_id
from .instances import name as obj_name

Obj = dict[str, Any]
FINALIZER = "service.kubernetes.io/load-balancer-cleanup"
EXCLUDE_LABEL = "node.kubernetes.io/exclude-from-external-load-balancers"
PROTOCOLS = frozenset({"TCP", "UDP"})
# On the DVP Service: which guest Service it serves (annotations: names may exceed label limits).
GUEST_SERVICE = "dvp.deckhouse.io/guest-service"  # "<namespace>/<name>"
GUEST_SERVICE_UID = "dvp.deckhouse.io/guest-service-uid"
# On a parent object adopted from the Go module with the other kind than ours: the kind it keeps (see above).
ADOPTED_KIND = "dvp.deckhouse.io/adopted-kind"


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
            healthchecks: Healthchecks | None = None, kept: bool = False) -> Desired:
    """`healthchecks`: the parent serves ServiceWithHealthchecks and we use it (None: a plain Service); `kept`:
    the kind is an adopted parent's, kept against our choice (marked `ADOPTED_KIND`)."""
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
    if kept:
        annotations[ADOPTED_KIND] = kind
    ips = [i.get("ip") for i in ingress(svc) if i.get("ip")]
    return Desired(name, label_key, out, annotations, kind, ips[0] if ips else "", shared)


def kept_kind(obj: Obj | None) -> str:
    """The kind an adopted parent object keeps against our choice ("" when none: ours to switch)."""
    return str((md(obj or {}).get("annotations") or {}).get(ADOPTED_KIND) or "")


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


def split_vms(vms: list[Obj], cluster_uuid: str) -> tuple[list[Obj], list[str]]:
    """(our VMs, names of the VMs not ours, left alone): labels are changed only on ours."""
    ours = [vm for vm in vms if considered(vm, cluster_uuid)]
    return ours, sorted(obj_name(vm) for vm in vms if not considered(vm, cluster_uuid))


def vm_not_ours_message(guest_key: str, vm_name: str, label_key: str) -> str:
    return (f'Service "{guest_key}": DVP VirtualMachine "{vm_name}" carries label "{label_key}" and is not '
            "managed by this cluster; left alone")


@dataclass(frozen=True)
class Release:
    """What a release reports: `done` lets the guest Service's finalizer go; else look again after
    `requeue_after` seconds."""

    done: bool
    requeue_after: float | None = None
    events: list[tuple[str, str, str]] = field(default_factory=list)  # (type, reason, message)


def release_outcome(guest_key: str, lb_name: str, remaining: list[tuple[str, Obj]], cluster_uuid: str,
                    recheck: float) -> Release:
    """`remaining`: (kind, object) of the parent objects of that name (any owner, children of a
    ServiceWithHealthchecks left out) as read after our delete (see the module docstring)."""
    if any(is_ours(obj, cluster_uuid, L.CCM) for _, obj in remaining):
        return Release(False, recheck)
    if not remaining:
        return Release(True, events=[(E.NORMAL, E.DELETED_LB, f'Service "{guest_key}": load balancer deleted')])
    out = []
    for kind, obj in remaining:
        ips = ", ".join(i.get("ip") or i.get("hostname") or "" for i in ingress(obj)) or "none"
        out.append((E.WARNING, E.LB_NOT_OURS,
                    f'Service "{guest_key}": DVP {kind} "{lb_name}" is not managed by this cluster and stays in '
                    f"DVP with its address ({ips}); not deleted, the guest Service is released"))
    return Release(True, events=out)


def adoption_proof(svc: Obj, lb_name: str) -> Proof | None:
    """The proof that the parent object `lb_name` was made for `svc`: a guest LoadBalancer Service of this cluster
    that carries our cleanup finalizer and whose uid (chosen by the API server, no user picks it) is in the name;
    None when `svc` does not name it."""
    uid = str(md(svc).get("uid") or "")
    if not uid or not has_finalizer(svc) or names(svc)[0] != lb_name:
        return None
    return Proof("Service", key(svc), "metadata.uid", strong=True)
