# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp on the real Kubernetes API (testkit/harness): our CRDs, upstream CAPI CRDs and the DVP CRD subset are
served by real kube-apiservers, so every object capdvp writes passes real schema validation, resourceVersions
and subresources. DVP's controllers are played by explicit status writes."""

from __future__ import annotations

import pytest
from capdvp import resources as r
from capdvp.controllers.context import DONE, RETRY, Result
from capdvp.controllers.machine import FINALIZER
from dvp_common.kube import Conflict, Resource

from testkit.capdvp.real import RealEnv

QUOTA = Resource("", "v1", "resourcequotas", "ResourceQuota")


@pytest.fixture
def env(dvp_api, guest_api):
    e = RealEnv(dvp_api, guest_api)
    yield e
    e.close()


def test_create_to_ready_on_the_real_api(env):
    env.capi_machine("w-1")
    assert env.reconcile("w-1") == DONE
    assert env.names(r.VIRTUAL_MACHINE) == ["w-1"]
    assert env.names(r.VIRTUAL_DISK) == ["w-1-additional-disk-0", "w-1-boot"]
    secret = env.dvp.get(r.SECRET, "cloud-init-w-1", env.dvp_ns)
    assert secret["type"] == "provisioning.virtualization.deckhouse.io/cloud-init" and secret["immutable"] is True
    dm = env.dm("w-1")
    assert dm["metadata"]["finalizers"] == [FINALIZER] and dm["spec"]["providerID"] == "dvp://w-1"
    assert env.condition("w-1")["reason"] == "VMNotReady"
    env.vm_phase("w-1", "Running")
    assert env.reconcile("w-1") == DONE
    status = env.dm("w-1")["status"]
    assert status["ready"] is True and status["initialization"] == {"provisioned": True}
    assert {"type": "InternalIP", "address": "10.66.0.7"} in status["addresses"]


def test_stop_and_degraded(env):
    env.capi_machine("w-1")
    env.reconcile("w-1")
    env.vm_phase("w-1", "Running")
    env.reconcile("w-1")
    env.vm_phase("w-1", "Stopped", "")
    env.reconcile("w-1")
    assert env.condition("w-1")["reason"] == "VMInStoppedState" and env.dm("w-1")["status"]["ready"] is False
    env.capi_machine("w-2")
    env.reconcile("w-2")
    env.vm_phase("w-2", "Degraded", "")
    env.reconcile("w-2")
    status = env.dm("w-2")["status"]
    assert (env.condition("w-2")["status"], env.condition("w-2")["reason"]) == ("False", "VMDegraded")
    assert "failureReason" not in status and status["ready"] is False  # not terminal: DVP may recover it


def test_missing_class_and_image(env):
    env.capi_machine("w-1", env.spec(vmClassName="nope"))
    assert env.reconcile("w-1") == Result(requeue_after=30.0)
    assert env.condition("w-1")["reason"] == "VirtualMachineClassNotFound"
    env.capi_machine("w-2", env.spec(bootDiskImageRef={"kind": "VirtualImage", "name": "nope"}))
    assert env.reconcile("w-2") == Result(requeue_after=30.0)
    assert env.condition("w-2")["reason"] == "BootImageNotFound"
    assert env.names(r.VIRTUAL_MACHINE) == []


def test_quota_error_from_a_real_resource_quota(env):
    env.dvp.create(QUOTA, {"metadata": {"name": "no-vms"},
                           "spec": {"hard": {"count/virtualmachines.virtualization.deckhouse.io": "0"}}}, env.dvp_ns)
    # No quota controller runs in the harness: publish the status it would compute.
    env.dvp.patch(QUOTA, "no-vms", {"status": {"hard": {"count/virtualmachines.virtualization.deckhouse.io": "0"},
                                               "used": {"count/virtualmachines.virtualization.deckhouse.io": "0"}}},
                  env.dvp_ns, subresource="status")
    env.capi_machine("w-1")
    assert env.reconcile("w-1") == RETRY
    cond = env.condition("w-1")
    assert cond["reason"] == "QuotaExceeded" and "exceeded quota" in cond["message"]
    assert "failureReason" not in env.dm("w-1")["status"]
    env.dvp.delete(QUOTA, "no-vms", env.dvp_ns)
    assert env.reconcile("w-1") == DONE
    assert env.vm("w-1") is not None


def test_real_409_on_the_finalizer_patch(env):
    env.capi_machine("w-1")
    real_patch = env.guest.patch
    raced = []

    def racing_patch(res, name, body, namespace=None, **kw):
        if res is r.DECKHOUSE_MACHINE and "finalizers" in (body.get("metadata") or {}) and not raced:
            raced.append(1)  # someone else writes first: our resourceVersion is now stale
            real_patch(res, name, {"metadata": {"annotations": {"other": "writer"}}}, namespace)
        return real_patch(res, name, body, namespace, **kw)

    env.guest.patch = racing_patch
    with pytest.raises(Conflict):
        env.reconcile("w-1")
    assert env.vm("w-1") is None
    assert env.reconcile("w-1") == DONE
    assert env.dm("w-1")["metadata"]["finalizers"] == [FINALIZER]


@pytest.mark.parametrize("step", ["VirtualMachine", "Secret", "VirtualDisk"])
def test_crash_restart_after_each_step(env, step):
    env.capi_machine("w-1")
    real = env.dvp.create

    def crash(res, body, namespace=None, **kw):
        out = real(res, body, namespace, **kw)
        if res.kind == step:
            raise RuntimeError(f"crash after {step}")
        return out

    env.dvp.create = crash
    with pytest.raises(RuntimeError):
        env.reconcile("w-1")
    env.dvp.create = real
    assert env.reconcile("w-1") == DONE
    assert env.names(r.VIRTUAL_DISK) == ["w-1-additional-disk-0", "w-1-boot"]
    assert env.names(r.SECRET) == ["cloud-init-w-1"]


def test_delete_also_when_the_vm_is_already_gone(env):
    env.capi_machine("w-1")
    env.reconcile("w-1")
    env.guest.delete(r.DECKHOUSE_MACHINE, "w-1", env.ns)
    assert env.reconcile("w-1") == Result(requeue_after=5.0)
    assert env.vm("w-1") is None  # no DVP finalizers here: gone at once
    # Its Secret and disks go twice over: capdvp deletes them, and Kubernetes' garbage collector (the VM's
    # dependents); whichever comes first, the machine is done within two more passes.
    results = [env.reconcile("w-1") for _ in range(2)]
    assert DONE in results and set(results) <= {DONE, Result(requeue_after=5.0)}
    assert env.dm("w-1") is None
    assert env.names(r.VIRTUAL_DISK) == [] and env.names(r.SECRET) == []
    env.capi_machine("w-2")
    env.reconcile("w-2")
    env.delete_keeping_dependents(r.VIRTUAL_MACHINE, "w-2")  # gone, its disks and Secret left: capdvp's to delete
    env.guest.delete(r.DECKHOUSE_MACHINE, "w-2", env.ns)
    assert env.reconcile("w-2") == Result(requeue_after=5.0)  # disks deleted, not yet confirmed gone
    assert env.reconcile("w-2") == DONE
    assert env.dm("w-2") is None
    assert env.names(r.VIRTUAL_DISK) == [] and env.names(r.SECRET) == []


def test_a_machine_pointing_at_an_existing_vm_is_refused_and_nothing_changes(env):
    env.capi_machine("victim")
    env.reconcile("victim")
    before = {res.kind: [(o["metadata"]["name"], o["metadata"]["resourceVersion"])
                         for o in env.dvp.list(res, env.dvp_ns).items]
              for res in (r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, r.SECRET)}
    # Another cluster sharing the DVP namespace orders a machine with the same name.
    other = RealEnv(env.dvp_api, env.guest_api, share_dvp=env)
    other.capi_machine("victim")
    other.reconcile("victim")
    assert other.dm("victim")["status"]["failureReason"] == "CreateError"
    other.guest.delete(r.DECKHOUSE_MACHINE, "victim", other.ns)
    other.reconcile("victim")
    after = {res.kind: [(o["metadata"]["name"], o["metadata"]["resourceVersion"])
                        for o in env.dvp.list(res, env.dvp_ns).items]
             for res in (r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, r.SECRET)}
    assert after == before
    other.close()
