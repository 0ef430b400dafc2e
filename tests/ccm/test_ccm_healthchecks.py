# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""LoadBalancers as ServiceWithHealthchecks when DVP serves the kind (the parent's module on, as every Env starts),
plain Services when it does not, and the switch between the two keeping the address; on the real APIs with the
simulator playing DVP's controllers. The parent's ModuleConfig deciding: test_ccm_healthchecks_module.py."""

from __future__ import annotations

import pytest
from ccm_lb_real import PORTS, get, guest_ingress, lb_service, nodes
from ccm_real import Env, eventually
from dvp_ccm.domain import loadbalancer as LB
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import SERVICE as DVP_SERVICE
from dvp_common.dvp.resources import SERVICE_WITH_HEALTHCHECKS as SWHC
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube import Fault, ScriptedFaults
from dvp_common.kube.resources import ENDPOINT_SLICE, SERVICE

from sim.domain.healthchecks import FAILING_PORTS


@pytest.fixture
def env(dvp_api, guest_api):
    e = Env(dvp_api, guest_api)
    yield e
    e.close()


class Discovery:
    """A fault hook on the CCM's DVP client: while `hidden`, API discovery answers that the kind is not served."""

    def __init__(self, hidden: bool) -> None:
        self.hidden, self.asked = hidden, 0

    def __call__(self, req):
        if req.verb != "discover":
            return None
        self.asked += 1
        return Fault(status=404, reason="NotFound") if self.hidden else None


def test_served_kind_gets_probes_per_target_port_and_only_healthy_nodes_get_traffic(env):
    vms = nodes(env, 2)
    env.manager(controllers=frozenset({"service-lb-controller"}), load_balancer_kind="auto",
                healthchecks=LB.Healthchecks(initial_delay=1, period=1, timeout=1))
    svc = lb_service(env)
    name = L.lb_name(svc["metadata"]["uid"])
    ingress = eventually(lambda: guest_ingress(env), what="address on the guest Service")
    # the guest's address may come from DVP's child Service before the parent reports it
    parent = eventually(lambda: (p := env.dvp.get(SWHC, name, env.ns)).get("status", {}).get("loadBalancer") and p,
                        what="the ServiceWithHealthchecks' own address")
    node_ports = sorted(p["nodePort"] for p in env.guest.get(SERVICE, "web", env.guest_ns)["spec"]["ports"])
    assert parent["spec"]["healthcheck"] == {"initialDelaySeconds": 1, "periodSeconds": 1, "probes": [
        {"mode": "TCP", "timeoutSeconds": 1, "tcp": {"targetPort": p}} for p in node_ports]}
    assert parent["spec"]["selector"] == LB.shared_selector(env.uuid)
    assert parent["metadata"]["labels"][L.COMPONENT] == L.CCM and parent["metadata"]["labels"][
        L.CLUSTER_UUID] == env.uuid
    assert ingress == parent["status"]["loadBalancer"]["ingress"]
    child = env.dvp.get(DVP_SERVICE, name, env.ns)  # DVP's child, never one of ours
    assert child["metadata"]["ownerReferences"][0]["uid"] == parent["metadata"]["uid"]
    assert [s["metadata"]["name"] for s in env.dvp.list(DVP_SERVICE, env.ns).items] == [name]
    ips = {v: env.dvp.get(VIRTUAL_MACHINE, v, env.ns)["status"]["ipAddress"] for v in vms}

    def endpoints() -> list[str]:
        es = get(env.dvp, ENDPOINT_SLICE, f"{name}-healthchecks", env.ns) or {}
        return sorted(a for e in es.get("endpoints") or [] for a in e["addresses"])

    eventually(lambda: endpoints() == sorted(ips.values()), what="both nodes behind the balancer")
    # the guest's service stops answering on one node's second NodePort: only the other node gets traffic
    env.dvp.patch(VIRTUAL_MACHINE, "h1", {"metadata": {"annotations": {FAILING_PORTS: str(node_ports[1])}}}, env.ns)
    eventually(lambda: endpoints() == [ips["h0"]], what="the failing node out of the balancer")
    assert {v for v in vms if L.LB_BACKEND in env.vm_labels(v)} == set(vms)  # the CCM's node set is unchanged
    env.guest.delete(SERVICE, "web", env.guest_ns)
    eventually(lambda: get(env.guest, SERVICE, "web", env.guest_ns) is None, what="guest Service finalised")
    assert get(env.dvp, SWHC, name, env.ns) is None
    eventually(lambda: get(env.dvp, DVP_SERVICE, name, env.ns) is None, what="child collected")


def test_kind_not_served_gives_a_plain_service(env):
    nodes(env, 1, "p")
    discovery = Discovery(hidden=True)
    env.manager(controllers=frozenset({"service-lb-controller"}), load_balancer_kind="auto", dvp_faults=discovery)
    svc = lb_service(env)
    name = L.lb_name(svc["metadata"]["uid"])
    eventually(lambda: guest_ingress(env), what="address on the guest Service")
    plain = env.dvp.get(DVP_SERVICE, name, env.ns)
    assert "ownerReferences" not in plain["metadata"] and "healthcheck" not in plain["spec"]
    assert env.dvp.list(SWHC, env.ns).items == []
    assert discovery.asked >= 1


def test_switching_kinds_keeps_the_address_without_a_restart(env):
    nodes(env, 1, "s")
    discovery = Discovery(hidden=True)
    env.manager(controllers=frozenset({"service-lb-controller"}), load_balancer_kind="auto", dvp_faults=discovery,
                load_balancer_kind_recheck=0.5)
    svc = lb_service(env)
    name = L.lb_name(svc["metadata"]["uid"])
    first = eventually(lambda: guest_ingress(env), what="address from a plain Service")
    # the parent's module comes on: the plain Service goes, the ServiceWithHealthchecks asks for the same address
    discovery.hidden = False
    parent = eventually(lambda: (o := get(env.dvp, SWHC, name, env.ns)) and (o.get("status") or {}).get(
        "loadBalancer", {}).get("ingress") and o, what="ServiceWithHealthchecks with an address")
    assert parent["status"]["loadBalancer"]["ingress"][0]["ip"] == first[0]["ip"]
    assert parent["spec"]["loadBalancerIP"] == first[0]["ip"]
    assert env.dvp.get(DVP_SERVICE, name, env.ns)["metadata"]["ownerReferences"][0]["kind"] == SWHC.kind
    assert guest_ingress(env) == first
    # and off again: the ServiceWithHealthchecks and its child go, a plain Service takes the address back
    discovery.hidden = True
    plain = eventually(lambda: (o := get(env.dvp, DVP_SERVICE, name, env.ns)) and "ownerReferences" not in o[
        "metadata"] and (o.get("status") or {}).get("loadBalancer", {}).get("ingress") and o, what="plain Service")
    assert plain["status"]["loadBalancer"]["ingress"][0]["ip"] == first[0]["ip"]
    assert get(env.dvp, SWHC, name, env.ns) is None
    assert guest_ingress(env) == first


def test_a_forced_service_mode_moves_an_earlier_healthchecks_object_to_a_plain_service(env):
    nodes(env, 1, "f")
    before = env.manager(controllers=frozenset({"service-lb-controller"}), load_balancer_kind="auto")
    svc = lb_service(env)
    name = L.lb_name(svc["metadata"]["uid"])
    first = eventually(lambda: guest_ingress(env), what="address from a ServiceWithHealthchecks")
    assert get(env.dvp, SWHC, name, env.ns) is not None
    before.shutdown()
    # the operator forces plain Services (the parent serves the kind, its controller does not run)
    env.manager(controllers=frozenset({"service-lb-controller"}), load_balancer_kind="Service")
    plain = eventually(lambda: (o := get(env.dvp, DVP_SERVICE, name, env.ns)) and "ownerReferences" not in o[
        "metadata"] and (o.get("status") or {}).get("loadBalancer", {}).get("ingress") and o, what="plain Service")
    assert get(env.dvp, SWHC, name, env.ns) is None
    assert plain["status"]["loadBalancer"]["ingress"][0]["ip"] == first[0]["ip"]
    assert guest_ingress(env) == first


def test_a_conflict_on_the_healthchecks_object_is_retried(env):
    nodes(env, 1, "c")
    conflicts = ScriptedFaults([Fault(status=409, reason="Conflict")] * 2,
                               match=lambda r: r.verb == "patch" and r.resource.startswith("servicewithhealthchecks"))
    env.manager(controllers=frozenset({"service-lb-controller"}), load_balancer_kind="auto", dvp_faults=conflicts)
    svc = lb_service(env, ports=PORTS[:1])
    name = L.lb_name(svc["metadata"]["uid"])
    eventually(lambda: guest_ingress(env), what="address")
    env.guest.patch(SERVICE, "web", {"spec": {"ports": PORTS}}, env.guest_ns)  # a port more: the object changes
    eventually(lambda: len(env.dvp.get(SWHC, name, env.ns)["spec"]["healthcheck"]["probes"]) == 2,
               what="the change written after two conflicts")
    assert len(conflicts.seen) == 2  # both conflicts were met, and the write still landed
