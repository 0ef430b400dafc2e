# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Failure domains and remediation with the real Cluster API core controller (harness.capi_controller): CAPI makes
the Machines and its MachineHealthCheck controller decides; capdvp places VMs and reports conditions; DVP's
controllers are sim, whose nodes carry zones."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from capdvp import resources as r
from capdvp.domain import names
from capi_core_env import CAPI_GROUP, CLUSTER, INFRA_GROUP, Env
from dvp_common.dvp.state import condition
from dvp_common.kube import Resource

ZONE = "topology.kubernetes.io/zone"
ZONES = ("zone-a", "zone-b", "zone-c")
NODE_LABELS = {"dvp-node-1": {ZONE: "zone-a"}, "dvp-node-2": {ZONE: "zone-b"}, "dvp-node-3": {ZONE: "zone-c"}}
NODE_ZONE = {node: labels[ZONE] for node, labels in NODE_LABELS.items()}
MHC = Resource(CAPI_GROUP, "v1beta2", "machinehealthchecks", "MachineHealthCheck")
DEPLOYMENT_LABEL = "cluster.x-k8s.io/deployment-name"


def _env(capi, dvp_api, tmp_path, **sim) -> Iterator[Env]:
    e = Env(capi, dvp_api, tmp_path, node_labels=NODE_LABELS, **sim)
    yield e
    e.close()


@pytest.fixture
def env(capi, dvp_api, tmp_path) -> Iterator[Env]:
    yield from _env(capi, dvp_api, tmp_path)


@pytest.fixture
def mute_env(capi, dvp_api, tmp_path) -> Iterator[Env]:
    yield from _env(capi, dvp_api, tmp_path, guest_agent=False)


def provisioned_machines(env: Env) -> list[dict]:
    return [m for m in env.items(r.MACHINE) if ((m.get("status") or {}).get("initialization") or {}).get(
        "infrastructureProvisioned")]


def test_three_replicas_over_three_zones_land_one_vm_per_zone(env):
    env.create_cluster(zones=ZONES)
    env.wait("the DeckhouseCluster's failure domains",
             lambda: (env.get(r.DECKHOUSE_CLUSTER, CLUSTER).get("status") or {}).get("failureDomains"), env.describe)
    assert env.get(r.DECKHOUSE_CLUSTER, CLUSTER)["status"]["failureDomains"] == [
        {"name": z, "controlPlane": True} for z in ZONES]
    env.wait("CAPI to copy the failure domains into the Cluster",
             lambda: [f["name"] for f in (env.get(r.CLUSTER, CLUSTER).get("status") or {}).get(
                 "failureDomains") or []] == list(ZONES), lambda: str(env.get(r.CLUSTER, CLUSTER).get("status")))
    env.machine_template("worker")
    env.machine_deployment("worker", "worker", replicas=3)
    env.wait("3 Machines provisioned", lambda: len(provisioned_machines(env)) == 3, env.describe)
    placed = {}
    for m in provisioned_machines(env):
        vm_name = names.parse_provider_id(m["spec"]["providerID"])
        vm = env.dvp.get(r.VIRTUAL_MACHINE, vm_name, env.dvp_ns)
        zone = vm["spec"]["nodeSelector"][ZONE]
        assert NODE_ZONE[vm["status"]["nodeName"]] == zone, "DVP ran the VM on a node of its zone"
        dm = env.get(r.DECKHOUSE_MACHINE, m["spec"]["infrastructureRef"]["name"])
        assert dm["status"]["failureDomain"] == zone
        placed[m["metadata"]["name"]] = zone
    assert sorted(placed.values()) == list(ZONES), f"one VM per zone: {placed}"
    env.wait("CAPI to report each Machine's failure domain",
             lambda: {m["metadata"]["name"]: (m.get("status") or {}).get("failureDomain")
                      for m in env.items(r.MACHINE)} == placed, env.describe)


def test_a_per_zone_machine_deployment_lands_in_its_zone(env):
    env.create_cluster(zones=ZONES)
    env.machine_template("worker")
    env.machine_deployment("worker-b", "worker", replicas=2, failure_domain="zone-b")
    env.wait("2 Machines provisioned", lambda: len(provisioned_machines(env)) == 2, env.describe)
    for m in provisioned_machines(env):
        vm = env.dvp.get(r.VIRTUAL_MACHINE, names.parse_provider_id(m["spec"]["providerID"]), env.dvp_ns)
        assert (vm["spec"]["nodeSelector"][ZONE], NODE_ZONE[vm["status"]["nodeName"]]) == ("zone-b", "zone-b")


def _control_plane_with_node(env: Env) -> None:
    """A control-plane Machine whose Node registered: CAPI then marks the control plane initialized, without which
    a MachineHealthCheck never judges a machine that has no Node. Nodes are cluster-wide in the shared guest API:
    the name carries the test's namespace."""
    name = f"master-{env.ns}"
    env.guest.create(r.DECKHOUSE_MACHINE, {"metadata": {"name": name}, "spec": env.spec()}, env.ns)
    env.guest.create(r.MACHINE, {"metadata": {"name": name, "labels": {"cluster.x-k8s.io/control-plane": ""}},
                                 "spec": {"clusterName": CLUSTER, "bootstrap": {"dataSecretName": "bootstrap"},
                                          "infrastructureRef": {"apiGroup": INFRA_GROUP, "kind": "DeckhouseMachine",
                                                                "name": name}}}, env.ns)
    env.node(name, names.provider_id(name))
    env.wait("the control plane initialized",
             lambda: (condition(env.get(r.CLUSTER, CLUSTER), "ControlPlaneInitialized") or {}).get(
                 "status") == "True",
             lambda: str((env.get(r.CLUSTER, CLUSTER).get("status") or {}).get("conditions")))


def _health_check(env: Env, checks: dict) -> None:
    env.guest.create(MHC, {"metadata": {"name": "worker"}, "spec": {
        "clusterName": CLUSTER, "selector": {"matchLabels": {DEPLOYMENT_LABEL: "worker"}}, "checks": checks}},
        env.ns)


def _workers(env: Env) -> list[dict]:
    return [m for m in env.items(r.MACHINE) if (m["metadata"].get("labels") or {}).get(DEPLOYMENT_LABEL) == "worker"]


def _remediated(env: Env, old: str, reason: str) -> None:
    seen: dict[str, str] = {}

    def replaced() -> bool:
        for m in _workers(env):
            hc = condition(m, "HealthCheckSucceeded") or {}
            if m["metadata"]["name"] == old and hc.get("status") == "False":
                seen["reason"] = hc.get("reason", "")
        names_now = [m["metadata"]["name"] for m in _workers(env)]
        return old not in names_now and len(names_now) == 1 and old not in env.dvp_names(r.VIRTUAL_MACHINE)
    # bounded by the health check's own timeout (30 s at most here) plus one scale-up and one deletion
    env.wait(f"the MachineHealthCheck to replace {old} and capdvp to delete its VM", replaced, env.describe, 120.0)
    assert seen.get("reason") == reason, f"judged {seen}"


def test_a_machine_whose_vm_went_degraded_is_remediated(env):
    env.create_cluster()
    _control_plane_with_node(env)
    env.machine_template("worker")
    env.machine_deployment("worker", "worker", replicas=1)
    env.wait("the worker provisioned", lambda: len([m for m in _workers(env) if m in provisioned_machines(env)]) == 1,
             env.describe)
    worker = _workers(env)[0]
    name = worker["metadata"]["name"]
    env.node(name, worker["spec"]["providerID"])
    env.wait("the worker's node ref", lambda: (env.get(r.MACHINE, name).get("status") or {}).get("nodeRef"),
             env.describe)
    _health_check(env, {"unhealthyMachineConditions": [
        {"type": "InfrastructureReady", "status": "False", "timeoutSeconds": 2}]})
    # DVP's part: the VM degrades (the simulator leaves a Degraded VM as it is).
    env.dvp.patch(r.VIRTUAL_MACHINE, name, {"status": {"phase": "Degraded"}}, env.dvp_ns, subresource="status")
    env.wait("capdvp to report the VM Degraded",
             lambda: (condition(env.get(r.DECKHOUSE_MACHINE, name), "Ready") or {}).get("reason") == "VMDegraded",
             env.describe)
    assert "failureReason" not in env.get(r.DECKHOUSE_MACHINE, name)["status"]
    _remediated(env, name, "UnhealthyMachine")


def test_a_guest_that_never_boots_is_remediated_after_the_node_startup_timeout(mute_env):
    env = mute_env
    env.create_cluster()
    _control_plane_with_node(env)
    env.machine_template("worker")
    env.machine_deployment("worker", "worker", replicas=1)
    env.wait("the worker's VM running without a guest agent",
             lambda: len(_workers(env)) == 1 and (condition(env.get(
                 r.DECKHOUSE_MACHINE, _workers(env)[0]["spec"]["infrastructureRef"]["name"]),
                 "GuestBooted") or {}).get("reason") == "GuestAgentNotReady", env.describe)
    old = _workers(env)[0]["metadata"]["name"]
    _health_check(env, {"nodeStartupTimeoutSeconds": 30})
    _remediated(env, old, "NodeStartupTimeout")
