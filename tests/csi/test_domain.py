# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Pure domain rules: Quantity, capacity ranges, names and serials, disk state, ownership."""

from __future__ import annotations

import grpc
import pytest
from dvp_common.dvp import DVPConnection, NotOurs, VirtualDisks
from dvp_common.quantity import format_bytes, quantity_bytes
from dvp_csi.domain import disks, names
from dvp_csi.domain.capacity import GIB, MIB, Range, choose_size, fits
from dvp_csi.domain.errors import CsiError
from dvp_csi.domain.quota import headroom

UUID = "c-1"


# 1000 bytes print as "1k", as the API server prints them (below 1Ki binary amounts are shown in decimal)
@pytest.mark.parametrize(("value", "text"), [(GIB, "1Gi"), (3 * MIB, "3Mi"), (1536 * MIB, "1536Mi"), (1000, "1k"),
                                             (1 << 40, "1Ti")])
def test_quantity_format_is_exact(value, text):
    assert format_bytes(value) == text
    assert quantity_bytes(text) == value


@pytest.mark.parametrize(("rng", "size"), [
    (Range(), GIB), (Range(limit=MIB * 100), MIB * 100), (Range(required=1), MIB), (Range(required=MIB + 1), 2 * MIB),
    (Range(required=MIB + 1, limit=MIB + 1), MIB + 1), (Range(required=5 * GIB, limit=10 * GIB), 5 * GIB)])
def test_choose_size(rng, size):
    assert choose_size(rng) == size
    assert fits(size, rng)


@pytest.mark.parametrize(("rng", "code"), [(Range(required=-1), grpc.StatusCode.INVALID_ARGUMENT),
                                           (Range(limit=-1), grpc.StatusCode.INVALID_ARGUMENT),
                                           (Range(required=2, limit=1), grpc.StatusCode.OUT_OF_RANGE)])
def test_choose_size_rejects(rng, code):
    with pytest.raises(CsiError) as err:
        choose_size(rng)
    assert err.value.code == code


def test_names_and_serial():
    assert names.object_name("pvc-0a1b", "pvc") == "pvc-0a1b"
    hashed = names.object_name("PVC_Upper", "pvc")
    assert hashed == names.object_name("PVC_Upper", "pvc") != names.object_name("PVC_upper", "pvc")
    assert names.is_valid_object_name(hashed) and len(hashed) == 44
    assert names.object_name("x" * 64, "snapshot").startswith("snapshot-")
    assert names.disk_serial("6c2a4c1e-0000-4000-8000-000000000001") == "d9e2e0a70745324610fa6550d9acdc0b"
    assert names.device_link("/dev/disk/by-id/", "ab") == "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_ab"
    assert names.vmbda_name("pvc-1", "vm-a") == "vmbda-pvc-1-vm-a"
    assert len(names.vmbda_name("d" * 200, "v" * 100)) == 253


def disk(phase="", capacity=None, ready=None, size="1Gi", attached=()):
    status = {"phase": phase, "attachedToVirtualMachines": [{"name": n} for n in attached]}
    if capacity:
        status["capacity"] = capacity
    if ready:
        status["conditions"] = [{"type": "Ready", **ready}]
    return {"metadata": {"name": "d"}, "spec": {"persistentVolumeClaim": {"size": size}}, "status": status}


def test_disk_state_as_csi_answers_it():
    assert disks.disk_failure(disk("Provisioning")) is None
    quota = disks.disk_failure(disk("Pending", ready={"status": "False", "reason": "QuotaExceeded", "message": "q"}))
    assert quota.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "quota exceeded: q" in quota.message
    assert disks.disk_failure(disk("Failed")).code == grpc.StatusCode.INTERNAL
    assert disks.disk_failure(disk("Pending", ready={"status": "False", "reason": "PVCLost"})).code == \
        grpc.StatusCode.INTERNAL
    failed = disks.disk_failure(disk("Pending", ready={"status": "False", "reason": "StorageClassIsNotReady",
                                                       "message": "no class"}))
    assert failed.message == "VirtualDisk d failed: StorageClassIsNotReady: no class"
    assert disks.vm_alive({"metadata": {}, "status": {"phase": "Running"}})
    assert not disks.vm_alive({"metadata": {}, "status": {"phase": "Stopped"}})
    assert not disks.vm_alive({"metadata": {"deletionTimestamp": "x"}, "status": {"phase": "Running"}})
    assert not disks.vm_alive(None)


def resizing(reason: str, generation: int | None = None) -> dict:
    cond = {"type": "Resizing", "status": "False", "reason": reason, "message": "Disk resizing is not allowed: q."}
    if generation is not None:
        cond["observedGeneration"] = generation
    return {"metadata": {"name": "d"}, "status": {"phase": "Ready", "conditions": [cond]}}


def test_a_refused_grow_counts_only_for_the_spec_dvp_judged():
    refused = disks.resize_refused(resizing("NotAvailable", 4), 4)
    assert (refused.code, refused.message) == (grpc.StatusCode.RESOURCE_EXHAUSTED,
                                               "VirtualDisk d: Disk resizing is not allowed: q.")
    assert disks.resize_refused(resizing("NotAvailable", 3), 4) is None  # written for the spec before our grow
    assert disks.resize_refused(resizing("NotAvailable"), 4).code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert disks.resize_refused(resizing("InProgress", 4), 4) is None


def obj(labels):
    return {"metadata": {"labels": labels}}


def test_ownership_of_volumes_admits_admin_adopted_disks_but_never_another_components():
    disks_of = VirtualDisks(DVPConnection(None, "proj", UUID), "csi", adoptable=True)
    ours = obj({"dvp.deckhouse.io/cluster-uuid": UUID, "dvp.deckhouse.io/component": "csi"})
    assert disks_of.is_ours(ours) and disks_of.made_by_us(ours)
    capdvp = obj({"dvp.deckhouse.io/cluster-uuid": UUID, "dvp.deckhouse.io/component": "capdvp"})
    assert not disks_of.is_ours(capdvp)
    adopted = obj({"csi.dvp.deckhouse.io/adopt-by-cluster": UUID})
    assert disks_of.is_ours(adopted) and not disks_of.made_by_us(adopted)
    assert disks_of.require_ours(adopted) is adopted
    assert not VirtualDisks(DVPConnection(None, "proj", "other"), "csi", adoptable=True).is_ours(adopted)
    assert not VirtualDisks(DVPConnection(None, "proj", UUID), "csi").is_ours(adopted)  # only where asked for
    capdvp_adopt = obj({"csi.dvp.deckhouse.io/adopt-by-cluster": UUID, "dvp.deckhouse.io/component": "capdvp"})
    assert not disks_of.is_ours(capdvp_adopt)
    assert not disks_of.is_ours(obj({}))
    with pytest.raises(NotOurs):
        disks_of.require_ours(capdvp_adopt)


def test_quota_headroom_is_the_tightest_storage_limit_of_every_quota():
    total = {"status": {"hard": {"requests.storage": "10Gi", "count/pods": "5"},
                        "used": {"requests.storage": "4Gi", "count/pods": "1"}}}
    per_class = {"status": {"hard": {"fast.storageclass.storage.k8s.io/requests.storage": "3Gi"},
                            "used": {"fast.storageclass.storage.k8s.io/requests.storage": "1Gi"}}}
    fresh = {"spec": {"hard": {"requests.storage": "8Gi"}}}  # the quota controller has not written a status yet
    full = {"status": {"hard": {"slow.storageclass.storage.k8s.io/requests.storage": "1Gi"},
                       "used": {"slow.storageclass.storage.k8s.io/requests.storage": "2Gi"}}}
    gib = GIB
    assert headroom([]) is None and headroom([{"status": {"hard": {"count/pods": "5"}}}], "fast") is None
    assert headroom([total, per_class], "fast") == 2 * gib
    assert headroom([total, per_class], "slow") == 6 * gib
    assert headroom([total, per_class]) == 6 * gib  # no class: only the total counts
    assert headroom([total, fresh], "fast") == 6 * gib
    assert headroom([fresh], "fast") == 8 * gib
    assert headroom([total, full], "slow") == 0  # over its limit (lowered meanwhile): no room, never negative
