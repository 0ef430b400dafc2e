# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ServiceWithHealthchecks as the simulator plays DVP's controller (CONTRACT.md C13-C16), on the real API."""

from __future__ import annotations

from dvp_common.dvp import resources as R
from dvp_common.kube.resources import ENDPOINT_SLICE, SERVICE

from sim.builders import WAIT, disk, phase_is, vm
from sim.domain.healthchecks import FAILING_PORTS

SWHC = R.SERVICE_WITH_HEALTHCHECKS


def labelled_vm(dvp, ns, name, labels):
    dvp.create(R.VIRTUAL_DISK, disk(f"{name}-boot", "1Gi"), ns)
    body = vm(name, [f"{name}-boot"])
    body["metadata"]["labels"] = labels
    dvp.create(R.VIRTUAL_MACHINE, body, ns)
    return dvp.wait_for(R.VIRTUAL_MACHINE, name, phase_is("Running"), WAIT, ns)


def swhc(name, ports, probe_ports, **spec):
    return {"apiVersion": SWHC.api_version, "kind": SWHC.kind,
            "metadata": {"name": name, "labels": {"team": "a"}, "annotations": {"note": "x"}},
            "spec": {"type": "LoadBalancer", "selector": {"lb": name}, "ports": ports, **spec, "healthcheck": {
                "periodSeconds": 1, "probes": [{"mode": "TCP", "tcp": {"targetPort": p}} for p in probe_ports]}}}


def ready_ips(dvp, ns, name):
    es = dvp.get(ENDPOINT_SLICE, f"{name}-healthchecks", ns)
    return sorted(a for e in es.get("endpoints") or [] for a in e["addresses"])


def test_child_service_gets_the_address_and_the_parent_shows_it(dvp, ns, sim):
    labelled_vm(dvp, ns, "h0", {"lb": "web"})
    made = dvp.create(SWHC, swhc("web", [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 30080}],
                                 [30080], loadBalancerIP="192.0.2.77"), ns)
    child = dvp.wait_for(SERVICE, "web", lambda o: o and o.get("status", {}).get("loadBalancer", {}).get("ingress"),
                         WAIT, ns)
    assert child["metadata"]["ownerReferences"] == [{
        "apiVersion": SWHC.api_version, "kind": SWHC.kind, "name": "web", "uid": made["metadata"]["uid"],
        "controller": True, "blockOwnerDeletion": True}]
    assert child["metadata"]["labels"] == {"team": "a"} and child["metadata"]["annotations"] == {"note": "x"}
    assert "selector" not in child["spec"] and child["spec"]["loadBalancerIP"] == "192.0.2.77"
    assert child["status"]["loadBalancer"]["ingress"][0]["ip"] == "192.0.2.77"
    parent = dvp.wait_for(SWHC, "web", lambda o: o.get("status", {}).get("loadBalancer", {}).get("ingress"), WAIT, ns)
    assert parent["status"]["loadBalancer"] == child["status"]["loadBalancer"]
    dvp.wait_for(ENDPOINT_SLICE, "web-healthchecks", lambda o: o is not None, WAIT, ns)
    dvp.delete(SWHC, "web", ns)  # the garbage collector takes the child and its endpoints
    dvp.wait_for(SERVICE, "web", lambda o: o is None, WAIT, ns)
    dvp.wait_for(ENDPOINT_SLICE, "web-healthchecks", lambda o: o is None, WAIT, ns)


def test_endpoints_list_only_targets_passing_every_probe(dvp, ns, sim):
    a = labelled_vm(dvp, ns, "ha", {"lb": "api"})
    b = labelled_vm(dvp, ns, "hb", {"lb": "api"})
    labelled_vm(dvp, ns, "hc", {"lb": "other"})  # not selected
    ports = [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 30080},
             {"name": "https", "port": 443, "protocol": "TCP", "targetPort": 30443}]
    dvp.create(SWHC, swhc("api", ports, [30080, 30443]), ns)
    both = sorted([a["status"]["ipAddress"], b["status"]["ipAddress"]])
    dvp.wait_for(ENDPOINT_SLICE, "api-healthchecks", lambda o: o and ready_ips(dvp, ns, "api") == both, WAIT, ns)
    ready = dvp.wait_for(SWHC, "api", lambda o: (o.get("status") or {}).get("healthyEndpoints") == 2, WAIT, ns)
    assert [(c["status"], c["reason"], c["message"]) for c in ready["status"]["conditions"]] == [
        ("True", "AllEndpointsAreReady", "All endpoints are ready")]
    # one node's service on the second port goes down: it leaves the endpoints, the other stays
    dvp.patch(R.VIRTUAL_MACHINE, "hb", {"metadata": {"annotations": {FAILING_PORTS: "30443"}}}, ns)
    dvp.wait_for(ENDPOINT_SLICE, "api-healthchecks",
                 lambda o: ready_ips(dvp, ns, "api") == [a["status"]["ipAddress"]], WAIT, ns)
    half = dvp.wait_for(SWHC, "api", lambda o: o["status"]["healthyEndpoints"] == 1, WAIT, ns)
    assert half["status"]["conditions"][0]["reason"] == "NotAllEndpointsAreReady"
    dvp.patch(R.VIRTUAL_MACHINE, "ha", {"metadata": {"annotations": {FAILING_PORTS: "30080"}}}, ns)
    dvp.wait_for(ENDPOINT_SLICE, "api-healthchecks", lambda o: ready_ips(dvp, ns, "api") == [], WAIT, ns)
    none = dvp.wait_for(SWHC, "api", lambda o: o["status"]["healthyEndpoints"] == 0, WAIT, ns)
    assert none["status"]["conditions"][0]["reason"] == "NoEndpointsAreReady"
    dvp.patch(R.VIRTUAL_MACHINE, "hb", {"metadata": {"annotations": {FAILING_PORTS: None}}}, ns)
    dvp.wait_for(ENDPOINT_SLICE, "api-healthchecks",
                 lambda o: ready_ips(dvp, ns, "api") == [b["status"]["ipAddress"]], WAIT, ns)


def test_probes_are_repeated_every_period_and_a_foreign_child_is_left_alone(dvp, ns, start_sim):
    results = {"healthy": False}
    start_sim(probe=lambda _vm, _port: results["healthy"])
    one = labelled_vm(dvp, ns, "hp", {"lb": "p"})
    dvp.create(SWHC, swhc("p", [{"port": 80, "protocol": "TCP", "targetPort": 30080}], [30080]), ns)
    dvp.wait_for(ENDPOINT_SLICE, "p-healthchecks", lambda o: o is not None, WAIT, ns)
    results["healthy"] = True  # no event at all: only the next period's probe can see it
    dvp.wait_for(ENDPOINT_SLICE, "p-healthchecks", lambda o: ready_ips(dvp, ns, "p") == [one["status"]["ipAddress"]],
                 WAIT, ns)
    theirs = dvp.create(SERVICE, {"metadata": {"name": "q"}, "spec": {"type": "ClusterIP", "ports": [{"port": 1}]}},
                        ns)
    dvp.create(SWHC, swhc("q", [{"port": 80, "protocol": "TCP", "targetPort": 30080}], [30080]), ns)
    refused = dvp.wait_for(SWHC, "q", lambda o: (o.get("status") or {}).get("conditions"), WAIT, ns)
    assert refused["status"]["conditions"][0]["reason"] == "ServiceExists"
    assert dvp.get(SERVICE, "q", ns)["metadata"]["resourceVersion"] == theirs["metadata"]["resourceVersion"]
