# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CCM end to end on real kube-apiservers, with the DVP simulator playing DVP's controllers."""

from __future__ import annotations

import urllib.request

import pytest
from ccm_real import UNINIT, Env, eventually, now_text
from dvp_ccm.domain import loadbalancer as LB
from dvp_ccm.domain import taints as T
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import SERVICE as DVP_SERVICE
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube import Conflict, Fault, NotFound
from dvp_common.kube.resources import EVENT, NODE, SERVICE


@pytest.fixture
def env(dvp_api, guest_api):
    e = Env(dvp_api, guest_api)
    yield e
    e.close()


def events_for(env: Env, name: str, namespace: str = "default") -> list[str]:
    return [e["reason"] for e in env.guest.list(EVENT, namespace).items if e["involvedObject"]["name"] == name]


def test_node_initialisation_and_address_refresh(env):
    name = f"{env.prefix}-w0"
    vm = env.vm("w0", hostname=name)
    ip = vm["status"]["ipAddress"]
    env.node("w0", taints=[{"key": "keep", "effect": "NoSchedule"}, UNINIT])
    m = env.manager(controllers=frozenset({"cloud-node"}))
    node = eventually(lambda: (n := env.get_node(name)) and not T.has(n, T.UNINITIALIZED) and n, what="init")
    assert node["spec"]["providerID"] == "dvp://w0"
    # (the API server's TaintNodesByCondition admission adds node.kubernetes.io/not-ready on create)
    assert [t for t in node["spec"]["taints"] if t["key"] != "node.kubernetes.io/not-ready"] == [
        {"key": "keep", "effect": "NoSchedule"}]
    assert node["status"]["addresses"] == [{"type": "InternalIP", "address": ip},
                                           {"type": "ExternalIP", "address": ip}, {"type": "Hostname", "address": name}]
    assert node["metadata"]["labels"]["node.kubernetes.io/instance-type"] == "generic.1c.1Gi"
    eventually(lambda: "Initialized" in events_for(env, name), what="Initialized event")
    # health endpoints of the running manager
    base = f"http://{m.health.address}"
    assert urllib.request.urlopen(base + "/healthz", timeout=5).status == 200  # noqa: S310 - http on loopback
    assert urllib.request.urlopen(base + "/readyz", timeout=5).status == 200  # noqa: S310
    # the VM's address changes: the Node follows (VM watch -> node controller); the simulator is stopped
    # first, or it would put back the address of the VM's VirtualMachineIPAddress
    env.sim.stop()
    env.dvp.patch(VIRTUAL_MACHINE, "w0", {"status": {"ipAddress": "10.66.0.250"}}, env.ns, subresource="status")
    eventually(lambda: env.get_node(name)["status"]["addresses"][0]["address"] == "10.66.0.250",
               what="address refresh")


def test_foreign_vm_and_malformed_provider_id_leave_nodes_alone(env):
    env.vm("victim", cluster_uuid="another-cluster")
    bad = env.node("bad", provider_id="dvp://a/b")
    foreign = env.node("evil", provider_id="dvp://victim")
    env.manager(controllers=frozenset({"cloud-node", "cloud-node-lifecycle"}))
    eventually(lambda: "InvalidProviderID" in events_for(env, bad), what="event on malformed providerID")
    eventually(lambda: "InstanceNotOurs" in events_for(env, foreign), what="event on foreign VM")
    for n in (bad, foreign):
        assert T.has(env.get_node(n), T.UNINITIALIZED) and "providerID" in env.get_node(n)["spec"]
    assert env.vm_labels("victim") == {L.MANAGED_BY: "deckhouse", L.HOSTNAME: "victim",
                                       L.CLUSTER_UUID: "another-cluster", L.COMPONENT: L.CAPDVP}


def test_stopped_vm_shutdown_then_out_of_service_and_recovery(env):
    env.vm("w1")
    name = env.node("w1", provider_id="dvp://w1", taints=[])
    env.manager(controllers=frozenset({"cloud-node-lifecycle"}))
    env.vm_op("w1", "Stop")
    env.wait_vm("w1", "Stopped")
    env.set_ready(name, False)
    eventually(lambda: T.has(env.get_node(name), T.SHUTDOWN), what="shutdown taint")
    node = eventually(lambda: (n := env.get_node(name)) and T.has(n, T.OUT_OF_SERVICE) and n, what="oos taint")
    assert T.find(node, T.OUT_OF_SERVICE)["effect"] == "NoExecute"
    assert env.get_node(name) is not None  # a stopped VM's Node is kept
    env.vm_op("w1", "Start")
    env.wait_vm("w1", "Running")
    eventually(lambda: not T.has(env.get_node(name), T.SHUTDOWN), what="shutdown taint removed")
    assert T.has(env.get_node(name), T.OUT_OF_SERVICE)  # stays until the Node is Ready too
    env.set_ready(name, True)
    eventually(lambda: not T.has(env.get_node(name), T.SHUTDOWN) and not T.has(env.get_node(name), T.OUT_OF_SERVICE),
               what="both taints removed")
    wanted = {"TaintShutdown", "TaintOutOfService", "UntaintShutdown", "UntaintOutOfService"}
    eventually(lambda: wanted <= set(events_for(env, name)), what="the four events")  # recorded after each patch


def test_deleted_vm_node_is_tainted_out_of_service_then_deleted(env):
    env.vm("w2")
    name = env.node("w2", provider_id="dvp://w2", taints=[])
    env.manager(controllers=frozenset({"cloud-node-lifecycle"}))
    env.dvp.delete(VIRTUAL_MACHINE, "w2", env.ns)
    env.set_ready(name, False, since=now_text(-600))
    eventually(lambda: (n := env.get_node(name)) is not None and T.has(n, T.OUT_OF_SERVICE), what="oos taint")
    eventually(lambda: env.get_node(name) is None, what="node deleted after the hold")


def test_deleted_vm_without_out_of_service_deletes_the_node_and_foreign_nodes_survive(env):
    env.vm("w3")
    name = env.node("w3", provider_id="dvp://w3", taints=[])
    other = env.node("kind", provider_id="kind://docker/x", taints=[], ready=False)
    env.manager(controllers=frozenset({"cloud-node-lifecycle"}),
                lifecycle=env.settings().lifecycle.__class__(out_of_service=False, recheck=0.5))
    env.dvp.delete(VIRTUAL_MACHINE, "w3", env.ns)
    env.set_ready(name, False)
    eventually(lambda: env.get_node(name) is None, what="node deleted")
    assert env.get_node(other) is not None


def lb_service(env: Env, name: str = "web", **spec) -> dict:
    body = {"metadata": {"name": name}, "spec": {"type": "LoadBalancer", "selector": {"app": name},
                                                  "ports": [{"name": "http", "port": 80, "targetPort": 8080}],
                                                  **spec}}
    return env.guest.create(SERVICE, body, env.guest_ns)


def test_load_balancer_lifecycle(env):
    for i in range(3):
        env.vm(f"lb{i}")
    n0 = env.node("lb0", provider_id="dvp://lb0", taints=[])
    env.node("lb1", provider_id="dvp://lb1", taints=[])
    n2 = env.node("lb2", provider_id="dvp://lb2", taints=[])
    env.guest.patch(NODE, n2, {"metadata": {"labels": {LB.EXCLUDE_LABEL: "true"}}})
    env.manager(controllers=frozenset({"service-lb-controller"}))
    svc = lb_service(env)
    lb_name = L.lb_name(svc["metadata"]["uid"])
    key = L.LB_BACKEND  # a Service that filters no node selects the shared backends
    got = eventually(lambda: (s := env.guest.get(SERVICE, "web", env.guest_ns)).get("status", {}).get(
        "loadBalancer", {}).get("ingress") and s, what="ingress copied")
    dvp_svc = env.dvp.get(DVP_SERVICE, lb_name, env.ns)
    assert got["status"]["loadBalancer"]["ingress"] == dvp_svc["status"]["loadBalancer"]["ingress"]
    assert got["metadata"]["finalizers"] == [LB.FINALIZER]
    node_port = got["spec"]["ports"][0]["nodePort"]
    assert [(p["port"], p["targetPort"], p["protocol"]) for p in dvp_svc["spec"]["ports"]] == [(80, node_port, "TCP")]
    assert dvp_svc["spec"]["selector"] == {L.CLUSTER_UUID: env.uuid, key: "loadbalancer"}
    eventually(lambda: {n for n in ("lb0", "lb1", "lb2") if key in env.vm_labels(n)} == {"lb0", "lb1"},
               what="eligible VMs labelled")
    # the node set changes: labels follow
    env.guest.patch(NODE, n0, {"metadata": {"labels": {LB.EXCLUDE_LABEL: "true"}}})
    env.guest.patch(NODE, n2, {"metadata": {"labels": {LB.EXCLUDE_LABEL: None}}})
    eventually(lambda: {n for n in ("lb0", "lb1", "lb2") if key in env.vm_labels(n)} == {"lb1", "lb2"},
               what="labels moved")
    # deletion: the finalizer holds the Service until the DVP side is clean
    env.guest.delete(SERVICE, "web", env.guest_ns)
    eventually(lambda: not _exists(env.guest, SERVICE, "web", env.guest_ns), what="guest Service gone")
    assert not _exists(env.dvp, DVP_SERVICE, lb_name, env.ns)
    eventually(lambda: not any(key in env.vm_labels(n) for n in ("lb0", "lb1", "lb2")),
               what="the shared label gone with the last Service that selects it")


def _exists(client, res, name, ns) -> bool:
    try:
        client.get(res, name, ns)
        return True
    except NotFound:
        return False


def test_local_traffic_follows_health_checks(env):
    for i in range(2):
        env.vm(f"lt{i}")
        env.node(f"lt{i}", provider_id=f"dvp://lt{i}", taints=[])
    healthy = {env.dvp.get(VIRTUAL_MACHINE, "lt1", env.ns)["status"]["ipAddress"]}
    probes = []

    def prober(ip, port):
        probes.append(port)
        return ip in healthy

    env.manager(controllers=frozenset({"service-lb-controller"}), prober=prober)
    svc = lb_service(env, externalTrafficPolicy="Local")
    key = L.lb_label_key(L.lb_name(svc["metadata"]["uid"]))
    eventually(lambda: {n for n in ("lt0", "lt1") if key in env.vm_labels(n)} == {"lt1"}, what="only healthy")
    assert set(probes) == {svc["spec"]["healthCheckNodePort"]}
    healthy.clear()
    healthy.add(env.dvp.get(VIRTUAL_MACHINE, "lt0", env.ns)["status"]["ipAddress"])
    env.guest.create(  # an EndpointSlice change re-runs the ensure (pods moved)
        __import__("dvp_common.kube.resources", fromlist=["ENDPOINT_SLICE"]).ENDPOINT_SLICE,
        {"metadata": {"name": "web-x", "labels": {"kubernetes.io/service-name": "web"}}, "addressType": "IPv4",
         "endpoints": []}, env.guest_ns)
    eventually(lambda: {n for n in ("lt0", "lt1") if key in env.vm_labels(n)} == {"lt0"}, what="label moved")


def test_attacker_service_cannot_reach_foreign_vms_or_services(env):
    """Tenant isolation: a guest user's LoadBalancer Service never labels foreign VMs nor changes foreign Services."""
    env.vm("mine")
    env.vm("theirs", cluster_uuid="other-cluster")  # same DVP namespace, another cluster
    env.vm("nolabel", cluster_uuid="")
    env.node("mine", provider_id="dvp://mine", taints=[])
    env.node("fake1", provider_id="dvp://theirs", taints=[])  # a hand-made Node pointing at a foreign VM
    env.node("fake2", provider_id="dvp://nolabel", taints=[])
    theirs_before = env.dvp.get(VIRTUAL_MACHINE, "theirs", env.ns)["metadata"]["labels"]
    env.manager(controllers=frozenset({"service-lb-controller"}))
    # 1. a Service asking for externalIPs (to capture DVP traffic) is refused
    bad = lb_service(env, "grab", externalIPs=["10.0.0.1"])
    eventually(lambda: "UnsupportedLoadBalancer" in events_for(env, "grab", env.guest_ns), what="refused")
    assert not _exists(env.dvp, DVP_SERVICE, L.lb_name(bad["metadata"]["uid"]), env.ns)
    # 2. a normal Service: only our VM is labelled, never the foreign ones
    lb_service(env, "web")
    key = L.LB_BACKEND
    eventually(lambda: key in env.vm_labels("mine"), what="our VM labelled")
    assert env.dvp.get(VIRTUAL_MACHINE, "theirs", env.ns)["metadata"]["labels"] == theirs_before
    assert key not in env.vm_labels("nolabel")
    # 3. a foreign DVP Service already named like ours: left exactly as it was
    victim_svc = env.guest.create(SERVICE, {"metadata": {"name": "victim"}, "spec": {
        "type": "ClusterIP", "ports": [{"port": 1}]}}, env.guest_ns)
    lb_name = L.lb_name(victim_svc["metadata"]["uid"])
    foreign = env.dvp.create(DVP_SERVICE, {"metadata": {"name": lb_name, "labels": {L.CLUSTER_UUID: "other-cluster",
                                                                                      L.COMPONENT: L.CCM}},
                                           "spec": {"type": "ClusterIP", "selector": {"app": "theirs"},
                                                    "ports": [{"port": 443}]}}, env.ns)
    env.guest.patch(SERVICE, "victim", {"spec": {"type": "LoadBalancer"}}, env.guest_ns)
    eventually(lambda: "LoadBalancerNotOurs" in events_for(env, "victim", env.guest_ns), what="not ours")
    after = env.dvp.get(DVP_SERVICE, lb_name, env.ns)
    assert after["spec"]["selector"] == {"app": "theirs"} and after["metadata"]["labels"] == foreign["metadata"][
        "labels"] and after["metadata"]["resourceVersion"] == foreign["metadata"]["resourceVersion"]
    # deleting the guest Service never deletes the foreign one
    env.guest.delete(SERVICE, "victim", env.guest_ns)
    eventually(lambda: not _exists(env.guest, SERVICE, "victim", env.guest_ns), what="victim gone")
    assert env.dvp.get(DVP_SERVICE, lb_name, env.ns)["metadata"]["resourceVersion"] == \
        foreign["metadata"]["resourceVersion"]


def test_restart_in_the_middle_of_operations(env):
    """The first CCM dies after the DVP Service exists but before any VM label or status; a new one finishes.
    Likewise a Node whose addresses were written but whose taint removal failed."""
    env.vm("r0", hostname=f"{env.prefix}-r0")
    name = env.node("r0")
    def fail_vm_patches(req):
        return Fault(status=503) if req.verb == "patch" and "virtualmachines" in req.resource else None

    def fail_node_patch(req):
        return Fault(status=503) if req.verb == "patch" and req.resource == "nodes" else None

    first = env.manager(dvp_faults=fail_vm_patches, guest_faults=fail_node_patch)
    svc = lb_service(env)
    lb_name = L.lb_name(svc["metadata"]["uid"])
    eventually(lambda: _exists(env.dvp, DVP_SERVICE, lb_name, env.ns), what="DVP Service created")
    eventually(lambda: env.get_node(name)["status"].get("addresses"), what="addresses written")
    first.shutdown()
    key = L.LB_BACKEND
    assert key not in env.vm_labels("r0") and T.has(env.get_node(name), T.UNINITIALIZED)
    env.manager()
    eventually(lambda: key in env.vm_labels("r0"), what="label after restart")
    eventually(lambda: env.guest.get(SERVICE, "web", env.guest_ns).get("status", {}).get("loadBalancer"),
               what="status after restart")
    eventually(lambda: not T.has(env.get_node(name), T.UNINITIALIZED), what="node initialised after restart")
    assert len(env.dvp.list(DVP_SERVICE, env.ns).items) == 1


def test_lost_leader_lease_stops_the_leader_and_the_standby_takes_over(env):
    from dvp_common.kube.resources import LEASE

    timing = {"leader_elect": True, "lease_duration": 3.0, "renew_deadline": 2.0, "retry_period": 0.3}
    a = env.manager(controllers=frozenset({"service-lb-controller"}), **timing)
    eventually(lambda: a.leading.is_set(), what="a leads")
    b = env.manager(controllers=frozenset({"service-lb-controller"}), **timing)
    lease_name = f"ccm-{env.prefix}"
    # another holder takes the lease (as after a network partition): a must stop leading
    def steal() -> bool:
        lease = env.guest.get(LEASE, lease_name, env.guest_ns)
        lease["spec"].update(holderIdentity="thief", leaseDurationSeconds=3)
        try:
            env.guest.replace(LEASE, lease, env.guest_ns)
        except Conflict:
            return False  # a renewed meanwhile: try again
        return True

    eventually(steal, what="lease stolen")
    eventually(lambda: env.exits == ["lost"], what="a gives up the lease")
    a.shutdown()  # what os._exit does in production
    eventually(lambda: b.leading.is_set(), timeout=20, what="b takes over once the thief's lease expires")
    lb_service(env)
    env.vm("le0")
    env.node("le0", provider_id="dvp://le0", taints=[])
    eventually(lambda: L.LB_BACKEND in env.vm_labels("le0"), what="b serves")


def test_guest_initiated_shutdown_race_is_caught_by_the_recheck(env):
    """A guest-initiated shutdown: the kubelet stops first (Node NotReady) while DVP still reports the VM Running;
    a single look would find nothing to do and never come back. The Node is re-examined until the VM is Stopped."""
    env.vm("gs")
    name = env.node("gs", provider_id="dvp://gs", taints=[])
    m = env.manager(controllers=frozenset({"cloud-node-lifecycle"}), metrics_bind="127.0.0.1:0")
    env.set_ready(name, False, since=now_text(-600))
    eventually(lambda: m.leading.is_set(), what="controllers started")
    seen = lifecycle_reconciles(m)
    # NotReady for 10 min and three more looks at the Node, the VM still Running: nothing may happen
    eventually(lambda: lifecycle_reconciles(m) >= seen + 3, what="three rechecks of the NotReady Node")
    assert not T.has(env.get_node(name), T.OUT_OF_SERVICE) and not T.has(env.get_node(name), T.SHUTDOWN)
    env.vm_op("gs", "Stop")  # DVP notices the guest is down
    eventually(lambda: T.has(env.get_node(name), T.OUT_OF_SERVICE) and T.has(env.get_node(name), T.SHUTDOWN),
               what="both taints once the VM is Stopped")


def lifecycle_reconciles(m) -> float:
    """The node lifecycle controller's successful reconciles so far, from its /metrics."""
    metrics = urllib.request.urlopen(f"http://{m.metrics_server.address}/metrics", timeout=5).read().decode()  # noqa: S310
    line = 'dvp_ccm_reconcile_total{controller="cloud-node-lifecycle",outcome="ok"} '
    return sum(float(ln[len(line):]) for ln in metrics.splitlines() if ln.startswith(line))
