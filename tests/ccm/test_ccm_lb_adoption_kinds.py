# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Adopting the Go module's parent load balancer: one live read and one guarded patch that also gives it our spec
once the selector may switch; a parent of the other kind than ours (the Go module chose by its own probe) keeps
its kind, so its address is never given back to the pool."""

from __future__ import annotations

import copy

from ccm_builders import node, service, vm
from ccm_context import UUID, world
from dvp_ccm import indexes
from dvp_ccm.controllers.service import BACKENDS, ServiceController
from dvp_ccm.domain import events as E
from dvp_ccm.domain import loadbalancer as LB
from dvp_ccm.runner import DONE
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import SERVICE_WITH_HEALTHCHECKS as SWHC
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import NODE, SERVICE
from informed_api import NS

UID = "0c1f2e3d-4b5a-6978-8a9b-acbdcedf0011"
LBN = "a0c1f2e3d4b5a69788a9bacbdcedf001"
KEY = L.LB_LABEL_PREFIX + LBN
IP = "192.0.2.7"
OURS = {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.CLUSTER_UUID: UUID, L.COMPONENT: L.CCM}
PORTS = [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 30080}]
UPSTREAM_SPEC = {"type": "LoadBalancer", "externalTrafficPolicy": "Cluster", "selector": {KEY: "loadbalancer"},
                 "ports": PORTS}
OUR_SPEC = {"type": "LoadBalancer", "externalTrafficPolicy": "Cluster", "ports": PORTS,
            "selector": {KEY: None, **LB.shared_selector(UUID)}}  # upstream's key nulled (a merge patch)
ANNOTATIONS = {"example.com/copied": None, LB.GUEST_SERVICE: "shop/web", LB.GUEST_SERVICE_UID: UID}
PROBES = {"initialDelaySeconds": 10, "periodSeconds": 10,
          "probes": [{"mode": "TCP", "timeoutSeconds": 1, "tcp": {"targetPort": 30080}}]}


def switched(*, healthchecks: bool, upstream_kind: str):
    """Our node VM w-0 (already carrying the shared backend label), the Go module's parent of `upstream_kind`
    (a ServiceWithHealthchecks with the child Service DVP made for it), the guest Service it served; DVP serves
    ServiceWithHealthchecks and we would make one when `healthchecks`."""
    w = world()
    store = w.dvp.store(SWHC)
    store.add_index(indexes.GUEST_SERVICE, indexes.guest_service)
    w.ctx.cloud.healthchecks_store = store
    w.ctx.cloud.healthchecks_synced = w.ctx.cloud.healthchecks_served = lambda: True
    w.ctx.use_healthchecks = lambda: healthchecks
    w.dvp.put(VIRTUAL_MACHINE, vm("w-0", UUID, ip="10.66.0.10"))
    w.guest.put(NODE, node("w-0", provider_id="dvp://w-0"))
    meta = {"name": LBN, "namespace": NS, "annotations": {"example.com/copied": "x"}}
    status = {"loadBalancer": {"ingress": [{"ip": IP}]}}
    if upstream_kind == LB.SERVICE_KIND:
        w.dvp.put(SERVICE, {"metadata": meta, "spec": copy.deepcopy(UPSTREAM_SPEC), "status": status})
    else:
        parent = w.dvp.put(SWHC, {"metadata": meta, "spec": {**copy.deepcopy(UPSTREAM_SPEC), "healthcheck": PROBES},
                                  "status": status})
        w.dvp.put(SERVICE, {"metadata": {"name": LBN, "namespace": NS, "ownerReferences": [
            {"apiVersion": SWHC.api_version, "kind": SWHC.kind, "name": LBN, "uid": parent["metadata"]["uid"],
             "controller": True}]}, "spec": copy.deepcopy(UPSTREAM_SPEC), "status": status})
    svc = service("web", "shop")
    svc["metadata"].update(uid=UID, finalizers=[LB.FINALIZER])
    w.guest.put(SERVICE, svc)
    c = ServiceController(w.ctx)
    assert c.reconcile(BACKENDS) == DONE
    w.dvp.calls.clear()
    return w, c


def record_patches(w) -> list:
    patches: list = []
    real = w.dvp.client.patch

    def patch(res, name, body, namespace=None, **kw):
        patches.append((res.kind, name, copy.deepcopy(body)))
        return real(res, name, body, namespace, **kw)
    w.dvp.client.patch = patch
    return patches


def guarded(obj: dict, annotations: dict, spec: dict) -> dict:
    md = obj["metadata"]
    return {"metadata": {"uid": md["uid"], "resourceVersion": md["resourceVersion"], "labels": OURS,
                         "annotations": annotations}, "spec": spec}


def test_same_kind_is_one_read_and_one_patch_with_our_spec():
    w, c = switched(healthchecks=False, upstream_kind=LB.SERVICE_KIND)
    before = w.dvp.peek(SERVICE, LBN, NS)
    patches = record_patches(w)
    assert c.reconcile("shop/web") == DONE
    assert w.dvp.calls == [("get", "Service", LBN), ("patch", "Service", LBN)]
    assert patches == [("Service", LBN, guarded(before, ANNOTATIONS, OUR_SPEC))]
    assert LB.ingress(w.guest.peek(SERVICE, "web", "shop")) == [{"ip": IP}]
    assert c.reconcile("shop/web") == DONE
    assert w.dvp.calls == [("get", "Service", LBN), ("patch", "Service", LBN)]  # nothing left to write


def test_upstream_service_stays_a_service_where_we_would_make_a_servicewithhealthchecks():
    w, c = switched(healthchecks=True, upstream_kind=LB.SERVICE_KIND)
    before = w.dvp.peek(SERVICE, LBN, NS)
    patches = record_patches(w)
    assert c.reconcile("shop/web") == DONE
    # ours would be a ServiceWithHealthchecks: none; then the Go module's Service, adopted as it is, kept
    assert w.dvp.calls == [("get", "ServiceWithHealthchecks", LBN), ("get", "Service", LBN),
                           ("patch", "Service", LBN)]
    kept = {**ANNOTATIONS, LB.ADOPTED_KIND: "Service"}
    assert patches == [("Service", LBN, guarded(before, kept, OUR_SPEC))]
    assert c.reconcile("shop/web") == DONE and len(w.dvp.writes()) == 1  # not deleted for a switch
    assert w.dvp.items(SWHC) == []
    now = w.dvp.peek(SERVICE, LBN, NS)
    assert now["metadata"]["uid"] == before["metadata"]["uid"] and LB.ingress(now) == [{"ip": IP}]
    assert LB.ingress(w.guest.peek(SERVICE, "web", "shop")) == [{"ip": IP}]
    adopted = [e for e in w.events() if e[0] == E.ADOPTED_LB]
    assert len(adopted) == 1 and "it stays a Service, so its address stays" in adopted[0][2]

    # once we would make a Service ourselves, the mark goes with one patch: an ordinary parent of ours from then on
    w.ctx.use_healthchecks = lambda: False
    del patches[:]
    assert c.reconcile("shop/web") == DONE
    assert [(k, n, b["metadata"]["annotations"]) for k, n, b in patches] == [
        ("Service", LBN, {LB.GUEST_SERVICE: "shop/web", LB.GUEST_SERVICE_UID: UID, LB.ADOPTED_KIND: None})]


def test_upstream_servicewithhealthchecks_stays_one_where_we_would_make_a_service():
    w, c = switched(healthchecks=False, upstream_kind=LB.HEALTHCHECKS_KIND)
    before = w.dvp.peek(SWHC, LBN, NS)
    child = w.dvp.peek(SERVICE, LBN, NS)
    patches = record_patches(w)
    assert c.reconcile("shop/web") == DONE
    # the Service under that name is the ServiceWithHealthchecks' child: its parent is read and adopted, kept
    assert w.dvp.calls == [("get", "Service", LBN), ("get", "ServiceWithHealthchecks", LBN),
                           ("patch", "ServiceWithHealthchecks", LBN)]
    kept = {**ANNOTATIONS, LB.ADOPTED_KIND: "ServiceWithHealthchecks"}
    assert patches == [("ServiceWithHealthchecks", LBN, guarded(before, kept, {**OUR_SPEC, "healthcheck": PROBES}))]
    assert c.reconcile("shop/web") == DONE and len(w.dvp.writes()) == 1
    assert w.dvp.peek(SERVICE, LBN, NS) == child  # DVP's child, never written
    assert w.dvp.peek(SWHC, LBN, NS)["metadata"]["uid"] == before["metadata"]["uid"]
    assert LB.ingress(w.guest.peek(SERVICE, "web", "shop")) == [{"ip": IP}]


def test_udp_only_service_cannot_keep_a_servicewithhealthchecks():
    """No TCP port to probe: adopted with our labels only, then switched to a Service as any parent of ours."""
    w, c = switched(healthchecks=False, upstream_kind=LB.HEALTHCHECKS_KIND)
    svc = w.guest.peek(SERVICE, "web", "shop")
    svc["spec"]["ports"] = [{"name": "dns", "protocol": "UDP", "port": 53, "targetPort": 53, "nodePort": 30080}]
    w.guest.put(SERVICE, svc)
    before = w.dvp.peek(SWHC, LBN, NS)
    patches = record_patches(w)
    c.reconcile("shop/web")
    md = before["metadata"]
    assert patches[0] == ("ServiceWithHealthchecks", LBN, {"metadata": {
        "uid": md["uid"], "resourceVersion": md["resourceVersion"], "labels": OURS}})
    assert ("delete", "ServiceWithHealthchecks", LBN) in w.dvp.writes()


def test_desired_marks_a_kept_kind():
    svc = service("web", "shop")
    svc["metadata"].update(uid=UID)
    assert LB.ADOPTED_KIND not in LB.desired(svc, UUID).annotations
    kept = LB.desired(svc, UUID, kept=True)
    assert kept.annotations[LB.ADOPTED_KIND] == "Service"
    assert LB.kept_kind({"metadata": {"annotations": kept.annotations}}) == "Service"
    assert LB.kept_kind(None) == ""
