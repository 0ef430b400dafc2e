# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Taking over the machines the upstream (Go) capdvp made: adopted with the DeckhouseMachine as proof, reconciled
and deleted as ours; another cluster's objects refused exactly as before."""

from __future__ import annotations

import pytest
from capdvp import resources as r
from capdvp.controllers.context import DONE, Result
from capdvp.machine_metrics import MachineMetrics
from dvp_common.kube import Conflict
from dvp_common.kube.resources import EVENT
from prometheus_client import CollectorRegistry

from testkit import upstream
from testkit.capdvp.world import DVP_NS, NS, OTHER_UUID, UUID

OURS = {"deckhouse.io/managed-by": "deckhouse", "dvp.deckhouse.io/cluster-uuid": UUID,
        "dvp.deckhouse.io/component": "capdvp"}


def upstream_machine(world, name="w-1", uuid=UUID, *, vm_labels=None, secret_labels=None):
    """The VM, disks and Secret as upstream's capdvp makes them (testkit.upstream.make_machine): VM named after the
    DeckhouseMachine, labelled managed-by, cluster-uuid, hostname (no component label); disks `<m>-boot`,
    `<m>-additional-disk-<i>`; Secret `cloud-init-<m>`; each owned by the VM. Running."""
    upstream.make_machine(upstream.recorded_sink(world.dvp, world.guest), name, uuid, DVP_NS, vm_labels=vm_labels,
                          secret_labels=secret_labels)
    world.vm_phase(name, "Running")
    return world.vm(name)


def record_patches(world) -> list:
    patches: list = []
    real = world.dvp.client.patch

    def patch(res, name, body, namespace=None, **kw):
        patches.append((res.kind, name, body))
        return real(res, name, body, namespace, **kw)
    world.dvp.client.patch = patch
    return patches


def snapshot(world):
    return {res.kind: {o["metadata"]["name"]: o for o in world.dvp.items(res, DVP_NS)}
            for res in (r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, r.SECRET)}


@pytest.mark.parametrize("uuid", [UUID, ""])  # ours, or empty (older upstream releases)
@pytest.mark.parametrize("provisioned", [False, True])  # upstream had written the machine's status, or not yet
def test_upstream_machine_is_adopted_reconciled_and_deleted_as_ours(world, uuid, provisioned):
    vm = upstream_machine(world, uuid=uuid)
    before = snapshot(world)
    patches = record_patches(world)
    adopted: list[str] = []
    world.ctx.on_adopt = adopted.append
    world.capi_machine("w-1")
    if provisioned:
        world.guest.set_status(r.DECKHOUSE_MACHINE, "w-1", NS, {"initialization": {"provisioned": True},
                                                                "ready": True})
    assert world.reconcile("w-1") == DONE

    # exactly one guarded patch per object: our labels, the VM also the module's additionalVMLabels, the Secret also
    # the hostname label (upstream writes neither)
    rv = {k: {n: o["metadata"]["resourceVersion"] for n, o in objs.items()} for k, objs in before.items()}
    uid = {k: {n: o["metadata"]["uid"] for n, o in objs.items()} for k, objs in before.items()}
    extra = {"VirtualMachine": {"bastion-access": "true"}, "Secret": {"dvp.deckhouse.io/hostname": "w-1"}}
    want = [(kind, name, {"metadata": {"uid": uid[kind][name], "resourceVersion": rv[kind][name],
                                        "labels": {**extra.get(kind, {}), **OURS}}})
            for kind, name in (("VirtualMachine", "w-1"), ("VirtualDisk", "w-1-boot"),
                               ("VirtualDisk", "w-1-additional-disk-0"), ("Secret", "cloud-init-w-1"))]
    assert patches == want
    assert adopted == ["VirtualMachine", "VirtualDisk", "VirtualDisk", "Secret"]
    assert [c for c in world.dvp.writes() if c[0] != "patch"] == []  # nothing created, nothing deleted
    events = world.guest.items(EVENT, NS)
    assert [(e["reason"], e["type"], e["involvedObject"]["name"]) for e in events] == [("Adopted", "Normal", "w-1")]
    assert "VirtualMachine w-1" in events[0]["message"] and "Secret cloud-init-w-1" in events[0]["message"]

    # reconciled as ours: Ready, same VM (uid unchanged), spec untouched
    assert world.condition("w-1")["status"] == "True"
    assert world.dm("w-1")["spec"]["providerID"] == "dvp://w-1"
    conds = {c["type"]: c for c in world.dm("w-1")["status"]["conditions"]}
    assert "InPlaceUpdate" not in conds, conds.get("InPlaceUpdate")  # upstream's VM is what the spec asks for
    now = world.vm("w-1")
    assert now["metadata"]["uid"] == vm["metadata"]["uid"] and now["spec"] == vm["spec"]
    assert world.reconcile("w-1") == DONE and len(patches) == 4  # nothing more to adopt

    # deletion leaves nothing of the machine in the project
    world.delete_machine("w-1")
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    assert world.reconcile("w-1") == DONE
    assert world.dm("w-1") is None
    assert world.names(r.VIRTUAL_MACHINE) == world.names(r.VIRTUAL_DISK) == world.names(r.SECRET) == []


def test_upstream_machine_deleted_before_its_first_pass_is_adopted_and_removed(world):
    upstream_machine(world)
    world.capi_machine("w-1")
    dm = world.dm("w-1")
    dm["metadata"]["finalizers"] = ["deckhousemachine.infrastructure.cluster.x-k8s.io"]  # upstream's finalizer
    world.guest.put(r.DECKHOUSE_MACHINE, dm, NS)
    world.delete_machine("w-1")
    world.reconcile("w-1")
    world.reconcile("w-1")
    assert world.dm("w-1") is None
    assert world.names(r.VIRTUAL_MACHINE) == world.names(r.VIRTUAL_DISK) == world.names(r.SECRET) == []


REFUSAL = ("VirtualMachine w-1 in DVP namespace tenant-a was not created by capdvp for this machine; "
           "refusing to adopt it")


@pytest.mark.parametrize("vm_labels", [
    {"deckhouse.io/managed-by": "deckhouse", "dvp.deckhouse.io/cluster-uuid": OTHER_UUID,
     "dvp.deckhouse.io/hostname": "w-1"},  # another cluster's upstream machine of the same name
    {"deckhouse.io/managed-by": "deckhouse", "dvp.deckhouse.io/cluster-uuid": UUID,
     "dvp.deckhouse.io/component": "ccm", "dvp.deckhouse.io/hostname": "w-1"},  # ours, another component's
    {"deckhouse.io/managed-by": "deckhouse", "dvp.deckhouse.io/cluster-uuid": UUID,
     "dvp.deckhouse.io/hostname": "w-2"},  # another machine's
    {"deckhouse.io/managed-by": "someone", "dvp.deckhouse.io/cluster-uuid": UUID,
     "dvp.deckhouse.io/hostname": "w-1"},  # not upstream's scheme
])
def test_foreign_vm_is_refused_and_untouched(world, vm_labels):
    upstream_machine(world, vm_labels=vm_labels)
    before = snapshot(world)
    world.capi_machine("w-1")
    world.reconcile("w-1")
    status = world.dm("w-1")["status"]
    assert (status["failureReason"], status["failureMessage"]) == ("CreateError", REFUSAL)
    assert world.dvp.writes() == [] and world.guest.items(EVENT, NS) == []
    world.delete_machine("w-1")
    world.reconcile("w-1")
    assert world.dm("w-1") is None
    assert snapshot(world) == before


def test_disk_owned_by_another_vm_is_not_adopted(world):
    upstream_machine(world)
    other = world.dvp.put(r.VIRTUAL_MACHINE, {"metadata": {"name": "x-1", "labels": {
        "dvp.deckhouse.io/cluster-uuid": OTHER_UUID}}, "spec": {}}, DVP_NS)
    disk = world.dvp.peek(r.VIRTUAL_DISK, "w-1-additional-disk-0", DVP_NS)
    disk["metadata"]["ownerReferences"][0].update(name="x-1", uid=other["metadata"]["uid"])
    world.dvp.put(r.VIRTUAL_DISK, disk, DVP_NS)
    planted = world.dvp.peek(r.VIRTUAL_DISK, "w-1-additional-disk-0", DVP_NS)
    world.capi_machine("w-1")
    world.reconcile("w-1")
    assert world.dvp.peek(r.VIRTUAL_DISK, "w-1-additional-disk-0", DVP_NS) == planted  # untouched
    assert world.vm("w-1")["metadata"]["labels"]["dvp.deckhouse.io/component"] == "capdvp"
    # the machine is deleted: its own objects go, the planted disk stays
    world.delete_machine("w-1")
    world.reconcile("w-1")
    world.reconcile("w-1")
    assert world.names(r.VIRTUAL_DISK) == ["w-1-additional-disk-0"]
    assert world.dvp.peek(r.VIRTUAL_DISK, "w-1-additional-disk-0", DVP_NS) == planted


def test_adoptions_metric_counts_by_kind():
    registry = CollectorRegistry()
    metrics = MachineMetrics(registry, lambda: [])
    assert registry.get_sample_value("capdvp_adoptions_total", {"kind": "VirtualDisk"}) == 0
    metrics.adopted("VirtualMachine")
    metrics.adopted("VirtualDisk")
    metrics.adopted("VirtualDisk")
    assert registry.get_sample_value("capdvp_adoptions_total", {"kind": "VirtualMachine"}) == 1
    assert registry.get_sample_value("capdvp_adoptions_total", {"kind": "VirtualDisk"}) == 2


def test_a_vm_changed_since_it_was_read_is_not_adopted_on_that_pass(world):
    # The adoption carries uid and resourceVersion: the API answers 409 when the VM changed meanwhile; the pass
    # fails (retried by the controller) and the next one judges the VM as it is then.
    upstream_machine(world)
    world.capi_machine("w-1")
    world.dvp.fail("patch", "VirtualMachine", Conflict("the object has been modified", status=409,
                                                        reason="Conflict"), "w-1")
    with pytest.raises(Conflict):
        world.reconcile("w-1")
    assert "dvp.deckhouse.io/component" not in world.vm("w-1")["metadata"]["labels"]
    assert world.reconcile("w-1") == DONE
    assert world.vm("w-1")["metadata"]["labels"]["dvp.deckhouse.io/component"] == "capdvp"
    assert world.condition("w-1")["status"] == "True"


def test_secret_labelled_for_another_machine_is_not_adopted(world):
    upstream_machine(world, secret_labels={"dvp.deckhouse.io/hostname": "w-2"})
    planted = world.dvp.peek(r.SECRET, "cloud-init-w-1", DVP_NS)
    world.capi_machine("w-1")
    world.reconcile("w-1")
    assert world.dvp.peek(r.SECRET, "cloud-init-w-1", DVP_NS) == planted
    assert world.condition("w-1")["status"] == "True"  # the VM runs: its Secret is not needed any more


def test_scheme_disk_names():
    from capdvp.domain import adoption, names

    long = "m" * 60
    assert adoption.is_scheme_disk("w-1", "w-1-boot") and adoption.is_scheme_disk("w-1", "w-1-additional-disk-3")
    assert adoption.is_scheme_disk(long, names.additional_disk_name(long, 2))  # the short form past 63 characters
    for other in ("w-1-data", "w-10-boot", "w-1-additional-disk-x", "w-2-additional-disk-0", "pvc-1"):
        assert not adoption.is_scheme_disk("w-1", other), other


def test_an_event_is_best_effort_and_recorded_once(world):
    from capdvp.controllers import events
    from dvp_common.kube import Forbidden

    dm = world.capi_machine("w-1")
    events.record(world.guest.client, dm, events.NORMAL, "Adopted", "took over")
    events.record(world.guest.client, dm, events.NORMAL, "Adopted", "took over")  # AlreadyExists: nothing more
    assert len(world.guest.items(EVENT, NS)) == 1
    world.guest.fail("create", "Event", Forbidden("events is forbidden", status=403, reason="Forbidden"))
    events.record(world.guest.client, dm, events.WARNING, "Other", "refused")  # logged, never raised
    assert len(world.guest.items(EVENT, NS)) == 1
