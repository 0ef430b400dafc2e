# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DeckhouseMachine from creation to Ready, against an in-memory guest API and DVP namespace."""

from __future__ import annotations

import base64

from capdvp import resources as r
from capdvp.controllers.context import DONE, RETRY, Result
from capdvp.controllers.machine import FINALIZER
from dvp_common.kube import Conflict, QuotaExceeded

from testkit.capdvp.world import DVP_NS, NS, UUID
from testkit.harness.dvp_answers import rbac_denial, schema_invalid, webhook_denial

LABELS = {"deckhouse.io/managed-by": "deckhouse", "dvp.deckhouse.io/cluster-uuid": UUID,
          "dvp.deckhouse.io/component": "capdvp", "dvp.deckhouse.io/hostname": "w-1"}


def test_creates_vm_secret_and_disks_owned_by_the_vm(world):
    world.capi_machine("w-1")
    assert world.reconcile("w-1") == DONE
    vm = world.vm("w-1")
    assert vm["metadata"]["labels"] == {**LABELS, "bastion-access": "true"}
    assert vm["spec"] == {
        "virtualMachineClassName": "generic", "runPolicy": "AlwaysOnUnlessStoppedManually",
        "liveMigrationPolicy": "PreferSafe", "osType": "Generic", "bootloader": "EFI",
        "enableParavirtualization": True, "cpu": {"cores": 2, "coreFraction": "50%"}, "memory": {"size": "4Gi"},
        "blockDeviceRefs": [{"kind": "VirtualDisk", "name": "w-1-boot"},
                            {"kind": "VirtualDisk", "name": "w-1-additional-disk-0"}],
        "provisioning": {"type": "UserDataRef", "userDataRef": {"kind": "Secret", "name": "cloud-init-w-1"}},
        "disruptions": {"restartApprovalMode": "Manual"}, "terminationGracePeriodSeconds": 60}  # DVP's defaults
    owner = [{"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualMachine", "name": "w-1",
              "uid": vm["metadata"]["uid"], "controller": True, "blockOwnerDeletion": False}]
    secret = world.dvp.peek(r.SECRET, "cloud-init-w-1", DVP_NS)
    assert secret["type"] == "provisioning.virtualization.deckhouse.io/cloud-init"
    assert secret["immutable"] is True
    assert base64.b64decode(secret["data"]["userData"]) == b"#cloud-config\nruncmd: [bootstrap]\n"
    assert secret["metadata"]["labels"] == LABELS and secret["metadata"]["ownerReferences"] == owner
    boot = world.dvp.peek(r.VIRTUAL_DISK, "w-1-boot", DVP_NS)
    assert boot["spec"] == {"persistentVolumeClaim": {"size": "20Gi", "storageClassName": "fast"},
                            "dataSource": {"type": "ObjectRef",
                                           "objectRef": {"kind": "ClusterVirtualImage", "name": "ubuntu-24-04"}}}
    assert boot["metadata"]["labels"] == {**LABELS, "virtualDiskName": "w-1-boot"}
    assert boot["metadata"]["ownerReferences"] == owner
    extra = world.dvp.peek(r.VIRTUAL_DISK, "w-1-additional-disk-0", DVP_NS)
    assert extra["spec"] == {"persistentVolumeClaim": {"size": "10Gi", "storageClassName": "slow"}}
    dm = world.dm("w-1")
    assert dm["metadata"]["finalizers"] == [FINALIZER]
    assert dm["spec"]["providerID"] == "dvp://w-1"
    assert dm["status"]["addresses"] == [{"type": "Hostname", "address": "w-1"},
                                         {"type": "InternalDNS", "address": "w-1"}]
    assert dm["status"]["ready"] is False
    assert "initialization" not in dm["status"]
    ready = world.condition("w-1")
    assert (ready["status"], ready["reason"]) == ("False", "VMNotReady")
    assert ready["message"] == ("VirtualMachine w-1 is Pending (Secret cloud-init-w-1: present; "
                                "VirtualDisk w-1-boot: Pending; VirtualDisk w-1-additional-disk-0: Pending)")


def test_running_vm_makes_the_machine_provisioned_with_ip_addresses(world):
    world.capi_machine("w-1")
    world.reconcile("w-1")
    world.vm_phase("w-1", "Running", "10.10.0.5")
    assert world.reconcile("w-1") == DONE
    status = world.dm("w-1")["status"]
    assert status["ready"] is True
    assert status["initialization"] == {"provisioned": True}
    assert status["addresses"] == [
        {"type": "Hostname", "address": "w-1"}, {"type": "InternalDNS", "address": "w-1"},
        {"type": "InternalIP", "address": "10.10.0.5"}, {"type": "ExternalIP", "address": "10.10.0.5"}]
    for ctype in ("Ready", "VirtualMachineReady"):
        cond = world.condition("w-1", ctype)
        assert (cond["status"], cond["reason"]) == ("True", "VMRunning")
    assert "failureReason" not in status


def test_second_reconcile_of_a_running_machine_writes_nothing(world):
    world.capi_machine("w-1")
    world.reconcile("w-1")
    world.vm_phase("w-1", "Running")
    world.reconcile("w-1")
    guest_writes, dvp_writes = world.guest.writes(), world.dvp.writes()
    world.clock.advance(60)
    assert world.reconcile("w-1") == DONE
    assert (world.guest.writes(), world.dvp.writes()) == (guest_writes, dvp_writes)


def test_one_status_patch_per_reconcile(world):
    world.capi_machine("w-1")
    world.reconcile("w-1")
    assert [c for c in world.guest.calls if c[3:] == ("status",)] == [("patch", "DeckhouseMachine", "w-1", "status")]


def test_control_plane_machines_prefer_forced_migration(world):
    world.capi_machine("m-0", control_plane=True)
    world.reconcile("m-0")
    assert world.vm("m-0")["spec"]["liveMigrationPolicy"] == "PreferForced"


def test_waits_for_owner_machine_without_touching_anything(world):
    world.capi_machine("w-1")
    dm = world.dm("w-1")
    dm["metadata"]["ownerReferences"] = []
    world.guest.put(r.DECKHOUSE_MACHINE, dm, NS)
    assert world.reconcile("w-1") == DONE
    assert world.dm("w-1")["metadata"].get("finalizers") is None
    assert world.dvp.writes() == [] and world.dvp.reads() == 0


def test_waits_for_cluster_infrastructure(world):
    world.capi_machine("w-1")
    world.guest.set_status(r.CLUSTER, "dvp", NS, {"initialization": {"infrastructureProvisioned": False}})
    assert world.reconcile("w-1") == DONE
    cond = world.condition("w-1")
    assert (cond["status"], cond["reason"]) == ("False", "WaitingForClusterInfrastructure")
    assert world.dm("w-1")["metadata"]["finalizers"] == [FINALIZER]
    assert world.dvp.writes() == []


def test_waits_for_bootstrap_data_then_proceeds(world):
    world.capi_machine("w-1", bootstrap=False)
    assert world.reconcile("w-1") == DONE
    assert world.condition("w-1")["reason"] == "WaitingForBootstrapScript"
    assert world.vm("w-1") is None
    world.bootstrap_secret("w-1")
    world.reconcile("w-1")
    assert world.vm("w-1") is not None


def test_paused_cluster_stops_reconciling(world):
    world.capi_machine("w-1")
    cluster = world.guest.peek(r.CLUSTER, "dvp", NS)
    cluster["spec"]["paused"] = True
    world.guest.put(r.CLUSTER, cluster, NS)
    world.reconcile("w-1")
    assert world.vm("w-1") is None
    paused = world.condition("w-1", "Paused")
    assert (paused["status"], paused["reason"]) == ("True", "ClusterPaused")


def test_paused_annotation_on_the_machine(world):
    world.capi_machine("w-1")
    dm = world.dm("w-1")
    dm["metadata"]["annotations"] = {"cluster.x-k8s.io/paused": ""}
    world.guest.put(r.DECKHOUSE_MACHINE, dm, NS)
    world.reconcile("w-1")
    assert world.vm("w-1") is None and world.dvp.writes() == []


def test_missing_vm_class_is_reported_and_rechecked(world):
    world.capi_machine("w-1", {**world_spec(), "vmClassName": "huge"})
    assert world.reconcile("w-1") == Result(requeue_after=30.0)
    cond = world.condition("w-1")
    assert (cond["status"], cond["reason"]) == ("False", "VirtualMachineClassNotFound")
    assert cond["message"] == ("VirtualMachineClass 'huge' does not exist in DVP; create it or fix "
                               "spec.virtualMachine.virtualMachineClassName of the DVPInstanceClass")
    assert world.dvp.writes() == []
    assert "failureReason" not in world.dm("w-1")["status"]
    world.dvp.put(r.VIRTUAL_MACHINE_CLASS, {"metadata": {"name": "huge"}})
    world.reconcile("w-1")
    assert world.vm("w-1")["spec"]["virtualMachineClassName"] == "huge"


def test_missing_boot_image_is_reported(world):
    world.capi_machine("w-1", {**world_spec(), "bootDiskImageRef": {"kind": "VirtualImage", "name": "nope"}})
    assert world.reconcile("w-1") == Result(requeue_after=30.0)
    cond = world.condition("w-1")
    assert cond["reason"] == "BootImageNotFound"
    assert cond["message"] == ("VirtualImage 'nope' does not exist in DVP namespace tenant-a; create it or fix "
                               "spec.rootDisk.image of the DVPInstanceClass")
    assert world.dvp.writes() == []


def test_quota_exceeded_on_vm_is_retried_with_backoff_not_terminal(world):
    world.capi_machine("w-1")
    world.dvp.fail("create", "VirtualMachine", QuotaExceeded("exceeded quota: compute, requested: cpu=2"))
    assert world.reconcile("w-1") == RETRY
    cond = world.condition("w-1")
    assert (cond["reason"], cond["message"]) == (
        "QuotaExceeded", "creating VirtualMachine w-1: DVP quota exceeded: exceeded quota: compute, requested: cpu=2")
    assert "failureReason" not in world.dm("w-1")["status"]
    assert world.reconcile("w-1") == DONE
    assert world.vm("w-1") is not None


def test_quota_on_a_disk_after_the_vm_was_created_resumes_later(world):
    world.capi_machine("w-1")
    world.dvp.fail("create", "VirtualDisk", QuotaExceeded("exceeded quota: storage"), name="w-1-boot")
    assert world.reconcile("w-1") == RETRY
    assert world.vm("w-1") is not None and world.names(r.VIRTUAL_DISK) == []
    world.reconcile("w-1")
    assert world.names(r.VIRTUAL_DISK) == ["w-1-additional-disk-0", "w-1-boot"]
    assert world.dvp.count("create") == 5  # VM, Secret, boot (refused), boot, additional


def test_rbac_forbidden_is_retried_naming_the_verb_and_resource(world):
    world.capi_machine("w-1")
    world.dvp.fail("create", "VirtualMachine", rbac_denial("create", "virtualmachines", DVP_NS))
    assert world.reconcile("w-1") == RETRY
    cond = world.condition("w-1")
    assert (cond["reason"], cond["message"]) == ("DVPForbidden", (
        "creating VirtualMachine w-1: the provider's DVP ServiceAccount may not create "
        "virtualmachines.virtualization.deckhouse.io; grant it in the DVP project (docs/SECURITY.md)"))
    assert "failureReason" not in world.dm("w-1")["status"]
    world.reconcile("w-1")
    assert world.vm("w-1") is not None  # granted: the next pass creates it


def test_a_dvp_webhook_denial_is_terminal_with_dvps_message(world):
    # DVP's VM validator refuses a size outside the class's sizing policy with 403, not 422.
    world.capi_machine("w-1")
    why = "requested VM memory 4Gi does not match the sizing policy of VirtualMachineClass generic"
    world.dvp.fail("create", "VirtualMachine", webhook_denial("VirtualMachine", why, "w-1"))
    assert world.reconcile("w-1") == DONE
    status = world.dm("w-1")["status"]
    assert status["failureReason"] == "CreateError"
    assert (world.condition("w-1")["status"], world.condition("w-1")["reason"]) == ("False", "DVPAdmissionDenied")
    assert status["failureMessage"] == world.condition("w-1")["message"] == (
        'creating VirtualMachine w-1: DVP refused it: admission webhook '
        '"vm.virtualization-controller.validate.d8-virtualization" denied the request: ' + why)
    before = list(world.dvp.calls)
    world.reconcile("w-1")
    assert world.dvp.calls == before  # terminal: nothing more is tried


def test_a_schema_error_is_terminal_with_dvps_message_and_no_guess(world):
    world.capi_machine("w-1")
    world.dvp.fail("create", "VirtualMachine", schema_invalid(
        "VirtualMachine", "w-1", "spec.liveMigrationPolicy",
        'Unsupported value: "Never": supported values: "AlwaysSafe", "PreferSafe", "AlwaysForced", "PreferForced"'))
    assert world.reconcile("w-1") == DONE
    message = world.dm("w-1")["status"]["failureMessage"]
    assert (world.condition("w-1")["reason"], world.condition("w-1")["message"]) == ("DVPSchemaInvalid", message)
    assert message.startswith('creating VirtualMachine w-1: DVP refused it: VirtualMachine.virtualization.deckhouse.io '
                              '"w-1" is invalid: spec.liveMigrationPolicy: Unsupported value: "Never"')
    assert "sizing" not in message


def test_conflict_on_the_finalizer_patch_is_raised_for_a_retry(world):
    world.capi_machine("w-1")
    world.guest.fail("patch", "DeckhouseMachine", Conflict("the object has been modified"))
    try:
        world.reconcile("w-1")
    except Conflict:
        pass
    else:
        raise AssertionError("a 409 must reach the workqueue")
    assert world.vm("w-1") is None
    world.reconcile("w-1")
    assert world.vm("w-1") is not None


def world_spec() -> dict:
    from testkit.capdvp.world import MACHINE_SPEC
    return dict(MACHINE_SPEC)


def test_a_missing_storage_class_refused_at_disk_create_is_terminal(world):
    # DVP's disk webhook refuses a disk whose storage class does not exist (403 at create, no condition later).
    world.capi_machine("w-1")
    why = 'the storage class "fast" does not exist'
    world.dvp.fail("create", "VirtualDisk", webhook_denial("VirtualDisk", why, "w-1-boot"), name="w-1-boot")
    assert world.reconcile("w-1") == DONE
    assert world.dm("w-1")["status"]["failureMessage"] == (
        'creating VirtualDisk w-1-boot: DVP refused it: admission webhook '
        f'"vd.virtualization-controller.validate.d8-virtualization" denied the request: {why}')
