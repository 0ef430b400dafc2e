# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Node labels follow the VM (parent DVP node, VM class, instance type, topology): a live migration relabels the
Node within one resync, from the VM watch cache, with no restart and no DVP read per Node."""

from __future__ import annotations

import pytest
from ccm_real import Env, eventually
from dvp_ccm.domain import instances as I
from dvp_ccm.domain import taints as T
from dvp_common.dvp.resources import VIRTUAL_MACHINE

RESYNC = 5.0  # seconds: the CCM's full resync in this test


@pytest.fixture
def env(dvp_api, guest_api):
    e = Env(dvp_api, guest_api)
    yield e
    e.close()


def test_live_migrated_vms_node_is_relabelled_within_one_resync(env):
    name = f"{env.prefix}-mv"
    env.vm("mv", hostname=name)
    env.node("mv")
    m = env.manager(controllers=frozenset({"cloud-node"}), address_refresh=RESYNC)
    node = eventually(lambda: (n := env.get_node(name)) and not T.has(n, T.UNINITIALIZED) and n, what="init")
    source = env.dvp.get(VIRTUAL_MACHINE, "mv", env.ns)["status"]["nodeName"]
    assert {k: node["metadata"]["labels"].get(k) for k in (I.PARENT_NODE, I.VM_CLASS, I.INSTANCE_TYPE)} == {
        I.PARENT_NODE: source, I.VM_CLASS: "generic", I.INSTANCE_TYPE: "generic.1c.1Gi"}
    reads = m.dvp.client.metrics.total("get") + m.dvp.client.metrics.total("list")
    env.vm_op("mv", "Migrate")
    moved = eventually(lambda: (vm := env.dvp.get(VIRTUAL_MACHINE, "mv", env.ns))["status"].get(
        "migrationState", {}).get("result") == "Succeeded" and vm, what="VM migrated")
    target = moved["status"]["nodeName"]
    assert target != source
    eventually(lambda: env.get_node(name)["metadata"]["labels"].get(I.PARENT_NODE) == target, timeout=RESYNC,
               what="Node relabelled with the new parent node")
    assert m.dvp.client.metrics.total("get") + m.dvp.client.metrics.total("list") == reads  # watch events only
    assert env.get_node(name)["status"]["addresses"][0]["address"] == moved["status"]["ipAddress"]
