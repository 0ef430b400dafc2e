# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Label conventions, names, providerID, and the ownership rule."""

from __future__ import annotations

import pytest
from dvp_common.dvp import NotOurs, is_ours, owned_labels, require_ours
from dvp_common.dvp import labels as L
from dvp_common.kube import NotFound

UUID = "0a1b2c3d-0000-4000-8000-000000000001"


def obj(labels, kind="VirtualDisk", name="pvc-1", namespace="proj"):
    return {"kind": kind, "metadata": {"name": name, "namespace": namespace, "labels": labels}}


def test_label_keys_match_the_conventions():
    assert (L.CLUSTER_UUID, L.MANAGED_BY, L.HOSTNAME, L.COMPONENT) == (
        "dvp.deckhouse.io/cluster-uuid", "deckhouse.io/managed-by", "dvp.deckhouse.io/hostname",
        "dvp.deckhouse.io/component")
    assert (L.VIRTUAL_DISK_NAME, L.VIRTUAL_MACHINE_DISK_NAME, L.VIRTUAL_MACHINE_NAME) == (
        "virtualDiskName", "virtualMachineDiskName", "virtualMachineName")
    assert {"csi", "capdvp", "ccm", "dhctl"} == L.COMPONENTS
    assert {"capdvp", "dhctl"} == L.NODE_MAKERS


def test_provider_id_round_trip():
    assert L.provider_id("worker-0") == "dvp://worker-0"
    assert L.parse_provider_id("dvp://worker-0") == "worker-0"
    assert L.parse_provider_id("aws:///eu-west-1/i-1") is None
    for bad in ("dvp://", "dvp://a/b"):
        with pytest.raises(ValueError, match="expected dvp://<vm name>"):
            L.parse_provider_id(bad)
    with pytest.raises(ValueError):
        L.provider_id("")


def test_vmbda_name_and_long_names_stay_unique():
    assert L.vmbda_name("pvc-1", "worker-0") == "vmbda-pvc-1-worker-0"
    a, b = L.vmbda_name("d" * 200, "h" * 60 + "a"), L.vmbda_name("d" * 200, "h" * 60 + "b")
    assert len(a) == len(b) == 253 and a != b and a.startswith("vmbda-ddd")


def test_short_name_fits_a_label_value_and_is_stable():
    assert L.short_name("w-1-boot") == "w-1-boot"
    assert L.short_name("a" * 63) == "a" * 63
    long = L.short_name("m" * 63 + "-boot")
    assert long == "m" * 52 + "-" + __import__("hashlib").sha256(("m" * 63 + "-boot").encode()).hexdigest()[:10]
    assert len(long) == 63 and long == L.short_name("m" * 63 + "-boot")
    assert L.short_name("m" * 63 + "-additional-disk-0") != L.short_name("m" * 63 + "-additional-disk-1")
    assert L.short_name("x" * 51 + "--" + "y" * 20).count("--") == 0  # no dash run before the hash


def test_refused_metadata_is_dvps_rule():
    assert L.refused_metadata("team", "a", label=True) is None
    assert L.refused_metadata("team", "", label=True) is None
    assert L.refused_metadata("kubevirt.io/x", "a", label=False) is not None
    assert L.refused_metadata("a.kubevirt.io/x", "a", label=True) is not None
    assert L.refused_metadata("team", "x" * 64, label=True) is not None
    assert L.refused_metadata("team", "x" * 64, label=False) is None  # annotations have no value limit
    assert L.refused_metadata("team", "-x", label=True) is not None


def test_lb_names():
    assert L.lb_name("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0") == "a0f1e2d3c4b5a69788796a5b4c3d2e1f"
    key = L.lb_label_key("A0f1e2d3c-4b5a")
    assert key == "dvp.deckhouse.io/a0f1e2d3c4b5a"
    assert len(L.lb_label_key("x" * 100).split("/")[1]) == 63


def test_owned_labels():
    assert owned_labels(UUID, "csi", {"virtualDiskName": "pvc-1"}) == {
        "virtualDiskName": "pvc-1", "deckhouse.io/managed-by": "deckhouse",
        "dvp.deckhouse.io/cluster-uuid": UUID, "dvp.deckhouse.io/component": "csi"}
    assert owned_labels(UUID, "ccm", {L.CLUSTER_UUID: "forged", L.COMPONENT: "csi"})[L.COMPONENT] == "ccm"
    with pytest.raises(ValueError, match="unknown component"):
        owned_labels(UUID, "hacker")
    with pytest.raises(ValueError, match="cluster UUID is empty"):
        owned_labels("", "csi")


@pytest.mark.parametrize(("labels", "component", "ours"), [
    ({L.CLUSTER_UUID: UUID, L.COMPONENT: "csi"}, "csi", True),
    ({L.CLUSTER_UUID: UUID, L.COMPONENT: "capdvp"}, "csi", False),  # a machine (boot) disk
    ({L.CLUSTER_UUID: "other-cluster", L.COMPONENT: "csi"}, "csi", False),  # another cluster's volume
    ({L.COMPONENT: "csi"}, "csi", False),
    ({L.CLUSTER_UUID: UUID}, "csi", False),  # upstream-made, no component label
    ({}, "csi", False),
    ({L.CLUSTER_UUID: UUID, L.COMPONENT: "capdvp"}, frozenset({"capdvp", "csi"}), True),
])
def test_is_ours(labels, component, ours):
    assert is_ours(obj(labels), UUID, component) is ours


def test_require_ours_raises_a_not_found_naming_the_object():
    with pytest.raises(NotOurs) as info:
        require_ours(obj({L.CLUSTER_UUID: "other", L.COMPONENT: "csi"}, name="boot"), UUID, "csi")
    assert isinstance(info.value, NotFound) and info.value.status == 404
    assert str(info.value) == 'VirtualDisk "proj/boot": 404 NotOurs: not managed by csi of this cluster'
    assert is_ours(None, UUID, "csi") is False
    with pytest.raises(ValueError):
        is_ours(obj({L.CLUSTER_UUID: ""}), "", "csi")
