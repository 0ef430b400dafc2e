# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""node-manager's path, with every guest controller real but node-manager itself: a NodeGroup and its
DVPInstanceClass -> (node-manager's stand-in, testkit/nodemanager.py: our capi/ template rendered as node-manager
renders it) DeckhouseMachineTemplate and MachineDeployment per zone -> the real CAPI controller's Machines ->
capdvp's VMs in DVP (the simulator) -> the kubelets in those VMs (kwok) register their Nodes -> our CCM initialises
them -> CAPI links each Machine to its Node. Then the group goes to zero and everything goes with it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from capdvp import resources as r
from capdvp.domain import names
from capi_core_env import CLUSTER, SC, Env
from dvp_ccm import settings as ccm_settings
from dvp_ccm.domain.lifecycle import LifecycleConfig
from dvp_ccm.manager import Manager as CcmManager
from dvp_common.dvp import DVPConnection
from dvp_common.kube import Resource, get_or_none
from dvp_common.kube.resources import NODE
from prometheus_client import CollectorRegistry

from testkit.harness.capi_controller import CapiController
from testkit.harness.guest_controllers import UNINITIALIZED, KubeletsInVMs
from testkit.harness.processes import HarnessError
from testkit.nodemanager import StandIn

ZONE = "topology.kubernetes.io/zone"
ZONES = ("zone-a", "zone-b")
NODE_LABELS = {"dvp-node-1": {ZONE: "zone-a"}, "dvp-node-2": {ZONE: "zone-b"}}
NODE_GROUP = Resource("deckhouse.io", "v1", "nodegroups", "NodeGroup", namespaced=False)
INSTANCE_CLASS = Resource("deckhouse.io", "v1alpha1", "dvpinstanceclasses", "DVPInstanceClass", namespaced=False)
WAIT_S = 90.0


@pytest.fixture(scope="module")
def capi_here(guest_controllers) -> Iterator[CapiController]:
    """The real CAPI core controller on the guest whose own control plane runs."""
    controller = CapiController(guest_controllers.server)
    try:
        controller.start()
    except HarnessError as exc:
        pytest.fail(f"the Cluster API core controller did not start: {exc}", pytrace=False)
    yield controller
    controller.stop()


@pytest.fixture
def world(capi_here, dvp_api, tmp_path) -> Iterator[dict]:
    env = Env(capi_here, dvp_api, tmp_path, node_labels=NODE_LABELS)
    kubelets = KubeletsInVMs(env.dvp, env.dvp_ns, env.guest, register=True).start()
    ccm = CcmManager(ccm_settings.Settings(
        dvp=None, leader_election_namespace=env.ns, leader_election_id="ccm", health_bind=None,  # type: ignore[arg-type]
        metrics_bind=None, workers=2, address_refresh=30.0, load_balancer_kind="Service",
        lifecycle=LifecycleConfig(out_of_service=False, recheck=0.5)),
        env.api.client(), DVPConnection(dvp_api.client(), env.dvp_ns, env.uuid), registry=CollectorRegistry(),
        exit_on_lost_lease=lambda: None, watch_timeout=1)
    ccm.start()
    ng = f"ng{env.uuid[-6:]}"
    try:
        yield {"env": env, "ng": ng, "kubelets": kubelets}
    finally:
        ccm.shutdown()
        kubelets.stop()
        env.nodes += sorted(kubelets.registered)  # whatever CAPI did not delete
        for res, name in ((NODE_GROUP, ng), (INSTANCE_CLASS, ng)):
            env.guest.delete(res, name, missing_ok=True)
        env.close()


def instance_class(env: Env) -> dict:
    return {"virtualMachine": {"virtualMachineClassName": env.vm_class, "cpu": {"cores": 1, "coreFraction": "100%"},
                               "memory": {"size": "1Gi"}},
            "rootDisk": {"size": "10Gi", "storageClass": SC,
                         "image": {"kind": "ClusterVirtualImage", "name": env.image}}}


def linked(env: Env) -> list[dict]:
    """Machines CAPI linked to a Node."""
    return [m for m in env.items(r.MACHINE) if ((m.get("status") or {}).get("nodeRef") or {}).get("name")]


def test_a_node_group_becomes_initialised_nodes_one_per_zone_and_goes_to_zero(world):
    env, ng = world["env"], world["ng"]
    env.create_cluster(zones=ZONES)
    env.guest.create(INSTANCE_CLASS, {"metadata": {"name": ng}, "spec": instance_class(env)})
    env.guest.create(NODE_GROUP, {"metadata": {"name": ng}, "spec": {"nodeType": "CloudEphemeral", "cloudInstances": {
        "classReference": {"kind": "DVPInstanceClass", "name": ng}, "minPerZone": 1, "maxPerZone": 2,
        "zones": list(ZONES)}}})
    node_manager = StandIn(env.guest, env.ns, CLUSTER, {"uuid": env.uuid, "podSubnet": "10.111.0.0/16"})
    deployments = node_manager.converge(ng)
    assert sorted(deployments) == list(ZONES)
    assert node_manager.converge(ng) == deployments  # idempotent

    env.wait("2 Machines linked to their Nodes", lambda: len(linked(env)) == 2, env.describe, timeout=WAIT_S)
    zones = {}
    for machine in linked(env):
        node = env.guest.get(NODE, machine["status"]["nodeRef"]["name"])
        vm = env.dvp.get(r.VIRTUAL_MACHINE, names.parse_provider_id(machine["spec"]["providerID"]), env.dvp_ns)
        assert node["spec"]["providerID"] == machine["spec"]["providerID"], "the CCM set what capdvp made"
        assert not any(t["key"] == UNINITIALIZED for t in node["spec"].get("taints") or [])
        assert node["metadata"]["labels"][ZONE] == vm["spec"]["nodeSelector"][ZONE] == machine["spec"]["failureDomain"]
        zones[machine["spec"]["failureDomain"]] = node["metadata"]["name"]
    assert sorted(zones) == list(ZONES), f"one machine per zone: {zones}"

    # the group goes to zero: CAPI deletes the Machines and their Nodes, capdvp the VMs and disks
    env.guest.patch(NODE_GROUP, ng, {"spec": {"cloudInstances": {"minPerZone": 0}}})
    node_manager.converge(ng)
    env.wait("no Machine, VM or Node left", lambda: not env.items(r.MACHINE) and not env.dvp_names(
        r.VIRTUAL_MACHINE) and all(get_or_none(env.guest, NODE, n) is None for n in zones.values()),
        env.describe, timeout=WAIT_S)
    assert env.dvp_names(r.VIRTUAL_DISK) == []
