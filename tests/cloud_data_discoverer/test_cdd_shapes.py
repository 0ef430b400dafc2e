# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Malformed DVP and guest objects, each judged alone: the bad one is skipped naming its field, the good one
beside it goes through. The discovery data we publish keeps to the module's own schema."""

from __future__ import annotations

import base64
import datetime as dt
import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from cloud_data_discoverer.domain import conditions as cond
from cloud_data_discoverer.domain import discovery, instance_types, orphans, shapes
from cloud_data_discoverer.domain.shapes import Skipped
from cloud_data_discoverer.guest import _key

ROOT = Path(__file__).resolve().parents[2]
NOW = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)
NAME = "metadata.name is missing or not a DNS-1123 name"
GOOD_SC = {"metadata": {"name": "good"}, "provisioner": "x"}


def schema() -> dict:
    doc = yaml.safe_load((ROOT / "candi/openapi/cloud_discovery_data.yaml").read_text())
    return doc["apiVersions"][0]["openAPISpec"]


@pytest.mark.parametrize("bad,ref,reason", [
    ({"metadata": {}}, "StorageClass #0 (no usable name)", NAME),
    ({"metadata": {"name": 42}}, "StorageClass #0 (no usable name)", NAME),
    ({"metadata": {"name": "../../etc"}}, "StorageClass #0 (no usable name)", NAME),
    ({"metadata": {"name": "Fast_SSD"}}, "StorageClass #0 (no usable name)", NAME),
    ({"metadata": {"name": "a" * 254}}, "StorageClass #0 (no usable name)", NAME),
    ({"metadata": ["name", "x"]}, "StorageClass #0 (no usable name)", "metadata is not an object"),
    ("a string", "StorageClass #0 (no usable name)", "the object is not a JSON object"),
    ({"metadata": {"name": "x", "annotations": ["a"]}}, 'StorageClass "x"',
     "metadata.annotations is not an object"),
    ({"metadata": {"name": "x", "annotations": {"a": 1}}}, 'StorageClass "x"',
     "metadata.annotations is not a map of strings"),
    ({"metadata": {"name": "x"}, "reclaimPolicy": {"a": 1}}, 'StorageClass "x"',
     "reclaimPolicy is not one of Delete, Retain"),
    ({"metadata": {"name": "x"}, "allowVolumeExpansion": "false"}, 'StorageClass "x"',
     "allowVolumeExpansion is not a boolean"),
])
def test_storage_class_shapes(bad, ref, reason):
    entries, skipped = shapes.judge(shapes.STORAGE_CLASS, "StorageClass", [bad, GOOD_SC],
                                    discovery.storage_class_entry)
    assert skipped == [Skipped("storage_class", ref, reason)]
    assert [e["name"] for e in entries] == ["good"]


GOOD_VMC = {"metadata": {"name": "good"}, "spec": {"sizingPolicies": [{"cores": {"min": 1, "max": 4}}]}}


@pytest.mark.parametrize("policies,reason", [
    ("1-4 cores", "spec.sizingPolicies is not a list"),
    ([1], "spec.sizingPolicies[0] is not an object"),
    ([{"cores": [1, 4]}], "spec.sizingPolicies[0].cores is not an object"),
    ([{"cores": {"min": "1"}}], "spec.sizingPolicies[0].cores.min is not an integer from 0 to 1048576"),
    ([{"cores": {"max": True}}], "spec.sizingPolicies[0].cores.max is not an integer from 0 to 1048576"),
    ([{"memory": {"min": "lots"}}], "spec.sizingPolicies[0].memory.min is not a quantity"),
    ([{"cores": {"step": "2"}}], "spec.sizingPolicies[0].cores.step is not an integer from 0 to 1048576"),
    ([{"memory": {"step": [1]}}], "spec.sizingPolicies[0].memory.step is not a quantity"),
    ([{"memory": {"perCore": "2Gi"}}], "spec.sizingPolicies[0].memory.perCore is not an object"),
    ([{"memory": {"perCore": {"max": True}}}], "spec.sizingPolicies[0].memory.perCore.max is not a quantity"),
    ([{"coreFractions": "5,10"}], "spec.sizingPolicies[0].coreFractions is not a list"),
    ([{"coreFractions": [5, 101]}],
     "spec.sizingPolicies[0].coreFractions holds something that is not a core fraction (1-100 or 1%-100%)"),
    ([{"dedicatedCores": True}], "spec.sizingPolicies[0].dedicatedCores is not a list"),
    ([{}] * 17, "spec.sizingPolicies has more than 16 entries"),
])
def test_vm_class_shapes(policies, reason):
    bad = {"metadata": {"name": "bad"}, "spec": {"sizingPolicies": policies}}
    types, skipped = instance_types.catalog([bad, GOOD_VMC])
    assert skipped == [Skipped("vm_class", 'VirtualMachineClass "bad"', reason)]
    assert [t.virtual_machine_class for t in types] == ["good"]


def test_vm_class_accepts_both_fraction_spellings_and_int_memory():
    vmc = {"metadata": {"name": "v"}, "spec": {"sizingPolicies": [
        {"cores": {"min": 1, "max": 2}, "memory": {"min": 1073741824, "max": "8Gi"}, "coreFractions": ["5%", 100]}]}}
    assert instance_types.catalog([vmc]) == (
        [instance_types.InstanceType("v", 0, 1, 2, "1073741824", "8Gi", ("5%", "100"), False)], [])


def test_quota_shapes():
    good = {"metadata": {"name": "q"}, "status": {"hard": {"cpu": "10"}, "used": {"cpu": "1"}}}
    bad = [{"metadata": {"name": "list"}, "status": {"hard": ["cpu"]}},
           {"metadata": {"name": "used"}, "status": {"hard": {"cpu": "1"}, "used": "all"}},
           {"metadata": {"name": "res"}, "status": {"hard": {"cpu\n<b>": "1"}}}]
    found, skipped = cond.quota_conditions([*bad, good], 0.9)
    assert [c.name for c in found] == ["DVPQuota:q:cpu"]
    assert skipped == [
        Skipped("resource_quota", 'ResourceQuota "list"', "status.hard is not an object"),
        Skipped("resource_quota", 'ResourceQuota "used"', "status.used is not an object"),
        Skipped("resource_quota", 'ResourceQuota "res"', "status.hard names something that is not a resource")]


@pytest.mark.parametrize("text", ["nan", "inf", "-5", "1_000", "5 Gi", "1.2.3Gi", True, None, [1]])
def test_quantities_that_are_no_amount(text):
    quota = {"metadata": {"name": "q"}, "status": {"hard": {"cpu": text}, "used": {"cpu": "1"}}}
    assert cond.quota_conditions([quota], 0.9)[0] == []


def test_quota_amounts_are_exact():
    # the shared quantity: fractions (".5Gi"), exponents and milli compare exactly; a huge amount does not overflow
    quota = {"metadata": {"name": "q"}, "status": {"hard": {"a": ".5Gi", "b": "1", "c": "1e3"},
                                                    "used": {"a": "512Mi", "b": "1e999", "c": "500m"}}}
    assert [(c.name, c.ok, c.message.rsplit(" ", 1)[-1]) for c in cond.quota_conditions([quota], 0.9)[0]] == [
        ("DVPQuota:q:a", False, "limit)"), ("DVPQuota:q:b", False, "limit)"), ("DVPQuota:q:c", True, "(0%)")]


def test_referencing_objects_and_disks_judged_alone():
    pvs = [{"spec": {"csi": "csi.dvp.deckhouse.io"}},
           {"spec": {"csi": {"driver": "csi.dvp.deckhouse.io", "volumeHandle": "in-use"}}}]
    vms = [{"metadata": {"name": "vm-a"}, "spec": {"blockDeviceRefs": {"kind": "VirtualDisk"}}},
           {"metadata": {"name": "vm-b"}, "status": {"blockDeviceRefs": ["boot"]}}]
    bdas = [{"metadata": {"name": "b"}, "spec": {"blockDeviceRef": {"kind": "VirtualDisk", "name": 7}}}]
    names, unreadable = orphans.referenced_names(pvs, vms, bdas)
    assert names == {"in-use"}
    assert unreadable == [
        Skipped("persistent_volume", "PersistentVolume #0 (no usable name)", "spec.csi is not an object"),
        Skipped("virtual_machine", 'VirtualMachine "vm-a"', "spec.blockDeviceRefs is not a list"),
        Skipped("virtual_machine", 'VirtualMachine "vm-b"', "status.blockDeviceRefs[0] is not an object"),
        Skipped("vmbda", 'VirtualMachineBlockDeviceAttachment "b"', "spec.blockDeviceRef.name is not a DNS-1123 name")]
    ours = {"dvp.deckhouse.io/cluster-uuid": "u1"}
    old = "2025-01-01T00:00:00Z"
    disks = [{"metadata": {"name": "lab", "labels": ["u1"]}},
             {"metadata": {"name": "uid", "uid": "x y\n", "labels": ours, "creationTimestamp": old}},
             {"metadata": {"name": "when", "uid": "1", "labels": ours, "creationTimestamp": 17}},
             {"metadata": {"name": "lost", "uid": "u-1", "labels": ours, "creationTimestamp": old},
              "spec": {"persistentVolumeClaim": {"size": "5Gi"}}}]
    found, skipped = orphans.find_orphans(disks, names, "u1", "dvp.deckhouse.io/cluster-uuid",
                                          "dvp.deckhouse.io/component", NOW, 600)
    assert found == [orphans.OrphanedDisk("lost", "u-1", "5Gi", "")]
    assert skipped == [Skipped("virtual_disk", 'VirtualDisk "lab"', "metadata.labels is not an object"),
                       Skipped("virtual_disk", 'VirtualDisk "uid"', "metadata.uid is missing or not a UID")]


def test_installer_data_sanitized_to_the_schema():
    installer = {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "layout": "Standard",
                 "zones": "zone-a",  # a string, not a list: it must not become ["z", "o", "n", ...]
                 "storageClasses": [{"name": 5}, {"name": "ok", "isEnabled": "yes"}, {"name": "fine", "x": 1},
                                    "text", {"name": "fine", "reclaimPolicy": "Retain"}],
                 "token": "s3cr3t-Value", "notes": {"a": 1}}
    clean, problems = discovery.sanitize(installer, shapes.INSTALLER_DATA, "S")
    assert clean == {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "layout": "Standard",
                     "storageClasses": [{"name": "fine"}]}
    assert [p.reason for p in problems] == [
        "zones: not a list of distinct zone names (dropped)",
        "storageClasses[0]: name missing or not a DNS-1123 name (dropped)",
        "storageClasses[1]: isEnabled is not a boolean (dropped)",
        "storageClasses[2]: fields the schema does not know (dropped)",
        "storageClasses[3]: not an object (dropped)",
        "the document: 2 field(s) the schema does not know (dropped)"]
    assert "s3cr3t" not in repr(problems) and "token" not in repr(problems)  # fields are counted, not named
    data = discovery.merge(clean, [])
    assert data["zones"] == ["default"]
    jsonschema.validate(data, schema())


@pytest.mark.parametrize("depth", [40, 100000])
def test_deeply_nested_installer_data_is_refused(depth):
    text = '{"zones":' + "[" * depth + "]" * depth + "}"
    with pytest.raises(discovery.InvalidDiscoveryData, match="^discovery data is nested too deep$"):
        discovery.parse(text)


@pytest.mark.parametrize("raw", [base64.b64encode(b"\xff\xfe{}").decode(), "not base64!", 17])
def test_installer_secret_key_not_base64_utf8(raw):
    with pytest.raises(discovery.InvalidDiscoveryData, match="^key k is not base64 of UTF-8 text$"):
        _key({"data": {"k": raw}}, "k")
    assert _key({"data": ["k"]}, "k") is None and _key("text", "k") is None


def test_vanished_classes_expire_after_the_grace_period():
    day = 86400.0
    previous = {"zones": ["a"], "storageClasses": [{"name": "here"}, {"name": "gone"}, {"name": "new-gone"}]}
    record = {"gone": "2025-12-29T12:00:00Z", "back": "2025-12-01T00:00:00Z", "Bad Name": "x"}
    data, vanished = discovery.expire(previous, {"here", "back"}, record, NOW, 7 * day)
    assert data["storageClasses"] == [{"name": "here"}, {"name": "gone"}, {"name": "new-gone"}]
    assert vanished == {"gone": "2025-12-29T12:00:00Z", "new-gone": "2026-01-01T12:00:00Z"}
    later = NOW + dt.timedelta(days=4)
    data, vanished2 = discovery.expire(previous, {"here"}, vanished, later, 7 * day)
    assert data["storageClasses"] == [{"name": "here"}, {"name": "new-gone"}]  # 7 days after 29 Dec
    assert vanished2 == vanished  # still remembered while a source lists it: never brought back
    assert discovery.parse_vanished(json.dumps(record)) == {"gone": "2025-12-29T12:00:00Z",
                                                            "back": "2025-12-01T00:00:00Z"}
    assert discovery.parse_vanished("[1]") == {} and discovery.parse_vanished("{") == {}
