# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import os

import disable_load_balancer as hook
import pytest
from deckhouse import hook as sdk
from lib import testing as t

PATH = os.path.join(os.path.dirname(__file__), "disable_load_balancer.py")
START = {"cloudProviderDvp": {"internal": {}}}
CM = t.configmap("d8-cloud-provider-dvp", "dvp-cloud-controller-manager-disable-lb", {"any": "thing"})


def run(bc, vals=START):
    return sdk.testrun(hook.main, binding_context=bc, config_values={}, initial_values=vals)


@pytest.mark.parametrize("kind", ["sync", "event", "group"])
def test_configmap_presence_disables_load_balancers(kind):
    snaps = t.snapshots(hook, disable_lb_configmap=[CM])
    bc = {"sync": lambda: t.synchronization(hook, snaps), "event": lambda: t.event(hook, snaps, hook.SNAPSHOT),
          "group": lambda: t.group(snaps)}[kind]()
    out = run(bc)
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/disableLoadBalancer", "value": True}
    ]
    assert out.kube_operations.data == [] and out.metrics.data == []
    assert run(bc, t.apply(START, out.values_patches.data)).values_patches.data == []
    t.assert_contract(hook, PATH, bc, START, {}, out)


def test_configmap_deleted_enables_them_again():
    snaps = t.snapshots(hook)
    bc = [
        {
            "binding": hook.SNAPSHOT,
            "type": "Event",
            "watchEvent": "Deleted",
            "filterResult": {"name": CM["metadata"]["name"]},
            "snapshots": snaps,
        }
    ]
    vals = {"cloudProviderDvp": {"internal": {"disableLoadBalancer": True}}}
    out = run(bc, vals)
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/disableLoadBalancer", "value": False}
    ]
    t.assert_contract(hook, PATH, bc, vals, {}, out)


def test_imports_nothing_heavy():
    snaps = t.snapshots(hook, disable_lb_configmap=[CM])
    assert t.fresh_run(hook, t.synchronization(hook, snaps), START)[2] == []


# Deckhouse's own hook test, replayed (facts only): deckhouse/deckhouse
# modules/030-cloud-provider-dvp/hooks/disable_load_balancer_test.go@11c6a4708b0ba68f46e82e83ecd907d7feed0c22


@pytest.mark.parametrize(("objects", "disabled"), [
    ([], False),  # "When the disable ConfigMap is absent"
    ([t.configmap("d8-cloud-provider-dvp", "dvp-cloud-controller-manager-disable-lb")], True),  # "... is present"
])
def test_upstream_disable_configmap(objects, disabled):
    out = run(t.before_helm(t.snapshots(hook, disable_lb_configmap=objects)))
    assert out.values["cloudProviderDvp"]["internal"]["disableLoadBalancer"] is disabled
