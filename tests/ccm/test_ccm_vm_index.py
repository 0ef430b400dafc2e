# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A Node's VM and a LoadBalancer's labelled VMs come from the VM informer's indexes, never a scan of its cache."""

from __future__ import annotations

from ccm_builders import vm
from dvp_ccm.cloud import Cloud
from dvp_ccm.indexes import VM_INDEXES
from informed_api import NS, UUID, dvp_api, dvp_connection

LB_KEY = "dvp.deckhouse.io/a1b2"


class IndexedStore:
    """What the Manager's VM informer offers: indexed lookups; a scan of every VM fails the test."""

    def __init__(self, vms: list[dict]) -> None:
        self.index: dict[tuple[str, str], list[dict]] = {}
        for obj in vms:
            for name, fn in VM_INDEXES.items():
                for value in fn(obj):
                    self.index.setdefault((name, value), []).append(obj)
        self.lookups: list[tuple[str, str]] = []

    def get(self, key: str) -> dict | None:
        raise AssertionError("not expected here")

    def items(self) -> list[dict]:
        raise AssertionError("the VM cache was scanned")

    def by_index(self, name: str, value: str) -> list[dict]:
        self.lookups.append((name, value))
        return self.index.get((name, value), [])


def fleet(n: int) -> list[dict]:
    return [vm(f"vm-{i}", UUID if i != 3 else "other", hostname=f"node-{i}", namespace=NS,
               extra_labels={LB_KEY: "loadbalancer"} if i % 100 == 7 else None) for i in range(n)]


def test_a_node_vm_and_lb_backends_are_index_lookups():
    store = IndexedStore(fleet(1000))
    cloud = Cloud(dvp_connection(dvp_api()), store)
    assert [v["metadata"]["name"] for v in cloud.vm_by_hostname("node-42")] == ["vm-42"]
    assert cloud.vm_by_hostname("node-3") == []  # another cluster's VM: found by the index, then refused
    labelled = sorted(v["metadata"]["name"] for v in cloud.vms_with_label(LB_KEY))
    assert labelled == sorted(f"vm-{i * 100 + 7}" for i in range(10))
    assert store.lookups == [("hostname", "node-42"), ("hostname", "node-3"), ("label-keys", LB_KEY)]
