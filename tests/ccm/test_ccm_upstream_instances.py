# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VMs the Go module made (our cluster UUID, hostname, no component label): read as this cluster's instances for
the Node whose providerID names them, never written; every other VM stays foreign."""

from __future__ import annotations

from ccm_builders import UNINIT, node, vm
from ccm_context import UUID, world
from dvp_ccm.controllers.lifecycle import LifecycleController
from dvp_ccm.controllers.node import NodeController
from dvp_ccm.domain import events as E
from dvp_ccm.domain import instances as I
from dvp_ccm.domain import taints as T
from dvp_ccm.domain.lifecycle import LifecycleConfig
from dvp_ccm.runner import DONE, Result
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import NODE

OFF = LifecycleConfig(out_of_service=False, recheck=5)
MASTER_VM = "dev-master-0-a1b2c3"


def upstream_vm(name: str = MASTER_VM, hostname: str = "dev-master-0", uuid: str = UUID, **kw) -> dict:
    return vm(name, uuid, hostname=hostname, component=None, **kw)


def test_domain_reads_an_upstream_vm_only_for_the_node_naming_it():
    up = {**upstream_vm(), "metadata": {**upstream_vm()["metadata"], "uid": "u1", "resourceVersion": "1"}}
    assert I.readable(up, UUID, "dev-master-0")
    assert not I.readable(up, UUID)  # no Node names it: no proof
    assert not I.readable(up, UUID, "dev-master-1")  # not the hostname the upstream layout wrote
    other = {**up, "metadata": {**up["metadata"], "labels": {**up["metadata"]["labels"], L.CLUSTER_UUID: "x"}}}
    assert not I.readable(other, UUID, "dev-master-0")
    no_uuid = {**up, "metadata": {**up["metadata"], "labels": {L.HOSTNAME: "dev-master-0"}}}
    assert not I.readable(no_uuid, UUID, "dev-master-0")  # our UUID label is required to read it
    ccm = {**up, "metadata": {**up["metadata"], "labels": {**up["metadata"]["labels"], L.COMPONENT: L.CSI}}}
    assert not I.readable(ccm, UUID, "dev-master-0")


def test_upstream_master_node_is_refreshed_without_a_dvp_write():
    w = world()
    w.dvp.put(VIRTUAL_MACHINE, upstream_vm(ip="10.66.0.21"))
    w.guest.put(NODE, node("dev-master-0", provider_id=f"dvp://{MASTER_VM}"))
    assert NodeController(w.ctx).reconcile("dev-master-0") == DONE
    assert w.dvp.writes() == [] and w.dvp.calls == []
    assert w.guest_writes() == [("patch", "Node", "dev-master-0", "status"), ("patch", "Node", "dev-master-0")]
    got = w.guest.peek(NODE, "dev-master-0")
    assert got["status"]["addresses"][0] == {"type": "InternalIP", "address": "10.66.0.21"}
    assert got["metadata"]["labels"][I.VM_CLASS] == "generic"


def test_uninitialised_node_is_initialised_from_the_upstream_vm_it_names():
    w = world()
    w.dvp.put(VIRTUAL_MACHINE, upstream_vm("w-abc", hostname="w-abc"))
    w.guest.put(NODE, node("w-abc", provider_id="dvp://w-abc", taints=[UNINIT]))
    assert NodeController(w.ctx).reconcile("w-abc") == DONE
    assert w.guest.peek(NODE, "w-abc")["spec"] == {"providerID": "dvp://w-abc", "taints": []}
    assert [e[0] for e in w.events()] == [E.INITIALIZED] and w.dvp.writes() == []


def test_stopped_upstream_vm_taints_its_node():
    w = world(OFF)
    w.dvp.put(VIRTUAL_MACHINE, upstream_vm(phase="Stopped"))
    w.guest.put(NODE, node("dev-master-0", provider_id=f"dvp://{MASTER_VM}", ready=False))
    assert LifecycleController(w.ctx).reconcile("dev-master-0") == Result(requeue_after=5)
    assert w.guest.peek(NODE, "dev-master-0")["spec"]["taints"] == [T.shutdown_taint()]
    assert [e[0] for e in w.events()] == [E.TAINT_SHUTDOWN] and w.dvp.writes() == []


def test_upstream_vm_of_another_cluster_stays_foreign():
    w = world(OFF)
    foreign = w.dvp.put(VIRTUAL_MACHINE, upstream_vm(uuid="other-cluster-uuid", phase="Stopped"))
    w.guest.put(NODE, node("dev-master-0", provider_id=f"dvp://{MASTER_VM}", ready=False))
    assert LifecycleController(w.ctx).reconcile("dev-master-0") == DONE
    assert [e[0] for e in w.events()] == [E.INSTANCE_NOT_OURS]
    assert w.guest_writes() == [] and w.dvp.writes() == []
    assert w.dvp.peek(VIRTUAL_MACHINE, MASTER_VM, "dvp-project") == foreign


def test_upstream_vm_named_by_no_node_stays_foreign():
    """A Node found by hostname (no providerID) is no proof: the VM is not read as its instance."""
    w = world()
    w.dvp.put(VIRTUAL_MACHINE, upstream_vm("w-x", hostname="w-x"))
    w.guest.put(NODE, node("w-x", taints=[UNINIT]))
    assert NodeController(w.ctx).reconcile("w-x") == Result(retry=True)
    assert [e[0] for e in w.events()] == [E.INSTANCE_NOT_FOUND]
    assert w.guest_writes() == [] and w.dvp.writes() == []


def test_node_naming_an_upstream_vm_of_another_hostname_is_refused():
    w = world()
    w.dvp.put(VIRTUAL_MACHINE, upstream_vm())  # hostname dev-master-0
    w.guest.put(NODE, node("w-evil", provider_id=f"dvp://{MASTER_VM}", taints=[UNINIT]))
    assert NodeController(w.ctx).reconcile("w-evil") == DONE
    assert [e[0] for e in w.events()] == [E.INSTANCE_NOT_OURS]
    assert w.guest_writes() == [] and w.dvp.writes() == []
