# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""An adopted machine's VM gets the labels our own VMs get on create (the module's additionalVMLabels, then the
instance class's additionalLabels), and its cloud-init Secret the hostname label, each in the one guarded patch
that adopts it: one read and one write per object."""

from __future__ import annotations

import copy

from capdvp import resources as r
from capdvp.controllers.context import DONE
from capdvp.domain import manifests
from capdvp.domain.machine_spec import parse_spec
from dvp_common.dvp import labels as L
from dvp_common.kube.resources import SECRET

from testkit.capdvp.world import DVP_NS, MACHINE_SPEC, UUID
from testkit.upstream import make_machine, recorded_sink

OURS = {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.CLUSTER_UUID: UUID, L.COMPONENT: L.CAPDVP}
SPEC = {**MACHINE_SPEC, "additionalLabels": {"team": "db", "bastion-access": "class-wins"}}


def record_patches(world) -> list:
    patches: list = []
    real = world.dvp.client.patch

    def patch(res, name, body, namespace=None, **kw):
        patches.append((res.kind, name, copy.deepcopy(body)))
        return real(res, name, body, namespace, **kw)
    world.dvp.client.patch = patch
    return patches


def guarded(obj: dict, labels: dict) -> dict:
    md = obj["metadata"]
    return {"metadata": {"uid": md["uid"], "resourceVersion": md["resourceVersion"], "labels": labels}}


def test_adopting_patch_carries_the_labels_our_vms_get(world):
    make_machine(recorded_sink(world.dvp, world.guest), "w-1", UUID, DVP_NS)
    world.vm_phase("w-1", "Running")
    world.capi_machine("w-1", SPEC)
    stored = {(o["kind"], o["metadata"]["name"]): o for res in (r.VIRTUAL_MACHINE, r.VIRTUAL_DISK, SECRET)
              for o in world.dvp.items(res, DVP_NS)}
    patches = record_patches(world)
    world.dvp.calls.clear()
    assert world.reconcile("w-1") == DONE

    vm_labels = {"bastion-access": "class-wins", "team": "db", **OURS}  # module's, the class's over it, ours last
    assert patches == [
        ("VirtualMachine", "w-1", guarded(stored["VirtualMachine", "w-1"], vm_labels)),
        ("VirtualDisk", "w-1-boot", guarded(stored["VirtualDisk", "w-1-boot"], OURS)),
        ("VirtualDisk", "w-1-additional-disk-0", guarded(stored["VirtualDisk", "w-1-additional-disk-0"], OURS)),
        ("Secret", "cloud-init-w-1", guarded(stored["Secret", "cloud-init-w-1"], {**OURS, L.HOSTNAME: "w-1"}))]
    # one read and one write per adopted object
    adoption = [c for c in world.dvp.calls if c[0] in ("get", "patch") and c[1] in ("VirtualMachine", "VirtualDisk",
                                                                                      "Secret")]
    assert sorted(adoption) == sorted([(v, k, n) for k, n in stored for v in ("get", "patch")])

    # the same labels a VM we create for this machine carries
    made = manifests.virtual_machine("w-1", parse_spec(SPEC), UUID, False, world.config.additional_vm_labels)
    assert made["metadata"]["labels"].items() >= vm_labels.items()
    assert world.vm("w-1")["metadata"]["labels"].items() >= made["metadata"]["labels"].items()

    # adopted once: the next pass writes nothing
    assert world.reconcile("w-1") == DONE and len(patches) == 4


def test_a_class_without_labels_gives_the_modules_labels_only(world):
    make_machine(recorded_sink(world.dvp, world.guest), "w-2", UUID, DVP_NS)
    world.vm_phase("w-2", "Running")
    world.capi_machine("w-2")
    vm = world.vm("w-2")
    patches = record_patches(world)
    assert world.reconcile("w-2") == DONE
    assert dict(world.config.additional_vm_labels) == {"bastion-access": "true"}
    assert patches[0] == ("VirtualMachine", "w-2", guarded(vm, {"bastion-access": "true", **OURS}))
