# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A parent StorageClass marked to be skipped: the discoverer and the storage-classes hook apply the one rule
(dvp_common.parent_storage_classes), so what the discoverer writes is exactly what the hook publishes."""

from __future__ import annotations

import pytest
from cloud_data_discoverer.domain import discovery
from dvp_common import parent_storage_classes as rule
from lib import storage_classes as hook_rule

SKIP = "cloud-provider.deckhouse.io/skip-storage-class"
DEFAULT = "storageclass.kubernetes.io/is-default-class"


def parent(name, **annotations):
    return {"metadata": {"name": name, "annotations": annotations}, "provisioner": "x"}


def test_the_hook_publishes_exactly_the_classes_the_discoverer_enables():
    classes = [parent("local-disks", **{SKIP: "true", DEFAULT: "true"}), parent("replicated", **{DEFAULT: "true"}),
               parent("fast", **{SKIP: "false"}), parent("local-nvme", **{SKIP: " TRUE "})]
    data = discovery.merge({}, [discovery.storage_class_entry(c) for c in classes])
    # the guest had published local-disks before it was marked: it is not kept either
    plan = hook_rule.plan(data["storageClasses"], None, [{"name": "local-disks", "dvpStorageClass": "local-disks"}])
    assert [c["name"] for c in plan.classes] == ["fast", "replicated"]
    assert plan.default == "replicated"
    assert [rule.published(e) for e in data["storageClasses"]] == [True, False, False, True]


@pytest.mark.parametrize(("annotations", "skipped", "default"), [
    ({}, False, False),
    ({SKIP: "true"}, True, False),
    ({SKIP: "True", DEFAULT: "true"}, True, False),  # a skipped class is never the guest's default
    ({SKIP: "no", "storageclass.beta.kubernetes.io/is-default-class": "TRUE"}, False, True),
    (None, False, False),
])
def test_the_rule(annotations, skipped, default):
    assert (rule.skipped(annotations), rule.default(annotations)) == (skipped, default)


def test_only_an_entry_enabled_explicitly_is_published():
    # the discovery data is omitempty: an entry without isEnabled is a disabled one
    assert [rule.published(e) for e in ({"name": "a", "isEnabled": True}, {"name": "b"},
                                        {"name": "c", "isEnabled": False})] == [True, False, False]
