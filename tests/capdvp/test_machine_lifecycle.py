# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Phases after creation, tenant isolation (the ownership rule), and a crash between every creation step."""

from __future__ import annotations

import pytest
from capdvp import resources as r
from capdvp.controllers.context import DONE
from dvp_common.kube import Transient

from testkit.capdvp.world import DVP_NS, OTHER_UUID, UUID, World


def running(world, name="w-1"):
    world.capi_machine(name)
    world.reconcile(name)
    world.vm_phase(name, "Running")
    world.reconcile(name)


def test_stopped_vm_is_not_ready_but_stays_provisioned(world):
    running(world)
    world.vm_phase("w-1", "Stopped", "")
    assert world.reconcile("w-1") == DONE
    status = world.dm("w-1")["status"]
    assert status["ready"] is False and status["initialization"] == {"provisioned": True}
    cond = world.condition("w-1")
    assert (cond["status"], cond["reason"]) == ("False", "VMInStoppedState")
    assert "failureReason" not in status
    assert status["addresses"] == [{"type": "Hostname", "address": "w-1"}, {"type": "InternalDNS", "address": "w-1"}]


def test_degraded_before_the_node_joined_is_not_ready_without_failure_and_clears_on_recovery(world):
    world.capi_machine("w-1")
    world.reconcile("w-1")
    world.vm_phase("w-1", "Degraded")
    world.reconcile("w-1")
    status = world.dm("w-1")["status"]
    assert "failureReason" not in status and "failureMessage" not in status and status["ready"] is False
    ready = world.condition("w-1")
    assert (ready["status"], ready["reason"], ready["message"]) == ("False", "VMDegraded", (
        "VirtualMachine w-1 is Degraded (class 'generic', 2 cores, memory 4Gi); check the VirtualMachineClass "
        "sizing policy and DVP events"))
    world.vm_phase("w-1", "Running")
    world.reconcile("w-1")
    ready = world.condition("w-1")
    assert (ready["status"], ready["reason"]) == ("True", "VMRunning")
    assert world.dm("w-1")["status"]["ready"] is True


def test_degraded_with_a_node_waits(world):
    running(world)
    world.node_ref("w-1")
    world.vm_phase("w-1", "Degraded")
    world.reconcile("w-1")
    status = world.dm("w-1")["status"]
    assert "failureReason" not in status and status["ready"] is False
    world.vm_phase("w-1", "Running")
    world.reconcile("w-1")
    assert world.dm("w-1")["status"]["ready"] is True


def test_migrating_vm_stays_ready(world):
    running(world)
    world.vm_phase("w-1", "Migrating")
    world.reconcile("w-1")
    assert world.dm("w-1")["status"]["ready"] is True


def test_vm_deleted_behind_our_back_after_provisioning_is_terminal(world):
    running(world)
    world.dvp.client.delete(r.VIRTUAL_MACHINE, "w-1", DVP_NS)
    world.reconcile("w-1")
    status = world.dm("w-1")["status"]
    assert status["failureReason"] == "UpdateMachineError"
    assert world.vm("w-1") is None  # not silently recreated under a Node that is gone


def _foreign_vm(world, uuid=OTHER_UUID, component="capdvp", hostname="w-1"):
    world.dvp.put(r.VIRTUAL_MACHINE, {"metadata": {"name": "w-1", "labels": {
        "dvp.deckhouse.io/cluster-uuid": uuid, "dvp.deckhouse.io/component": component,
        "dvp.deckhouse.io/hostname": hostname}}, "spec": {"runPolicy": "AlwaysOn"}}, DVP_NS)


@pytest.mark.parametrize("labels", [
    {"uuid": OTHER_UUID},                      # another cluster's machine in the same namespace
    {"uuid": UUID, "component": "ccm"},        # ours, but not made by capdvp
    {"uuid": UUID, "hostname": "w-2"},         # another machine's VM
])
def test_machine_pointing_at_an_existing_vm_is_refused(world, labels):
    _foreign_vm(world, **labels)
    before = world.dvp.peek(r.VIRTUAL_MACHINE, "w-1", DVP_NS)
    world.capi_machine("w-1")
    world.reconcile("w-1")
    status = world.dm("w-1")["status"]
    assert status["failureReason"] == "CreateError"
    assert status["failureMessage"] == ("VirtualMachine w-1 in DVP namespace tenant-a was not created by capdvp "
                                        "for this machine; refusing to adopt it")
    assert world.dvp.peek(r.VIRTUAL_MACHINE, "w-1", DVP_NS) == before
    assert world.dvp.writes() == []
    assert "providerID" not in world.dm("w-1")["spec"]
    # and deleting the machine leaves the foreign VM alone
    world.delete_machine("w-1")
    world.reconcile("w-1")
    assert world.dm("w-1") is None
    assert world.dvp.peek(r.VIRTUAL_MACHINE, "w-1", DVP_NS) == before


def test_a_planted_disk_under_the_boot_disk_name_is_refused_before_any_vm_exists(world):
    world.dvp.put(r.VIRTUAL_DISK, {"metadata": {"name": "w-1-boot", "labels": {
        "dvp.deckhouse.io/cluster-uuid": UUID, "dvp.deckhouse.io/component": "csi"}},
        "spec": {"persistentVolumeClaim": {"size": "1Gi"}}}, DVP_NS)
    world.capi_machine("w-1")
    world.reconcile("w-1")
    assert world.vm("w-1") is None
    assert world.dm("w-1")["status"]["failureMessage"].startswith(
        "VirtualDisk w-1-boot in DVP namespace tenant-a was not created by capdvp for this machine")
    assert world.dvp.writes() == []


def test_a_planted_cloud_init_secret_is_refused(world):
    world.dvp.put(r.SECRET, {"metadata": {"name": "cloud-init-w-1"}, "data": {"userData": "eA=="}}, DVP_NS)
    world.capi_machine("w-1")
    world.reconcile("w-1")
    assert world.vm("w-1") is None
    assert world.dm("w-1")["status"]["failureReason"] == "CreateError"
    assert world.dvp.peek(r.SECRET, "cloud-init-w-1", DVP_NS)["data"] == {"userData": "eA=="}


CREATE_STEPS = ["VirtualMachine", "Secret", "VirtualDisk:w-1-boot", "VirtualDisk:w-1-additional-disk-0"]


@pytest.mark.parametrize("step", CREATE_STEPS)
def test_crash_after_each_create_step_converges_to_the_same_objects(step):
    """The process dies right after the API accepted `step`; a fresh reconciler (no memory) finishes the job."""
    reference = World()
    running(reference)
    world = World()
    world.capi_machine("w-1")
    kind, _, name = step.partition(":")

    class Crash(Exception):
        pass

    real_create = world.dvp.client.create

    def create_then_crash(res, body, namespace=None, **kw):
        out = real_create(res, body, namespace, **kw)
        if res.kind == kind and (not name or body["metadata"]["name"] == name):
            raise Crash(step)
        return out

    world.dvp.client.create = create_then_crash
    with pytest.raises(Crash):
        world.reconcile("w-1")
    world.dvp.client.create = real_create
    world.reconcile("w-1")
    world.vm_phase("w-1", "Running")
    world.reconcile("w-1")

    def shape(w):
        out = {}
        for res in (r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, r.SECRET):
            for o in w.dvp.items(res):
                out[(res.kind, o["metadata"]["name"])] = (o["metadata"]["labels"], o.get("spec"), o.get("data"))
        return out

    assert shape(world) == shape(reference)
    assert world.dm("w-1")["status"]["initialization"] == {"provisioned": True}


def test_transient_dvp_error_reaches_the_workqueue(world):
    world.capi_machine("w-1")
    world.dvp.fail("get", "VirtualMachine", Transient("connection refused"))
    with pytest.raises(Transient):
        world.reconcile("w-1")
    world.reconcile("w-1")
    assert world.vm("w-1") is not None


def test_stale_cloud_init_secret_is_replaced_before_the_vm_runs(world):
    world.capi_machine("w-1")
    world.reconcile("w-1")
    old_uid = world.dvp.peek(r.SECRET, "cloud-init-w-1", DVP_NS)["metadata"]["uid"]
    world.bootstrap_secret("w-1", b"#cloud-config\nruncmd: [v2]\n")
    world.reconcile("w-1")
    secret = world.dvp.peek(r.SECRET, "cloud-init-w-1", DVP_NS)
    assert secret["metadata"]["uid"] != old_uid
    assert secret["data"]["userData"] == "I2Nsb3VkLWNvbmZpZwpydW5jbWQ6IFt2Ml0K"



def test_a_class_deleted_after_creation_is_reported_from_dvps_condition_and_clears(world):
    world.capi_machine("w-1")
    world.reconcile("w-1")
    world.dvp.set_status(r.VIRTUAL_MACHINE, "w-1", DVP_NS, {"phase": "Pending", "conditions": [
        {"type": "VirtualMachineClassReady", "status": "False", "reason": "NotFound",
         "message": 'VirtualMachineClass "generic" not found'}]})
    world.reconcile("w-1")
    ready = world.condition("w-1")
    assert (ready["status"], ready["reason"]) == ("False", "VirtualMachineClassMissing")
    assert "failureReason" not in world.dm("w-1")["status"]
    world.vm_phase("w-1", "Running")
    world.reconcile("w-1")
    assert (world.condition("w-1")["status"], world.condition("w-1")["reason"]) == ("True", "VMRunning")
