# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dvp_common.dvp.disk_state: a VirtualDisk's state as DVP writes it, read once for every component."""

from __future__ import annotations

import pytest
from dvp_common.dvp import disk_state, state

GIB, MIB = 1 << 30, 1 << 20


def disk(phase="", capacity=None, ready=None, size="1Gi", attached=(), source=None, sc="fast"):
    status: dict = {"phase": phase} if phase else {}
    if capacity is not None:
        status["capacity"] = capacity
    if attached:
        status["attachedToVirtualMachines"] = [{"name": n, "mounted": True} for n in attached]
    if ready:
        status["conditions"] = [{"type": "Ready", **ready}]
    spec: dict = {"persistentVolumeClaim": {"size": size, "storageClassName": sc}}
    if source:
        spec["dataSource"] = {"type": "ObjectRef", "objectRef": {"kind": source[0], "name": source[1]}}
    return {"metadata": {"name": "d"}, "spec": spec, "status": status}


@pytest.mark.parametrize(("text", "value"), [
    ("10Gi", 10 * GIB), ("1.5Gi", 3 * GIB // 2), ("500M", 500_000_000), ("1073741824", GIB), ("1k", 1000),
    (".5Gi", 512 * MIB), ("1e9", 10**9), ("1500m", 2),  # apimachinery's quantities, milli rounded up
    ("", 0), ("ten", 0), ("5Zi", 0), ("1.2.3Gi", 0), ("-1Gi", 0), (None, 0)])
def test_sizes_read_as_bytes_and_unreadable_ones_as_zero(text, value):
    assert disk_state.reported_bytes({"status": {"capacity": text}}) == value
    assert disk_state.capacity_bytes({"spec": {"persistentVolumeClaim": {"size": text}}}) == value


def test_capacity_is_the_provisioned_size_else_the_requested_one():
    assert disk_state.capacity_bytes(disk(capacity="2Gi")) == 2 * GIB
    assert disk_state.capacity_bytes(disk()) == GIB
    assert disk_state.reported_bytes(disk()) == 0


def test_usable_is_ready_or_waiting_for_its_first_consumer():
    assert disk_state.usable(disk("Ready")) and disk_state.usable(disk("WaitForFirstConsumer"))
    assert not disk_state.usable(disk("Provisioning")) and not disk_state.usable(None)


@pytest.mark.parametrize(("obj", "expected"), [
    (disk("Provisioning"), None),
    (disk("Pending", ready={"status": "False", "reason": "QuotaExceeded", "message": "q"}), ("QuotaExceeded", "q")),
    (disk("Pending", ready={"status": "False", "reason": "StorageClassIsNotReady", "message": "m"}),
     ("StorageClassIsNotReady", "m")),
    (disk("Pending", ready={"status": "False", "reason": "Provisioning", "message": "m"}), None),
    (disk("Failed"), ("Failed", "")),
    (disk("PVCLost", ready={"status": "False", "reason": "Lost", "message": "gone"}), ("PVCLost", "gone")),
])
def test_failure_names_the_terminal_reason(obj, expected):
    assert disk_state.failure(obj) == expected


def test_where_it_is_attached_its_class_and_its_source():
    assert disk_state.attached_vms(disk(attached=["a", "b"])) == ["a", "b"]
    assert disk_state.attached_vms(None) == []
    assert disk_state.storage_class(disk()) == "fast"
    assert disk_state.data_source(disk(source=("VirtualImage", "img"))) == ("VirtualImage", "img")
    assert disk_state.data_source(disk()) is None


def test_phase_and_condition_of_any_object():
    obj = disk("Ready", ready={"status": "True", "reason": "Ready"})
    assert state.phase(obj) == "Ready" and state.phase(None) == ""
    assert state.condition(obj, "Ready") == {"type": "Ready", "status": "True", "reason": "Ready"}
    assert state.condition(obj, "Other") is None
