# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import pytest
from ccm_builders import node, vm
from dvp_ccm.domain import instances as I
from dvp_common.dvp import labels as L

U = "uuid-1"


def test_vm_ref_by_provider_id_else_hostname_and_foreign_is_none():
    assert I.vm_ref(node("w-0", provider_id="dvp://vm-a")) == I.VMRef(name="vm-a")
    assert I.vm_ref(node("w-0")) == I.VMRef(hostname="w-0")
    assert I.vm_ref(node("w-0", provider_id="kubevirt://x")) is None
    assert I.is_foreign(node("w-0", provider_id="aws:///eu/i-1"))
    assert not I.is_foreign(node("w-0"))


@pytest.mark.parametrize("pid", ["dvp://", "dvp://a/b", "dvp://UPPER", "dvp://-x"])
def test_malformed_provider_id_names_node_and_field(pid):
    with pytest.raises(I.BadProviderID) as err:
        I.vm_ref(node("w-0", provider_id=pid))
    assert str(err.value).startswith('Node "w-0": spec.providerID') and pid in str(err.value)


def test_considered_needs_our_uuid_and_capdvp_or_no_component():
    assert I.considered(vm("a", U), U)
    assert I.considered(vm("a", U, component=L.DHCTL), U)  # dhctl's master VMs
    assert not I.considered(vm("a", U, component=None), U)  # no maker: not ours
    assert not I.considered(vm("a", "other"), U)
    assert not I.considered(vm("a", "", component=L.CAPDVP), U)
    assert not I.considered(vm("a", U, component=L.CSI), U)
    assert not I.considered(None, U)
    with pytest.raises(ValueError):
        I.considered(vm("a", U), "")


def test_addresses_internal_external_hostname_and_never_empty():
    assert I.addresses(vm("vm-a", U, hostname="w-0", ip="10.0.0.5"), "w-0") == [
        {"type": "InternalIP", "address": "10.0.0.5"}, {"type": "ExternalIP", "address": "10.0.0.5"},
        {"type": "Hostname", "address": "w-0"}]
    assert I.addresses(vm("vm-a", U, ip=""), "w-0") == []
    assert I.addresses(vm("vm-a", U, ip="  "), "w-0") == []


def test_instance_type_format_and_label_limits():
    assert I.instance_type(vm("a", U)) == "generic.2c.4Gi"
    long = vm("a", U)
    long["spec"]["virtualMachineClassName"] = "x" * 80
    value = I.instance_type(long)
    assert len(value) == 63 and value.startswith("x" * 52 + "-")
    assert I.instance_type({"spec": {"virtualMachineClassName": "g"}}) == ""


def test_topology_from_node_selector_then_labels_then_defaults():
    placed = vm("a", U, node_selector={I.ZONE: "z1", I.REGION: "r1"}, extra_labels={I.ZONE: "z9"})
    assert I.topology(placed, "dr", "dz") == {I.REGION: "r1", I.ZONE: "z1"}
    labelled = vm("a", U, extra_labels={I.ZONE: "z9"})
    assert I.topology(labelled, "dr", "") == {I.REGION: "dr", I.ZONE: "z9"}
    assert I.topology(vm("a", U)) == {}
    assert I.topology(vm("a", U, extra_labels={I.ZONE: "bad value!"})) == {}
    assert I.node_labels(placed) == {I.REGION: "r1", I.ZONE: "z1", I.INSTANCE_TYPE: "generic.2c.4Gi",
                                     I.VM_CLASS: "generic"}


def test_labels_follow_the_vm_and_keep_the_last_parent_node():
    running = vm("a", U)
    running["status"] = {"nodeName": "dvp-node-2"}
    node = {"metadata": {"name": "a", "labels": {I.PARENT_NODE: "dvp-node-1", I.VM_CLASS: "generic"}}}
    assert I.label_changes(node, running) == {I.PARENT_NODE: "dvp-node-2", I.INSTANCE_TYPE: "generic.2c.4Gi"}
    node["metadata"]["labels"].update(I.label_changes(node, running))
    assert I.label_changes(node, running) == {}
    stopped = vm("a", U)  # no status.nodeName: the last known parent node stays
    assert I.label_changes(node, stopped) == {}


def networked(ip: str, *networks: tuple[str, str]) -> dict:
    out = vm("a", U)
    out["status"] = {"ipAddress": ip, "networks": [{"type": "Main", "name": "Main"}] + [
        {"type": "Network", "name": name, "ipAddress": addr} for name, addr in networks]}
    return out


def test_dual_stack_and_multi_network_addresses_one_internal_ip_per_family():
    dual = networked("10.66.0.5", ("v6", "fd00::5"), ("storage", "10.77.0.5"))
    assert I.addresses(dual, "a") == [
        {"type": "InternalIP", "address": "10.66.0.5"}, {"type": "InternalIP", "address": "fd00::5"},
        {"type": "InternalIP", "address": "10.77.0.5"},
        {"type": "ExternalIP", "address": "10.66.0.5"}, {"type": "ExternalIP", "address": "fd00::5"},
        {"type": "Hostname", "address": "a"}]
    # another network chosen as internal: its address is the IPv4 InternalIP, the main one follows
    assert [a["address"] for a in I.addresses(dual, "a", "storage") if a["type"] == "ExternalIP"] == [
        "10.77.0.5", "fd00::5"]
    assert I.addresses(dual, "a", "storage")[:3] == [{"type": "InternalIP", "address": "10.77.0.5"},
                                                     {"type": "InternalIP", "address": "fd00::5"},
                                                     {"type": "InternalIP", "address": "10.66.0.5"}]
    single = networked("10.66.0.5")
    assert I.addresses(single, "a") == [{"type": "InternalIP", "address": "10.66.0.5"},
                                        {"type": "ExternalIP", "address": "10.66.0.5"},
                                        {"type": "Hostname", "address": "a"}]
    assert I.addresses(networked("", ("bad", "not-an-ip")), "a") == []


def test_a_family_the_guest_agent_stops_reporting_keeps_its_last_address():
    before = I.addresses(networked("10.66.0.5", ("v6", "fd00::5")), "a")
    silent = networked("10.66.0.5", ("v6", ""))
    assert I.addresses(silent, "a", current=before) == before
    assert I.addresses(networked(""), "a", current=before) == []  # nothing reported: the caller keeps all
