# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Which informer events wake a machine (no API: the handlers are called as the informers call them)."""

from __future__ import annotations

import copy

import pytest
from capdvp import resources as r
from capdvp.controllers.context import ReconcileConfig
from capdvp.manager import Manager
from capdvp.settings import Settings
from dvp_common.dvp.connection import DVPConnection, DVPSettings
from dvp_common.kube import KubeClient

NS = "capi"
DM = {"apiVersion": "infrastructure.cluster.x-k8s.io/v1alpha1", "kind": "DeckhouseMachine",
      "metadata": {"name": "w-1", "namespace": NS, "resourceVersion": "10", "generation": 1},
      "spec": {"vmClassName": "generic"}, "status": {"ready": False}}


@pytest.fixture
def manager():
    nowhere = KubeClient.from_url("https://127.0.0.1:9")  # nothing is ever sent: no informer runs
    settings = Settings(dvp=DVPSettings("", "dvp-ns", "uuid"), reconcile=ReconcileConfig("dvp-ns", "uuid"),
                        watch_namespace=NS, health_bind=None, metrics_bind=None, webhook_bind=None)
    m = Manager(settings, nowhere, DVPConnection(nowhere, "dvp-ns", "uuid"))
    yield m
    nowhere.close()


def update(manager: Manager, old: dict, new: dict) -> int:
    """Emit an update as the DeckhouseMachine informer does; how many keys got queued."""
    manager.guest_informers[r.DECKHOUSE_MACHINE]._emit(1, old, new)
    return len(manager.machines.queue)


def bumped(**changes) -> dict:
    new = copy.deepcopy(DM)
    new["metadata"]["resourceVersion"] = "11"
    new.update(changes)
    return new


def test_the_echo_of_our_status_patch_is_not_work(manager):
    assert update(manager, DM, bumped(status={"ready": True})) == 0


def test_a_spec_change_is(manager):
    assert update(manager, DM, bumped(spec={"vmClassName": "large"})) == 1


def test_a_resync_is(manager):
    assert update(manager, DM, copy.deepcopy(DM)) == 1


VM = {"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualMachine",
      "metadata": {"name": "w-1", "namespace": "dvp-ns", "resourceVersion": "20",
                   "labels": {"dvp.deckhouse.io/hostname": "w-1"}},
      "spec": {"runPolicy": "AlwaysOn"}, "status": {"phase": "Pending", "conditions": []}}


def vm_update(manager: Manager, new_status: dict) -> int:
    new = copy.deepcopy(VM)
    new["metadata"]["resourceVersion"] = "21"
    new["status"] = new_status
    manager.dvp_informers[r.VIRTUAL_MACHINE]._emit(1, VM, new)
    return len(manager.machines.queue)


def test_vm_conditions_the_reconciler_never_reads_wake_nothing(manager):
    assert vm_update(manager, {"phase": "Pending", "conditions": [{"type": "BlockDevicesReady"}]}) == 0


@pytest.mark.parametrize("new_status", [{"phase": "Running", "conditions": []},
                                        {"phase": "Pending", "conditions": [], "ipAddress": "10.0.0.7"}])
def test_vm_phase_or_address_wakes_its_machine(manager, new_status):
    assert vm_update(manager, new_status) == 1
    assert manager.machines.queue.get(timeout=0) == (NS, "w-1")


def cond(ctype: str, status: str, reason: str) -> dict:
    return {"type": ctype, "status": status, "reason": reason}


@pytest.mark.parametrize(("conditions", "wakes"), [
    ([cond("AgentReady", "True", "AgentReady")], 1),  # GuestBooted
    ([cond("Migratable", "False", "VirtualMachineNonMigratable")], 1),  # LiveMigratable
    ([cond("VirtualMachineClassReady", "False", "VirtualMachineClassNotReady")], 1),  # a class DVP waits for
    ([cond("VirtualMachineClassReady", "True", "VirtualMachineClassReady")], 0),  # a True heartbeat
    ([cond("Running", "False", "PodNotStarted")], 1),  # a pod DVP cannot start: the machine shows why
    ([cond("BlockDevicesReady", "False", "BlockDeviceLimitExceeded")], 1),
])
def test_vm_conditions_the_reconciler_reads_wake_it_on_news_only(manager, conditions, wakes):
    assert vm_update(manager, {"phase": "Pending", "conditions": conditions}) == wakes
