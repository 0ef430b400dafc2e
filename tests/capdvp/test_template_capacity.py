# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Scale from zero: DeckhouseMachineTemplate status.capacity and status.nodeInfo follow the instance class the
template was rendered from (capi/machine-template.yaml through node-manager's rendering), for a matrix of classes."""

from __future__ import annotations

import pytest
from capdvp import resources as r
from capdvp.controllers.template import TemplateReconciler

from testkit.capdvp.world import NS
from testkit.nodemanager import render_v1

NODE_INFO = {"architecture": "amd64", "operatingSystem": "linux"}


def instance_class(cores, memory, fraction=None):
    cpu = {"cores": cores, **({"coreFraction": fraction} if fraction else {})}
    return {"virtualMachine": {"virtualMachineClassName": "generic", "cpu": cpu, "memory": {"size": memory}},
            "rootDisk": {"size": "30Gi", "image": {"kind": "ClusterVirtualImage", "name": "ubuntu"}}}


CLASSES = [
    # (DVPInstanceClass, expected capacity)
    (instance_class(1, "1Gi"), {"cpu": "1", "memory": "1Gi"}),
    (instance_class(2, "4Gi", "50%"), {"cpu": "2", "memory": "4Gi"}),  # a fraction limits time, not vCPUs
    (instance_class(4, "8Gi", "100%"), {"cpu": "4", "memory": "8Gi"}),
    (instance_class(16, "64Gi", "20%"), {"cpu": "16", "memory": "64Gi"}),
    (instance_class(3, "6144Mi"), {"cpu": "3", "memory": "6144Mi"}),
]


def put_template(world, name, instance_cls):
    _, template, _ = render_v1("worker", instance_cls)
    template["metadata"] = {"name": name}
    return world.guest.put(r.DECKHOUSE_MACHINE_TEMPLATE, template, NS)


@pytest.mark.parametrize(("instance_cls", "capacity"), CLASSES,
                         ids=[f"{c[1]['cpu']}cpu-{c[1]['memory']}" for c in CLASSES])
def test_a_templates_capacity_matches_its_instance_class(world, instance_cls, capacity):
    put_template(world, "worker-a", instance_cls)
    reconciler = TemplateReconciler(world.ctx)
    reconciler.reconcile(NS, "worker-a")
    status = world.guest.peek(r.DECKHOUSE_MACHINE_TEMPLATE, "worker-a", NS)["status"]
    assert status == {"capacity": capacity, "nodeInfo": NODE_INFO, "observedGeneration": 1}
    writes = world.guest.writes()
    reconciler.reconcile(NS, "worker-a")
    assert world.guest.writes() == writes, "in step: nothing to write"


def test_a_stale_capacity_is_replaced_whole(world):
    put_template(world, "worker-a", instance_class(2, "4Gi"))
    world.guest.set_status(r.DECKHOUSE_MACHINE_TEMPLATE, "worker-a", NS, {
        "capacity": {"cpu": "8", "memory": "1Gi", "nvidia.com/gpu": "1"}, "nodeInfo": NODE_INFO})
    TemplateReconciler(world.ctx).reconcile(NS, "worker-a")
    assert world.guest.peek(r.DECKHOUSE_MACHINE_TEMPLATE, "worker-a", NS)["status"]["capacity"] == {
        "cpu": "2", "memory": "4Gi"}


def test_a_template_that_does_not_parse_is_left_alone(world):
    world.guest.put(r.DECKHOUSE_MACHINE_TEMPLATE, {"metadata": {"name": "broken"},
                                                   "spec": {"template": {"spec": {"vmClassName": ""}}}}, NS)
    TemplateReconciler(world.ctx).reconcile(NS, "broken")
    assert "status" not in world.guest.peek(r.DECKHOUSE_MACHINE_TEMPLATE, "broken", NS)
    assert world.guest.writes() == []
