# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CCM in a guest whose own control plane runs: kwok's kubelet registers the Node of a DVP VM with the
uninitialized taint, the CCM initialises it; the VM stops, the kubelet with it, the node lifecycle controller
marks the Node unreachable and the CCM taints it shut down; the VM is deleted and the CCM deletes the Node."""

from __future__ import annotations

import pytest
from ccm_real import Env, eventually
from dvp_ccm.domain import taints as T
from dvp_common.dvp.resources import VIRTUAL_MACHINE

from testkit.harness.guest_controllers import KubeletsInVMs, register_node

UNREACHABLE = "node.kubernetes.io/unreachable"


@pytest.fixture
def env(dvp_api, guest_controllers):
    e = Env(dvp_api, guest_controllers.server)
    kubelets = KubeletsInVMs(e.dvp, e.ns, e.guest).start()
    yield e
    kubelets.stop()
    e.close()


def ready(node: dict) -> str:
    return next(c["status"] for c in node["status"]["conditions"] if c["type"] == "Ready")


def test_a_kwok_node_is_initialised_then_follows_its_vm_down_and_away(env):
    name = f"{env.prefix}-w0"
    ip = env.vm("w0", hostname=name)["status"]["ipAddress"]
    register_node(env.guest, name, uninitialized=True)
    env.nodes.append(name)
    env.manager(controllers=frozenset({"cloud-node", "cloud-node-lifecycle"}))

    node = eventually(lambda: (n := env.get_node(name)) and not T.has(n, T.UNINITIALIZED) and n, what="init")
    assert node["spec"]["providerID"] == "dvp://w0"
    assert [a for a in node["status"]["addresses"] if a["type"] == "InternalIP"] == [
        {"type": "InternalIP", "address": ip}]
    assert ready(node) == "True"

    # the VM stops: no heartbeats, the node lifecycle controller's verdict, then the CCM's shutdown taint
    env.vm_op("w0", "Stop")
    env.wait_vm("w0", "Stopped")
    # the two controllers act independently, so neither taint is awaited before the other
    node = eventually(lambda: (n := env.get_node(name)) and T.has(n, T.SHUTDOWN)
                      and any(t["key"] == UNREACHABLE for t in n["spec"]["taints"]) and n, timeout=60,
                      what="shutdown and unreachable taints")
    assert ready(node) == "Unknown"

    # started again: heartbeats again, Ready, both taints gone
    env.vm_op("w0", "Start")
    env.wait_vm("w0", "Running")
    eventually(lambda: (n := env.get_node(name)) and ready(n) == "True" and not T.has(n, T.SHUTDOWN)
               and not any(t["key"] == UNREACHABLE for t in n["spec"].get("taints") or []), timeout=60,
               what="Ready again, untainted")

    # the VM is deleted: the Node goes (out-of-service first, as configured)
    env.dvp.delete(VIRTUAL_MACHINE, "w0", env.ns)
    eventually(lambda: env.get_node(name) is None, timeout=60, what="node deleted")
