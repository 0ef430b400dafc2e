# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Node addresses from the VM's networks: a dual-stack VM's Node is initialised with both families; the internal
network is a setting; a family the VM stops reporting keeps its last address. Real APIs, simulated DVP."""

from __future__ import annotations

import pytest
from ccm_real import Env, eventually
from dvp_ccm.domain import taints as T
from dvp_common.dvp.resources import VIRTUAL_MACHINE

NETWORKS = [{"type": "Main"}, {"type": "Network", "name": "v6"}, {"type": "Network", "name": "storage"}]


@pytest.fixture
def env(dvp_api, guest_api):
    e = Env(dvp_api, guest_api, network_pools={"v6": "fd00:66::/64", "storage": "10.77.0.0/24"})
    yield e
    e.close()


def test_dual_stack_vms_node_is_initialised_with_both_families(env):
    a, b = f"{env.prefix}-ds", f"{env.prefix}-st"
    ds = env.vm("ds", hostname=a, networks=NETWORKS)
    st = env.vm("st", hostname=b, networks=NETWORKS)
    env.node("ds")
    m = env.manager(controllers=frozenset({"cloud-node"}))
    node = eventually(lambda: (n := env.get_node(a)) and not T.has(n, T.UNINITIALIZED) and n, what="init")
    v4, v6, storage = ds["status"]["ipAddress"], ds["status"]["networks"][1]["ipAddress"], \
        ds["status"]["networks"][2]["ipAddress"]
    assert node["status"]["addresses"] == [
        {"type": "InternalIP", "address": v4}, {"type": "InternalIP", "address": v6},
        {"type": "InternalIP", "address": storage},
        {"type": "ExternalIP", "address": v4}, {"type": "ExternalIP", "address": v6},
        {"type": "Hostname", "address": a}]
    m.shutdown()
    # another CCM whose internal network is "storage": that address is the IPv4 InternalIP, listed first
    env.node("st")
    env.manager(controllers=frozenset({"cloud-node"}), internal_network="storage")
    node = eventually(lambda: (n := env.get_node(b)) and not T.has(n, T.UNINITIALIZED) and n, what="init")
    st_v4, st_v6, st_storage = st["status"]["ipAddress"], st["status"]["networks"][1]["ipAddress"], \
        st["status"]["networks"][2]["ipAddress"]
    assert [(x["type"], x["address"]) for x in node["status"]["addresses"]] == [
        ("InternalIP", st_storage), ("InternalIP", st_v6), ("InternalIP", st_v4),
        ("ExternalIP", st_storage), ("ExternalIP", st_v6), ("Hostname", b)]
    # the guest agent stops reporting the IPv6 address while the storage one changes (the simulator is stopped,
    # or it would write them back): once the Node shows the new storage address, the IPv6 one is still there
    env.sim.stop()
    nets = [dict(n) for n in st["status"]["networks"]]
    nets[1].pop("ipAddress")
    nets[2]["ipAddress"] = "10.77.0.250"
    env.dvp.patch(VIRTUAL_MACHINE, "st", {"status": {"networks": nets}}, env.ns, subresource="status")
    node = eventually(lambda: (n := env.get_node(b)) and n["status"]["addresses"][0]["address"] == "10.77.0.250"
                      and n, what="the new storage address on the Node")
    assert [(x["type"], x["address"]) for x in node["status"]["addresses"]] == [
        ("InternalIP", "10.77.0.250"), ("InternalIP", st_v6), ("InternalIP", st_v4),
        ("ExternalIP", "10.77.0.250"), ("ExternalIP", st_v6), ("Hostname", b)]
