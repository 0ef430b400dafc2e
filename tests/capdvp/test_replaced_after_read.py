# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A same-named object made between capdvp's ownership read and its write is never touched (real API).

The DVP client is wrapped so that right after the read of one object (a GET, or a list holding it) the object is
deleted and a replacement of the same name and labels is created: the worst case, a replacement that would pass the
ownership check too. capdvp's delete (or patch) carries the uid of the object it judged, so the API refuses it with
409 and the replacement stays as it was made. Deterministic: the replacement happens inside the read, no timing.
Kubernetes' garbage collector runs on the DVP API: objects are deleted with propagationPolicy Orphan where the
test needs what they owned to stay (RealEnv.delete_keeping_dependents), and awaited gone.
"""

from __future__ import annotations

import pytest
from capdvp import resources as r
from capdvp.domain import manifests, names
from dvp_common.kube import Conflict, Resource

from testkit.capdvp.real import RealEnv


class ReplaceAfterRead:
    def __init__(self, env: RealEnv, res: Resource, name: str) -> None:
        self.env, self.client, self.res, self.name, self.ns = env, env.dvp, res, name, env.dvp_ns
        self.real_get, self.real_list_all = env.dvp.get, env.dvp.list_all
        self.replacement: dict | None = None
        env.dvp.get, env.dvp.list_all = self.get, self.list_all

    def _replace(self) -> None:
        if self.replacement is not None:
            return
        old = self.real_get(self.res, self.name, self.ns)
        # only this object is replaced: what it owns (a VM's disks and Secret) stays, as in the race
        self.env.delete_keeping_dependents(self.res, self.name, old["metadata"]["uid"])
        body = {k: v for k, v in old.items() if k not in ("metadata", "status")}
        body["metadata"] = {"name": self.name, "labels": old["metadata"].get("labels") or {}}
        self.replacement = self.client.create(self.res, body, self.ns)
        assert self.replacement["metadata"]["uid"] != old["metadata"]["uid"]

    def get(self, res: Resource, name: str, namespace: str | None = None, *args, **kw) -> dict:
        out = self.real_get(res, name, namespace, *args, **kw)
        if res == self.res and name == self.name:
            self._replace()
        return out

    def list_all(self, res: Resource, namespace: str | None = None, **kw):
        out = self.real_list_all(res, namespace, **kw)
        if res == self.res and any(o["metadata"]["name"] == self.name for o in out.items):
            self._replace()
        return out

    def untouched(self) -> bool:
        """The replacement is there exactly as it was made: same uid, same resourceVersion, not deleting."""
        assert self.replacement is not None, "the read never happened"
        now = self.real_get(self.res, self.name, self.ns)
        return (now["metadata"]["uid"], now["metadata"]["resourceVersion"], now["metadata"].get("deletionTimestamp")) \
            == (self.replacement["metadata"]["uid"], self.replacement["metadata"]["resourceVersion"], None)


@pytest.fixture
def env(dvp_api, guest_api):
    e = RealEnv(dvp_api, guest_api)
    e.capi_machine("w-1")
    e.reconcile("w-1")
    yield e
    e.close()


def _deleting(env: RealEnv, vm_gone: bool = False) -> None:
    if vm_gone:  # gone before its disks and Secret (the garbage collector's lag, held open)
        env.delete_keeping_dependents(r.VIRTUAL_MACHINE, "w-1")
    env.guest.delete(r.DECKHOUSE_MACHINE, "w-1", env.ns)


@pytest.mark.parametrize(("res", "name", "vm_gone"), [
    (r.VIRTUAL_MACHINE, "w-1", False),
    (r.SECRET, names.cloud_init_secret_name("w-1"), True),
    (r.VIRTUAL_DISK, names.boot_disk_name("w-1"), True),  # read by a list
], ids=["VirtualMachine", "cloud-init Secret", "VirtualDisk"])
def test_machine_delete_never_touches_a_replacement(env, res, name, vm_gone):
    _deleting(env, vm_gone)
    race = ReplaceAfterRead(env, res, name)
    with pytest.raises(Conflict):
        env.reconcile("w-1")
    assert race.untouched()


def test_detach_never_touches_a_replaced_attachment(env):
    vm = env.vm("w-1")
    disk = env.dvp.create(r.VIRTUAL_DISK, manifests.additional_disks("w-1", _spec_with_two_disks(env), env.uuid,
                                                                       vm)[1], env.dvp_ns)
    bda = env.dvp.create(r.VMBDA, manifests.vmbda("w-1", disk["metadata"]["name"], env.uuid, vm), env.dvp_ns)
    env.dvp.patch(r.VIRTUAL_MACHINE, "w-1", {"status": {"phase": "Running", "blockDeviceRefs": [
        {"kind": "VirtualDisk", "name": disk["metadata"]["name"], "size": "10Gi", "attached": True, "hotplugged": True,
         "virtualMachineBlockDeviceAttachmentName": bda["metadata"]["name"]}]}}, env.dvp_ns, subresource="status")
    _deleting(env)
    race = ReplaceAfterRead(env, r.VMBDA, bda["metadata"]["name"])
    with pytest.raises(Conflict):
        env.reconcile("w-1")
    assert race.untouched()
    assert env.vm("w-1")["metadata"].get("deletionTimestamp") is None  # nothing acted on after the refusal


def test_vm_patch_never_touches_a_replacement(env):
    env.vm_phase("w-1", "Running")
    env.reconcile("w-1")
    assert env.dm("w-1")["status"]["initialization"] == {"provisioned": True}
    env.guest.patch(r.DECKHOUSE_MACHINE, "w-1", {"spec": {"liveMigrationPolicy": "AlwaysSafe"}}, env.ns)  # hot
    race = ReplaceAfterRead(env, r.VIRTUAL_MACHINE, "w-1")
    with pytest.raises(Conflict):
        env.reconcile("w-1")
    assert race.untouched()


def _spec_with_two_disks(env: RealEnv):
    from capdvp.domain.machine_spec import parse_spec

    return parse_spec(env.spec(additionalDisks=[{"size": "10Gi"}, {"size": "1Gi"}]))


@pytest.mark.parametrize(("res", "name"), [(r.VIRTUAL_MACHINE, "w-1"), (r.VIRTUAL_DISK, "w-1-boot")])
def test_cluster_cleanup_never_touches_a_replacement(env, res, name):
    env.guest.create(r.DECKHOUSE_CLUSTER, {"metadata": {"name": "dvp"}, "spec": {}}, env.ns)
    env.clusters.reconcile(env.ns, "dvp")  # the finalizer
    env.guest.delete(r.DECKHOUSE_CLUSTER, "dvp", env.ns)
    if res == r.VIRTUAL_DISK:  # released from its VM, so that the clean-up, not the garbage collector, deletes it
        env.dvp.patch(res, name, {"metadata": {"ownerReferences": None}}, env.dvp_ns)
    race = ReplaceAfterRead(env, res, name)  # read by the clean-up's list
    with pytest.raises(Conflict):
        env.clusters.reconcile(env.ns, "dvp")
    assert race.untouched()
