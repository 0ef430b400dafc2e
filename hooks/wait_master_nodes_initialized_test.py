# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import os

import wait_master_nodes_initialized as hook
from deckhouse import hook as sdk
from lib import testing as t

PATH = os.path.join(os.path.dirname(__file__), "wait_master_nodes_initialized.py")


def node(name: str, *taints: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": "n-" + name, "labels": {hook.MASTER_LABEL: ""}},
            "spec": {"taints": [{"key": k, "effect": "NoSchedule"} for k in taints]}}


def test_filter_tells_which_masters_wait():
    snaps = t.snapshots(hook, master_nodes=[node("m-0", hook.TAINT, "other"), node("m-1", "other"),
                                            {"metadata": {"name": "m-2"}}])
    assert [s["filterResult"] for s in snaps[hook.SNAPSHOT]] == [
        {"name": "m-0", "uninitialized": True}, {"name": "m-1", "uninitialized": False},
        {"name": "m-2", "uninitialized": False}]


def test_binding_selects_masters_and_runs_only_after_helm():
    config = t.hook_config(hook)
    assert config["afterHelm"] == 10
    (b,) = config["kubernetes"]
    assert b["labelSelector"] == {"matchExpressions": [{"key": "node-role.kubernetes.io/master", "operator": "Exists"}]}
    assert (b["executeHookOnEvent"], b["executeHookOnSynchronization"]) == ([], False)


def test_initialized_masters_need_no_api_and_write_nothing():
    snaps = t.snapshots(hook, master_nodes=[node("m-0"), node("m-1", "other")])
    bc = t.after_helm(snaps)
    out = sdk.testrun(hook.main, binding_context=bc, config_values={}, initial_values={})
    assert (out.values_patches.data, out.kube_operations.data, out.metrics.data) == ([], [], [])
    t.assert_contract(hook, PATH, bc, {}, {}, out)
    assert t.fresh_run(hook, bc, {})[2] == []


def test_uninitialized_predicate():
    assert hook.uninitialized(node("m", hook.TAINT))
    assert not hook.uninitialized(node("m", "node.kubernetes.io/not-ready"))
    assert not hook.uninitialized(None)
    assert not hook.uninitialized({"metadata": {"name": "m"}, "spec": {"taints": None}})
