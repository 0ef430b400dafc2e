# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The pure parts of the discoverer: the discovery merge, orphaned disks, instance types, conditions."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from cloud_data_discoverer.domain import conditions as cond
from cloud_data_discoverer.domain import discovery, instance_types, orphans

NOW = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)


def sc(name, *, default=None, beta=None, skip=None, reclaim=None, expand=None):
    ann = {}
    if default is not None:
        ann["storageclass.kubernetes.io/is-default-class"] = default
    if beta is not None:
        ann["storageclass.beta.kubernetes.io/is-default-class"] = beta
    if skip is not None:
        ann["cloud-provider.deckhouse.io/skip-storage-class"] = skip
    obj = {"metadata": {"name": name, "annotations": ann}, "provisioner": "x", "volumeBindingMode": "Immediate"}
    if reclaim:
        obj["reclaimPolicy"] = reclaim
    if expand is not None:
        obj["allowVolumeExpansion"] = expand
    return obj


def entries(*objs):
    return [discovery.storage_class_entry(o) for o in objs]


def test_merge_first_run_fills_kind_zones_and_sorts():
    out = discovery.merge({}, entries(sc("b", reclaim="Retain", expand=True), sc("a", default="TRUE")))
    assert out == {
        "apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["default"],
        "storageClasses": [
            {"name": "a", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete", "isEnabled": True,
             "isDefault": True},
            {"name": "b", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Retain",
             "allowVolumeExpansion": True, "isEnabled": True},
        ]}


def test_merge_keeps_vanished_layout_zones_and_moves_default():
    previous = {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "layout": "Standard",
                "zones": ["z1"], "storageClasses": [
                    {"name": "gone", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete",
                     "isEnabled": True, "isDefault": True},
                    {"name": "kept", "reclaimPolicy": "Retain", "isEnabled": True}]}
    out = discovery.merge(previous, entries(sc("kept", beta="true"), sc("new")))
    assert out["layout"] == "Standard" and out["zones"] == ["z1"]
    assert out["storageClasses"] == [
        {"name": "gone", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete", "isEnabled": True},
        {"name": "kept", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete", "isEnabled": True,
         "isDefault": True},
        {"name": "new", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete", "isEnabled": True},
    ]


def test_skipped_class_is_disabled_and_never_default():
    entry = discovery.storage_class_entry(sc("s", default="true", skip="True"))
    assert entry == {"name": "s", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete"}
    assert discovery.storage_class_entry(sc("n", default="yes", skip="false"))["isEnabled"] is True
    assert "isDefault" not in discovery.storage_class_entry(sc("n", default="yes"))


def test_base_takes_installer_fields_and_every_known_class():
    installer = {"layout": "Standard", "zones": ["new"], "storageClasses": [{"name": "i", "isEnabled": True},
                                                                           {"name": "both", "reclaimPolicy": "x"}]}
    written = {"layout": "Old", "zones": ["old"], "storageClasses": [{"name": "w"}, {"name": "both"}]}
    assert discovery.base(installer, written) == {"layout": "Standard", "zones": ["new"], "storageClasses": [
        {"name": "i", "isEnabled": True}, {"name": "both"}, {"name": "w"}]}
    assert discovery.base({}, written) == written
    assert discovery.base(installer, {}) == installer
    assert discovery.base({}, {}) == {}


@pytest.mark.parametrize("text,expected", [(None, {}), ("", {}), ("  ", {}), ('{"zones":["a"]}', {"zones": ["a"]})])
def test_parse_accepts(text, expected):
    assert discovery.parse(text) == expected


@pytest.mark.parametrize("text,message", [("{", "discovery data is not JSON"), ("[1]", "not a JSON object")])
def test_parse_rejects(text, message):
    with pytest.raises(discovery.InvalidDiscoveryData, match=message):
        discovery.parse(text)


def test_render_is_stable():
    a = discovery.render({"b": 1, "a": [1]})
    assert a == '{"a":[1],"b":1}' and json.loads(a) == {"a": [1], "b": 1}


def disk(name, uuid="u1", age_s=3600.0, deleting=False):
    md = {"name": name, "uid": f"uid-{name}", "labels": {"dvp.deckhouse.io/cluster-uuid": uuid,
                                                          "dvp.deckhouse.io/component": "csi"},
          "creationTimestamp": (NOW - dt.timedelta(seconds=age_s)).strftime("%Y-%m-%dT%H:%M:%SZ")}
    if deleting:
        md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": md, "spec": {"persistentVolumeClaim": {"size": "5Gi"}}}


def test_orphans():
    pvs = [{"spec": {"csi": {"driver": "csi.dvp.deckhouse.io", "volumeHandle": "pv-disk"}}},
           {"spec": {"csi": {"driver": "other.csi", "volumeHandle": "foreign-handle"}}}]
    vms = [{"spec": {"blockDeviceRefs": [{"kind": "VirtualDisk", "name": "boot"},
                                         {"kind": "ClusterVirtualImage", "name": "img"}]},
            "status": {"blockDeviceRefs": [{"kind": "VirtualDisk", "name": "hot"}]}}]
    bdas = [{"spec": {"blockDeviceRef": {"kind": "VirtualDisk", "name": "attached"}}}]
    ref, unreadable = orphans.referenced_names(pvs, vms, bdas)
    assert unreadable == []
    assert ref == {"pv-disk", "boot", "hot", "attached"}
    disks = [disk(n) for n in ("pv-disk", "boot", "hot", "attached", "lost", "foreign-handle")]
    disks += [disk("other-cluster", uuid="u2"), disk("young", age_s=60), disk("dying", deleting=True)]
    found, skipped = orphans.find_orphans(disks, ref, "u1", "dvp.deckhouse.io/cluster-uuid",
                                          "dvp.deckhouse.io/component", NOW, 600)
    assert skipped == [] and found == [orphans.OrphanedDisk("foreign-handle", "uid-foreign-handle", "5Gi", "csi"),
                     orphans.OrphanedDisk("lost", "uid-lost", "5Gi", "csi")]


def test_instance_types():
    classes = [{"metadata": {"name": "generic"}, "spec": {"sizingPolicies": [
        {"cores": {"min": 1, "max": 4}, "memory": {"min": "1Gi", "max": "8Gi"}, "coreFractions": [5, 100]},
        {"cores": {"min": 5, "max": 8}, "dedicatedCores": [True]}]}},
        {"metadata": {"name": "any"}, "spec": {}}]
    assert instance_types.catalog(classes) == ([
        instance_types.InstanceType("any", 0, 0, 0, "", "", (), False),
        instance_types.InstanceType("generic", 0, 1, 4, "1Gi", "8Gi", ("5", "100"), False),
        instance_types.InstanceType("generic", 1, 5, 8, "", "", (), True),
    ], [])


def test_conditions():
    assert cond.reachability(None) == cond.Condition("DVPAPIReachable", True, "the DVP API answers")
    assert cond.reachability("connection refused") == cond.Condition(
        "DVPAPIReachable", False, "the DVP API is unreachable: connection refused")
    quota = {"metadata": {"name": "q"}, "status": {"hard": {"requests.storage": "100Gi", "count/x": "10",
                                                             "weird": "lots"},
                                                    "used": {"requests.storage": "95Gi", "count/x": "1"}}}
    assert cond.quota_conditions([quota], 0.9) == ([
        cond.Condition("DVPQuota:q:count/x", True, 'ResourceQuota "q": count/x used 1 of 10 (10%)'),
        cond.Condition("DVPQuota:q:requests.storage", False,
                       'ResourceQuota "q": requests.storage used 95Gi of 100Gi (95%, near its limit)'),
    ], [])
    assert json.loads(cond.render([cond.reachability(None)])) == [
        {"name": "DVPAPIReachable", "ok": True, "message": "the DVP API answers"}]
