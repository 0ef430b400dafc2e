# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp with the real Cluster API core controller (tools/cluster-api-controller, the version of our CAPI CRDs),
its webhooks registered, on a guest API of its own; DVP's controllers played by sim.

Nothing here does CAPI's part by hand: CAPI adopts the DeckhouseCluster and DeckhouseMachines, labels them, clones
machines from the DeckhouseMachineTemplate, reads our v1beta2 contract fields (status.initialization.provisioned,
spec.providerID, status.addresses, the Ready condition), finds the Node by providerID, and deletes our objects when
Machines or the Cluster go.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from capdvp import resources as r
from capdvp.domain import names
from capi_core_env import CLUSTER, CLUSTER_NAME_LABEL, INFRA_GROUP, MACHINE_DEPLOYMENT, MACHINE_SET, Env
from dvp_common.kube.resources import NODE

CLONED_FROM = "cluster.x-k8s.io/cloned-from-name"  # CAPI's annotation on what it clones from a template


@pytest.fixture
def env(capi, dvp_api, tmp_path) -> Iterator[Env]:
    e = Env(capi, dvp_api, tmp_path)
    yield e
    e.close()


def provisioned(obj: dict | None, field: str = "provisioned") -> bool:
    return bool((((obj or {}).get("status") or {}).get("initialization") or {}).get(field))


def wait_cluster_provisioned(env: Env) -> None:
    env.wait("CAPI to see the DeckhouseCluster provisioned",
             lambda: provisioned(env.get(r.CLUSTER, CLUSTER), "infrastructureProvisioned"),
             lambda: f"Cluster status={(env.get(r.CLUSTER, CLUSTER) or {}).get('status')}")
    dc = env.get(r.DECKHOUSE_CLUSTER, CLUSTER)
    owner = dc["metadata"]["ownerReferences"]
    assert [(o["kind"], o["name"]) for o in owner] == [("Cluster", CLUSTER)], "CAPI adopts the DeckhouseCluster"


def assert_dvp_empty(env: Env) -> None:
    env.wait("the DVP namespace to be empty (VMs, disks, cloud-init Secrets)",
             lambda: not any(env.dvp_names(res) for res in (r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, r.SECRET)),
             lambda: str({res.kind: env.dvp_names(res) for res in (r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, r.SECRET)}))


def test_machine_deployment_runs_on_dvp_scales_down_and_goes_with_its_cluster(env):
    env.create_cluster()
    wait_cluster_provisioned(env)
    env.machine_template("worker")
    env.machine_deployment("worker", "worker", replicas=2)

    def machines_with_provider_id() -> bool:
        ms = env.items(r.MACHINE)
        return len(ms) == 2 and all((m.get("spec") or {}).get("providerID") for m in ms)
    env.wait("2 Machines with a providerID", machines_with_provider_id, env.describe)
    machines = {m["metadata"]["name"]: m for m in env.items(r.MACHINE)}
    for name, m in machines.items():
        dm = env.get(r.DECKHOUSE_MACHINE, m["spec"]["infrastructureRef"]["name"])
        assert dm is not None, f"CAPI cloned no DeckhouseMachine for Machine {name}"
        assert m["spec"]["providerID"] == dm["spec"]["providerID"] == names.provider_id(dm["metadata"]["name"])
        assert dm["spec"]["vmClassName"] == env.vm_class, "cloned from the DeckhouseMachineTemplate"
        assert dm["metadata"]["labels"][CLUSTER_NAME_LABEL] == CLUSTER
        assert [(o["kind"], o["name"], o.get("controller")) for o in dm["metadata"]["ownerReferences"]] == [
            ("Machine", name, True)]
        assert provisioned(dm), "capdvp reports the VM provisioned (v1beta2 contract)"
        assert env.dvp.get(r.VIRTUAL_MACHINE, names.vm_name(dm["metadata"]["name"]), env.dvp_ns)["status"][
            "phase"] == "Running"

    # The Node each VM's kubelet would register: CAPI matches it by providerID and the Machine runs.
    for m in machines.values():
        env.guest.create(NODE, {"metadata": {"name": names.parse_provider_id(m["spec"]["providerID"])},
                                "spec": {"providerID": m["spec"]["providerID"]}})

    def running() -> bool:
        ms = env.items(r.MACHINE)
        return len(ms) == 2 and all((m.get("status") or {}).get("phase") == "Running" for m in ms)
    env.wait("both Machines Running", running, env.describe)
    for m in env.items(r.MACHINE):
        status = m["status"]
        assert provisioned(m, "infrastructureProvisioned")
        infra = next(c for c in status["conditions"] if c["type"] == "InfrastructureReady")
        assert (infra["status"], infra["reason"]) == ("True", "VMRunning"), "CAPI mirrors our Ready condition"
        assert status["nodeRef"]["name"] == names.parse_provider_id(m["spec"]["providerID"])
        vm = env.dvp.get(r.VIRTUAL_MACHINE, status["nodeRef"]["name"], env.dvp_ns)
        assert {"type": "InternalIP", "address": vm["status"]["ipAddress"]} in status["addresses"], \
            "CAPI copies our status.addresses"
    # Scale down: CAPI picks a Machine and deletes it (drain, then our DeckhouseMachine); capdvp removes its VM,
    # disks and cloud-init Secret; the other machine keeps running.
    env.guest.patch(MACHINE_DEPLOYMENT, "worker", {"spec": {"replicas": 1}}, env.ns)
    env.wait("one Machine and one DeckhouseMachine left after scaling to 1",
             lambda: len(env.items(r.MACHINE)) == len(env.items(r.DECKHOUSE_MACHINE)) == 1, env.describe)
    kept = env.items(r.DECKHOUSE_MACHINE)[0]["metadata"]["name"]
    gone = next(n for n in machines if n != kept)
    want = {r.VIRTUAL_MACHINE: [kept], r.VIRTUAL_DISK: sorted([names.boot_disk_name(kept),
                                                               names.additional_disk_name(kept, 0)]),
            r.SECRET: [names.cloud_init_secret_name(kept)]}
    env.wait(f"DVP to hold only the objects of {kept}, none of {gone}",
             lambda: all(env.dvp_names(res) == names_ for res, names_ in want.items()),
             lambda: str({res.kind: env.dvp_names(res) for res in want}))
    assert env.dvp.get(r.VIRTUAL_MACHINE, kept, env.dvp_ns)["status"]["phase"] == "Running"

    # Deleting the Cluster with a machine still running: CAPI deletes the MachineDeployment and its Machines (our
    # DeckhouseMachines with them), then the DeckhouseCluster, whose finalizer capdvp lifts once DVP is clean.
    env.guest.delete(r.CLUSTER, CLUSTER, env.ns)
    kinds = (r.CLUSTER, r.DECKHOUSE_CLUSTER, MACHINE_DEPLOYMENT, MACHINE_SET, r.MACHINE, r.DECKHOUSE_MACHINE)
    env.wait("every CAPI and capdvp object of the Cluster gone (no finalizer left)",
             lambda: not any(env.items(res) for res in kinds),
             lambda: str({res.kind: [(o["metadata"]["name"], o["metadata"].get("finalizers")) for o in env.items(res)]
                          for res in kinds}))
    assert_dvp_empty(env)


def test_standalone_machine_provisions_without_a_node_and_deletes(env):
    env.create_cluster()
    # A DeckhouseMachine without owner: capdvp waits until CAPI's Machine controller adopts it.
    env.guest.create(r.DECKHOUSE_MACHINE, {"metadata": {"name": "single"}, "spec": env.spec()}, env.ns)
    env.guest.create(r.MACHINE, {"metadata": {"name": "single"}, "spec": {
        "clusterName": CLUSTER, "bootstrap": {"dataSecretName": "bootstrap"},
        "infrastructureRef": {"apiGroup": INFRA_GROUP, "kind": "DeckhouseMachine", "name": "single"}}}, env.ns)
    env.wait("the Machine Provisioned",
             lambda: (env.get(r.MACHINE, "single").get("status") or {}).get("phase") == "Provisioned", env.describe)
    machine, dm = env.get(r.MACHINE, "single"), env.get(r.DECKHOUSE_MACHINE, "single")
    assert machine["spec"]["providerID"] == dm["spec"]["providerID"] == "dvp://single"
    assert machine["metadata"]["labels"][CLUSTER_NAME_LABEL] == CLUSTER
    assert [(o["kind"], o["name"]) for o in machine["metadata"]["ownerReferences"]] == [("Cluster", CLUSTER)]
    assert [(o["kind"], o["name"]) for o in dm["metadata"]["ownerReferences"]] == [("Machine", "single")]
    assert env.dvp_names(r.VIRTUAL_MACHINE) == ["single"]
    assert env.dvp_names(r.VIRTUAL_DISK) == sorted([names.boot_disk_name("single"),
                                                    names.additional_disk_name("single", 0)])

    env.guest.delete(r.MACHINE, "single", env.ns)
    env.wait("the Machine and its DeckhouseMachine gone",
             lambda: env.get(r.MACHINE, "single") is None and env.get(r.DECKHOUSE_MACHINE, "single") is None,
             env.describe)
    assert_dvp_empty(env)


def test_a_new_machine_template_rolls_the_machine_out(env):
    # node-manager's way for an instance class change: a new DeckhouseMachineTemplate (ours are immutable), the
    # MachineDeployment pointed at it. maxUnavailable 1: without a control plane the new Machine never becomes
    # Available, so the old one may go first.
    env.create_cluster()
    env.machine_template("worker-1")
    env.machine_deployment("worker", "worker-1", replicas=1, rollout={"strategy": {
        "type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}}})

    def machines_from(template: str) -> list[dict]:
        return [d for d in env.items(r.DECKHOUSE_MACHINE) if provisioned(d) and (
            d["metadata"].get("annotations") or {}).get(CLONED_FROM) == template]
    env.wait("a machine provisioned from worker-1", lambda: len(machines_from("worker-1")) == 1, env.describe)
    old = machines_from("worker-1")[0]["metadata"]["name"]

    env.machine_template("worker-2", memory="8Gi")
    env.guest.patch(MACHINE_DEPLOYMENT, "worker", {"spec": {"template": {"spec": {"infrastructureRef": {
        "apiGroup": INFRA_GROUP, "kind": "DeckhouseMachineTemplate", "name": "worker-2"}}}}}, env.ns)
    env.wait("the machine of worker-1 replaced by one of worker-2",
             lambda: len(machines_from("worker-2")) == 1 and env.get(r.DECKHOUSE_MACHINE, old) is None
             and env.get(r.MACHINE, old) is None, env.describe)
    new = machines_from("worker-2")[0]["metadata"]["name"]
    want = {r.VIRTUAL_MACHINE: [new], r.VIRTUAL_DISK: sorted([names.boot_disk_name(new),
                                                              names.additional_disk_name(new, 0)])}
    env.wait(f"DVP to hold the VM and disks of {new} alone, none of {old}",
             lambda: all(env.dvp_names(res) == names_ for res, names_ in want.items()),
             lambda: str({res.kind: env.dvp_names(res) for res in want}))
    vm = env.dvp.get(r.VIRTUAL_MACHINE, new, env.dvp_ns)
    assert (vm["spec"]["memory"], vm["status"]["phase"]) == ({"size": "8Gi"}, "Running")
    env.wait(f"Machine {new} to take our providerID",
             lambda: (env.get(r.MACHINE, new).get("spec") or {}).get("providerID") == names.provider_id(new),
             env.describe)
