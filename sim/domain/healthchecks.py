# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ServiceWithHealthchecks (network.deckhouse.io/v1alpha1), as DVP's service-with-healthchecks controller plays it
(CONTRACT.md C13-C16).

- C13: a child Service of the same name, owned by the ServiceWithHealthchecks (controller ownerReference), with its
  labels and annotations, its spec without `selector` and `healthcheck`: the LoadBalancer implementation gives the
  child its address (services.py).
- C14: an EndpointSlice `<name>-healthchecks` of the child lists only the targets that pass every probe: the VMs of
  the namespace whose labels match `spec.selector` (DVP copies VM labels onto their pods), Running with an address.
- C15: the child's `status.loadBalancer` is copied to the ServiceWithHealthchecks' status; condition `Ready`
  True/`AllEndpointsAreReady` "All endpoints are ready" when every target passes, else False
  (`NotAllEndpointsAreReady` or, with none passing, `NoEndpointsAreReady`: the simulator's own reasons).
- C16: probes run again every `healthcheck.periodSeconds`; a child Service of that name owned by someone else is
  never changed (condition Ready False/`ServiceExists`).

Probe results: nothing is sent to a VM address; a VM fails a probe of port P when its annotation
`dvp-sim.deckhouse.io/failing-ports` lists P (comma separated), which is how tests play a node whose service is
down. `SimConfig.probe(vm, port)` replaces that rule.
"""

from __future__ import annotations

from dvp_common.dvp.resources import SERVICE_WITH_HEALTHCHECKS

from .. import conditions as C
from ..world import deleting, meta, phase, spec, status
from .plan import Obj, Plan, Write, changed, new_status

KIND = SERVICE_WITH_HEALTHCHECKS.kind
FAILING_PORTS = "dvp-sim.deckhouse.io/failing-ports"
SERVICE_NAME = "kubernetes.io/service-name"
MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
MANAGER = "service-with-healthchecks.network.deckhouse.io"
CHILD_FIELDS = ("type", "ports", "externalTrafficPolicy", "internalTrafficPolicy", "loadBalancerIP",
                "loadBalancerClass", "externalIPs", "ipFamilies", "ipFamilyPolicy", "sessionAffinity")


def failing_ports(vm: Obj) -> set[int]:
    text = (meta(vm).get("annotations") or {}).get(FAILING_PORTS) or ""
    return {int(p) for p in text.replace(" ", "").split(",") if p.isdigit()}


def default_probe(vm: Obj, port: int) -> bool:
    return port not in failing_ports(vm)


def probe_ports(swhc: Obj) -> list[int]:
    out = []
    for probe in (spec(swhc).get("healthcheck") or {}).get("probes") or []:
        body = probe.get({"TCP": "tcp", "HTTP": "http", "PostgreSQL": "postgreSQL"}.get(probe.get("mode"), "")) or {}
        if body.get("targetPort"):
            out.append(int(body["targetPort"]))
    return out


def owner_ref(swhc: Obj) -> Obj:
    return {"apiVersion": SERVICE_WITH_HEALTHCHECKS.api_version, "kind": KIND, "name": meta(swhc)["name"],
            "uid": meta(swhc)["uid"], "controller": True, "blockOwnerDeletion": True}


def owned(obj: Obj | None, swhc: Obj) -> bool:
    return any(r.get("uid") == meta(swhc).get("uid") for r in meta(obj).get("ownerReferences") or [])


def targets(swhc: Obj, world) -> list[Obj]:
    selector = spec(swhc).get("selector") or {}
    if not selector:
        return []
    ns = meta(swhc).get("namespace")
    return [vm for vm in world.list("VirtualMachine", ns)
            if all((meta(vm).get("labels") or {}).get(k) == v for k, v in selector.items())
            and phase(vm) == "Running" and status(vm).get("ipAddress")]


def child_spec(swhc: Obj) -> Obj:
    return {k: v for k, v in spec(swhc).items() if k in CHILD_FIELDS}


def reconcile(swhc: Obj, world, cfg) -> Plan:
    plan = Plan()
    if deleting(swhc):
        return plan  # the garbage collector removes the child Service and the EndpointSlice
    ns, name = meta(swhc).get("namespace"), meta(swhc)["name"]
    st = new_status(swhc)
    child = world.get("Service", ns, name)
    md = {"labels": dict(meta(swhc).get("labels") or {}), "annotations": dict(meta(swhc).get("annotations") or {})}
    if child is None:
        plan.creates.append(("Service", {"apiVersion": "v1", "kind": "Service", "metadata": {
            "name": name, "namespace": ns, "ownerReferences": [owner_ref(swhc)], **md}, "spec": child_spec(swhc)}))
    elif not owned(child, swhc):
        C.put(st, C.READY, False, "ServiceExists", f'Service "{name}" exists and is not managed by this object')
        plan.status = changed(swhc, st)
        return plan
    else:
        want = child_spec(swhc)
        have = {k: v for k, v in spec(child).items() if k in want}
        ports = [{k: p.get(k) for k in ("name", "protocol", "port", "targetPort") if p.get(k) is not None}
                 for p in have.get("ports") or []]
        if {**have, "ports": ports} != want or {k: (meta(child).get(k) or {}) for k in md} != md:
            plan.first.append(Write("Service", child, patch={"metadata": md, "spec": want}))
    probe = cfg.probe or default_probe
    ports = probe_ports(swhc)
    found = targets(swhc, world)
    healthy = [vm for vm in found if all(probe(vm, p) for p in ports)]
    _endpoints(plan, swhc, world, healthy)
    st["loadBalancer"] = dict(status(child).get("loadBalancer") or {}) if child is not None else {}
    st["healthyEndpoints"] = len(healthy)
    if found and len(healthy) == len(found):
        C.put(st, C.READY, True, "AllEndpointsAreReady", "All endpoints are ready")
    elif healthy:
        C.put(st, C.READY, False, "NotAllEndpointsAreReady", f"{len(healthy)} of {len(found)} endpoints are ready")
    else:
        C.put(st, C.READY, False, "NoEndpointsAreReady", "No endpoint is ready")
    plan.status = changed(swhc, st)
    plan.wake(float((spec(swhc).get("healthcheck") or {}).get("periodSeconds") or 10))
    return plan


def _endpoints(plan: Plan, swhc: Obj, world, healthy: list[Obj]) -> None:
    ns, name = meta(swhc).get("namespace"), meta(swhc)["name"]
    slice_name = f"{name}-healthchecks"
    ports = [{k: v for k, v in (("name", p.get("name")), ("protocol", p.get("protocol") or "TCP"),
                                 ("port", p.get("targetPort") or p.get("port"))) if v is not None}
             for p in spec(swhc).get("ports") or []]
    endpoints = [{"addresses": [status(vm)["ipAddress"]], "conditions": {"ready": True},
                  **({"nodeName": status(vm)["nodeName"]} if status(vm).get("nodeName") else {})}
                 for vm in sorted(healthy, key=lambda v: meta(v)["name"])]
    current = world.get("EndpointSlice", ns, slice_name)
    if current is None:
        plan.creates.append(("EndpointSlice", {
            "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {
                "name": slice_name, "namespace": ns, "ownerReferences": [owner_ref(swhc)],
                "labels": {SERVICE_NAME: name, MANAGED_BY: MANAGER}},
            "addressType": "IPv4", "ports": ports, "endpoints": endpoints}))
    elif (current.get("endpoints") or []) != endpoints or (current.get("ports") or []) != ports:
        plan.first.append(Write("EndpointSlice", current, patch={"endpoints": endpoints, "ports": ports}))
