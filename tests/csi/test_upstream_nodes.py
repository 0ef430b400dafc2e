# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Volumes on the nodes the upstream (Go) module built: dhctl's master and static VMs carry our cluster UUID and
the hostname label but no component label, so no VM of ours has the node's hostname. The guest Node's providerID
names the VM, which is then the attach target, read and never written; the attachment made to it is ours. A VM of
another cluster, one whose hostname is not the Node's, or a providerID naming nothing is refused as before."""

from __future__ import annotations

import grpc
import pytest
from dvp_common.dvp import disk_state
from dvp_common.dvp import resources as r
from dvp_common.kube.resources import NODE
from dvp_csi.domain import labels, names

from sim import seed
from sim.builders import phase_is
from testkit.csi.env import CLUSTER, OTHER_CLUSTER
from testkit.csi.requests import create, expect_code, publish, unpublish
from testkit.csi.sim import sim_env
from testkit.recorded import RecordedApi
from testkit.upstream import guest as G
from testkit.upstream import parent as P
from testkit.upstream.world import PARENT, make_master

C = grpc.StatusCode
PREFIX = "up"
HOSTNAME = P.master_hostname(PREFIX, 0)
WRITES = {"create", "update", "patch", "delete"}
OURS = {labels.CLUSTER_UUID: CLUSTER, labels.COMPONENT: "csi", labels.MANAGED_BY: "deckhouse"}


class Env:
    def __init__(self, sim, guest: RecordedApi, requests: list) -> None:
        self.sim, self.guest, self.requests = sim, guest, requests
        self.c = sim.csi.controller

    def master(self, uuid: str = CLUSTER, index: int = 0) -> dict:
        """dhctl's master VM as the layout makes it (in this project), Running."""
        def put(side, res, body, namespace):
            assert side == PARENT
            return self.sim.dvp.create(res, body, namespace)

        vm = make_master(put, PREFIX, index, uuid, self.sim.ns)
        return self.sim.wait(r.VIRTUAL_MACHINE, vm["metadata"]["name"], phase_is("Running"))

    def node(self, name: str, vm_name: str) -> None:
        self.guest.put(NODE, G.node(name, vm_name))

    def vm_writes(self) -> list:
        return [(verb, name) for verb, resource, name in self.requests
                if verb in WRITES and resource.startswith("virtualmachines")]

    def volume(self, name: str) -> str:
        return self.c.CreateVolume(create(name)).volume.volume_id


@pytest.fixture
def env(dvp_api, tmp_path):
    admin = dvp_api.client()
    seed.cluster_image(admin, "ubuntu-24-04")  # the master layout's root disk image
    seed.storage_class(admin, "project-default", default=True)  # its disks name no class: DVP takes the default
    admin.close()
    guest = RecordedApi()
    requests: list = []

    def record(info):  # injects nothing: every request of the driver's own client
        requests.append((info.verb, info.resource, info.name))

    for sim in sim_env(dvp_api, tmp_path, faults=record):
        sim.csi.dvp.guest = guest.client  # what driver.build does with the controller's guest API
        yield Env(sim, guest, requests)


def test_publish_to_an_upstream_master_attaches_its_vm_read_only_and_unpublish_detaches(env):
    vm = env.master()
    vm_name = vm["metadata"]["name"]
    env.node(HOSTNAME, vm_name)
    vol = env.volume("pvc-on-master")
    disk = env.sim.get(r.VIRTUAL_DISK, vol)

    answer = env.c.ControllerPublishVolume(publish(vol, node=HOSTNAME))

    assert dict(answer.publish_context) == {names.SERIAL_KEY: names.disk_serial(disk["metadata"]["uid"])}
    [att] = env.sim.items(r.VMBDA)
    assert att["metadata"]["name"] == names.vmbda_name(vol, vm_name)
    assert att["metadata"]["labels"] == {labels.VMBDA_DISK: vol, labels.VMBDA_VM: vm_name,
                                         labels.HOSTNAME: HOSTNAME, **OURS}
    assert att["spec"] == {"virtualMachineName": vm_name, "blockDeviceRef": {"kind": "VirtualDisk", "name": vol}}
    assert att["status"]["phase"] == "Attached"
    after = env.sim.get(r.VIRTUAL_MACHINE, vm_name)
    assert after["metadata"]["labels"] == vm["metadata"]["labels"]  # no component label: never adopted
    assert after["metadata"].get("annotations") == vm["metadata"].get("annotations")
    assert env.vm_writes() == []

    # read as alive: the volume stays on the master until unpublished there
    details = expect_code(C.FAILED_PRECONDITION, env.c.ControllerPublishVolume, publish(vol, node="worker-0"))
    assert details == f"volume {vol} is attached to VirtualMachine {vm_name}; unpublish it there first"

    env.c.ControllerUnpublishVolume(unpublish(vol, node=HOSTNAME))
    assert env.sim.items(r.VMBDA) == []
    assert vm_name not in disk_state.attached_vms(env.sim.get(r.VIRTUAL_DISK, vol))
    assert env.vm_writes() == []

    env.c.ControllerPublishVolume(publish(vol, node="worker-0"))  # free again: attachable elsewhere
    assert [a["spec"]["virtualMachineName"] for a in env.sim.items(r.VMBDA)] == ["vm-worker-0"]


def test_an_upstream_masters_attachment_stays_while_it_runs_and_is_reaped_once_stopped(env):
    vm_name = env.master()["metadata"]["name"]
    env.node(HOSTNAME, vm_name)
    vol = env.volume("pvc-stopped-master")
    env.c.ControllerPublishVolume(publish(vol, node=HOSTNAME))
    att = names.vmbda_name(vol, vm_name)
    reaper = env.sim.csi.driver.attachments
    assert reaper.reap_dead_vms() == []  # running: alive, though not ours
    env.sim.stop_vm(vm_name)

    assert reaper.reap_dead_vms() == [att]
    env.c.ControllerUnpublishVolume(unpublish(vol, node=HOSTNAME))  # nothing left, and nothing to wait for

    assert [a for a in env.sim.items(r.VMBDA) if not a["metadata"].get("deletionTimestamp")] == []
    assert [name for verb, resource, name in env.requests
            if verb == "delete" and resource.startswith("virtualmachineblockdeviceattachments")] == [att]
    assert env.vm_writes() == []


def refused(env, node: str) -> None:
    """Publish to `node` is NotFound with the message of a node without a VM of ours, and nothing is written."""
    vol = env.volume("pvc-victim")
    before = env.sim.state()
    env.requests.clear()
    details = expect_code(C.NOT_FOUND, env.c.ControllerPublishVolume, publish(vol, node=node))
    assert details == f"node {node}: no VirtualMachine of this cluster has that hostname"
    assert env.sim.items(r.VMBDA) == []
    assert env.sim.state() == before
    assert [verb for verb, _, _ in env.requests if verb in WRITES] == []


def test_another_clusters_master_of_that_hostname_is_refused(env):
    # the attacker's case: the same project and prefix, so the same hostname; the Node names their VM
    theirs = env.master(uuid=OTHER_CLUSTER)
    assert theirs["metadata"]["labels"][labels.HOSTNAME] == HOSTNAME
    env.node(HOSTNAME, theirs["metadata"]["name"])
    refused(env, HOSTNAME)


def test_a_node_naming_a_master_of_another_hostname_is_refused(env):
    # a Node of this cluster naming our master-0's VM under another name: the VM's hostname is not the Node's
    vm_name = env.master()["metadata"]["name"]
    env.node("intruder", vm_name)
    refused(env, "intruder")


@pytest.mark.parametrize("provider_id", ["dvp://no-such-vm", "dvp://", "aws:///eu-1a/i-0123", ""],
                         ids=["names-nothing", "malformed", "another-provider", "none"])
def test_a_node_whose_provider_id_names_no_vm_is_refused(env, provider_id):
    env.master()
    node = G.node(HOSTNAME, "placeholder")
    node["spec"] = {"providerID": provider_id} if provider_id else {}
    env.guest.put(NODE, node)
    refused(env, HOSTNAME)


def test_a_node_the_guest_does_not_have_is_refused(env):
    env.master()
    refused(env, HOSTNAME)
