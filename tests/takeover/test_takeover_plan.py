# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The pre-switch report's judgement (dvp_common.takeover.plan) over upstream-built worlds (testkit.upstream):
every object adopted with its proof, read, left alone or blocking, and why; another cluster's same-named objects
are never adopted."""

from __future__ import annotations

import pytest
from dvp_common.dvp import labels as L
from dvp_common.dvp import resources as r
from dvp_common.kube.resources import NETWORK_POLICY, PERSISTENT_VOLUME, SECRET
from dvp_common.takeover import plan as T
from takeover import takeover_expect as X
from takeover.takeover_expect import MACHINES, NAMES_NOTHING, OTHER, POLICY, master_names, rows

from testkit.upstream import GUEST, OTHER_UUID, PARENT, PREFIX, UUID, Snapshot, another_cluster, upstream_world
from testkit.upstream import guest as G
from testkit.upstream import parent as P

NS = "tenant"


def report(guest_from: Snapshot, parent_from: Snapshot | None = None, uuid: str = UUID) -> T.Report:
    """The planner over `guest_from`'s guest objects and `parent_from`'s parent objects (the same by default)."""
    parent_from = parent_from or guest_from

    def g(kind: str) -> tuple:
        return tuple(guest_from.of(GUEST, kind))

    def p(kind: str) -> tuple:
        return tuple(parent_from.of(PARENT, kind))

    return T.plan(T.Guest(nodes=g("Node"), volumes=g("PersistentVolume"), claims=g("PersistentVolumeClaim"),
                          machines=g("DeckhouseMachine"), services=g("Service")),
                  T.Parent(vms=p("VirtualMachine"), disks=p("VirtualDisk"),
                           attachments=p("VirtualMachineBlockDeviceAttachment"),
                           addresses=p("VirtualMachineIPAddress"), secrets=p("Secret"), services=p("Service"),
                           healthchecks=p("ServiceWithHealthchecks"), network_policies=p("NetworkPolicy")),
                  uuid, NS)


def uid_of(snap: Snapshot, kind: str, name: str) -> str:
    [obj] = [o for o in snap.of(PARENT, kind) if o["metadata"]["name"] == name]
    return obj["metadata"]["uid"]


def vm_uid(snap: Snapshot):
    return lambda name: uid_of(snap, "VirtualMachine", name)


@pytest.mark.parametrize("csi_uuid", ["", None, UUID], ids=["csi-uuid-empty", "csi-uuid-absent", "csi-uuid-ours"])
def test_an_upstream_world_is_taken_over_object_by_object(csi_uuid):
    snap = Snapshot()
    w = upstream_world(snap, namespace=NS, csi_uuid=csi_uuid)
    rep = report(snap)
    assert rows(rep) == X.ours(w, vm_uid(snap))
    assert not rep.blocks
    assert [r.proof for r in rep.rows if r.kind == "Service" and r.side == PARENT] == [
        T.Proof("Service", w.services[0], "metadata.uid", strong=True)]


def test_another_clusters_objects_beside_ours_are_foreign_and_never_adopted():
    snap = Snapshot()
    w = upstream_world(snap, namespace=NS)
    theirs = another_cluster(snap, namespace=NS)
    rep = report(snap)
    assert rows(rep) == X.ordered(X.ours(w, vm_uid(snap)) + X.theirs(theirs))
    assert not rep.blocks


def test_the_attacker_another_clusters_same_named_objects_are_foreign_and_block_the_switch():
    """Our guest as upstream left it; in the project only another cluster's objects under the names our guest
    names (same prefix: the same master VM, machine VM, disks, Secrets, NetworkPolicy; CSI disks of a release that
    labels them with its cluster UUID): nothing is adopted, and every guest object naming one blocks."""
    ours = Snapshot()
    w = upstream_world(ours, namespace=NS)
    theirs = Snapshot()
    other = another_cluster(theirs, prefix=PREFIX, namespace=NS, csi_uuid=OTHER_UUID)
    rep = report(ours, theirs)
    vm, root, etcd, address, cloudinit = master_names(PREFIX, OTHER_UUID)
    assert vm == w.masters[0]  # the attacker's master VM has our master's very name
    worker, disk = w.machines[0], w.volumes[0]
    their_disk, their_att, their_lb = other.volumes[0], other.attachments[0], other.load_balancers[0]
    assert rows(rep) == X.ordered([
        *(("foreign", PARENT, kind, name, "", OTHER) for kind, name in (
            ("VirtualMachine", vm), ("VirtualMachine", worker), ("VirtualDisk", root), ("VirtualDisk", etcd),
            ("VirtualDisk", f"{worker}-additional-disk-0"), ("VirtualDisk", f"{worker}-boot"),
            ("VirtualDisk", their_disk), ("VirtualMachineIPAddress", address),
            ("NetworkPolicy", f"isolated-{PREFIX}"))),
        # upstream writes no labels on these: nothing of this cluster names them, so they stay foreign
        *(("foreign", PARENT, kind, name, "", NAMES_NOTHING) for kind, name in (
            ("VirtualMachineBlockDeviceAttachment", their_att), ("Secret", f"cloud-init-{worker}"),
            ("Secret", cloudinit), ("Service", their_lb))),
        ("blocks", GUEST, "Node", "dev-master-0", "ccm", f"names VirtualMachine {vm}, which stays foreign: {OTHER}"),
        ("blocks", GUEST, "Node", worker, "ccm", f"names VirtualMachine {worker}, which stays foreign: {OTHER}"),
        ("blocks", GUEST, "DeckhouseMachine", f"{MACHINES}/{worker}", "capdvp",
         f"names VirtualMachine {worker}, which stays foreign: {OTHER}"),
        ("blocks", GUEST, "PersistentVolume", disk, "csi", f"names VirtualDisk {disk}, which is not in the project"),
        ("kept", GUEST, "Service", w.services[0], "ccm",
         f"no Service {w.load_balancers[0]} in the project yet: ccm makes it"),
    ])
    assert all(r.proof is None for r in rep.rows if r.outcome is T.Outcome.FOREIGN) and rep.blocks


def test_a_disk_of_another_cluster_named_by_our_bound_claim_is_still_foreign():
    """The strongest proof there is (a PV bound to our live claim whose uid is in the name) adopts nothing that
    carries another cluster's UUID."""
    ours = Snapshot()
    w = upstream_world(ours, namespace=NS, masters=0, workers=0, load_balancers=0)
    [disk] = ours.objects[PARENT]["VirtualDisk"]
    disk["metadata"]["labels"][L.CLUSTER_UUID] = OTHER_UUID
    got = rows(report(ours))
    assert got[0] == ("foreign", PARENT, "VirtualDisk", w.volumes[0], "", OTHER)
    assert got[-1] == ("blocks", GUEST, "PersistentVolume", w.volumes[0], "csi",
                       f"names VirtualDisk {w.volumes[0]}, which stays foreign: {OTHER}")


def test_a_pv_a_guest_user_wrote_naming_another_clusters_disk_adopts_nothing():
    snap = Snapshot()
    upstream_world(snap, namespace=NS, volumes=0, masters=0, workers=0, load_balancers=0)
    theirs = another_cluster(snap, namespace=NS, masters=0, workers=0, load_balancers=0, csi_uuid=OTHER_UUID)
    victim = theirs.volumes[0]
    snap(GUEST, PERSISTENT_VOLUME, G.volume(None, handle=victim, name="stolen"), None)
    got = rows(report(snap))
    assert ("foreign", PARENT, "VirtualDisk", victim, "", OTHER) in got
    assert ("blocks", GUEST, "PersistentVolume", "stolen", "csi",
            f"names VirtualDisk {victim}, which stays foreign: {OTHER}") in got


def test_a_disk_without_a_cluster_uuid_named_only_by_an_unbound_pv_blocks():
    """A PV alone (no live claim whose uid is in the name) is a proof a guest user could forge: too weak for a disk
    that says nothing of its cluster, so the volume would stop working: the switch is blocked."""
    snap = Snapshot()
    upstream_world(snap, namespace=NS, masters=0, workers=0, volumes=0, load_balancers=0)
    snap(PARENT, r.VIRTUAL_DISK, P.csi_disk("0000-old", None), NS)
    snap(GUEST, PERSISTENT_VOLUME, G.volume(None, handle="pvc-0000-old"), None)
    weak = T.Proof("PersistentVolume", "pvc-0000-old", "volumeHandle")
    rep = report(snap)
    assert rows(rep) == [
        ("blocks", PARENT, "VirtualDisk", "pvc-0000-old", "csi",
         f"{L.CLUSTER_UUID} empty or absent and {weak} is a proof a guest user could forge; csi needs it and "
         "cannot take it over"),
        ("foreign", PARENT, "NetworkPolicy", f"isolated-{PREFIX}", "", POLICY),
        ("blocks", GUEST, "PersistentVolume", "pvc-0000-old", "csi",
         f"names VirtualDisk pvc-0000-old, which cannot be taken over: {L.CLUSTER_UUID} empty or absent and {weak} "
         "is a proof a guest user could forge; csi needs it and cannot take it over"),
    ]
    assert rep.rows[0].proof == weak and rep.blocks


def test_objects_ours_already_stay_ours_whichever_component_made_them():
    snap = Snapshot()
    w = upstream_world(snap, namespace=NS, masters=0, volumes=0, load_balancers=0)
    for kind in ("VirtualMachine", "VirtualDisk", "Secret"):
        for obj in snap.objects[PARENT][kind]:
            obj["metadata"]["labels"] = {**(obj["metadata"].get("labels") or {}), L.CLUSTER_UUID: UUID,
                                         L.COMPONENT: L.CAPDVP}
    got = rows(report(snap))
    worker = w.machines[0]
    assert [r[:5] for r in got] == [
        ("ours", PARENT, "VirtualMachine", worker, "capdvp"),
        ("ours", PARENT, "VirtualDisk", f"{worker}-additional-disk-0", "capdvp"),
        ("ours", PARENT, "VirtualDisk", f"{worker}-boot", "capdvp"),
        ("ours", PARENT, "Secret", f"cloud-init-{worker}", "capdvp"),
        ("foreign", PARENT, "NetworkPolicy", f"isolated-{PREFIX}", ""),
        ("kept", GUEST, "Node", worker, "ccm"),
        ("kept", GUEST, "DeckhouseMachine", f"{MACHINES}/{worker}", "capdvp"),
    ]
    assert {r[5] for r in got[:4]} == {"ours already"}


def test_an_attachment_of_an_adopted_disk_to_a_vm_no_node_names_blocks():
    snap = Snapshot()
    w = upstream_world(snap, namespace=NS, masters=0, load_balancers=0)
    [att] = snap.objects[PARENT]["VirtualMachineBlockDeviceAttachment"]
    att["spec"]["virtualMachineName"] = "somebody-elses-vm"
    got = rows(report(snap))
    assert ("blocks", PARENT, "VirtualMachineBlockDeviceAttachment", w.attachments[0], "csi",
            f"attaches VirtualDisk {w.volumes[0]}, taken over by csi, to VirtualMachine somebody-elses-vm, which no "
            "Node of this cluster names: the driver could never detach it") in got


def test_a_master_vm_whose_cluster_uuid_is_not_ours_blocks_its_node():
    snap = Snapshot()
    upstream_world(snap, namespace=NS, workers=0, volumes=0, load_balancers=0)
    [vm] = snap.objects[PARENT]["VirtualMachine"]
    vm["metadata"]["labels"][L.CLUSTER_UUID] = ""
    rep = report(snap)
    blocking = [(r.kind, r.name) for r in rep.rows if r.outcome is T.Outcome.BLOCKS]
    assert blocking == [("VirtualMachine", vm["metadata"]["name"]), ("Node", "dev-master-0")]
    # its disks, address and Secret are no node VM's anymore: nothing of this cluster names them
    assert {r.outcome for r in rep.rows if r.kind in ("VirtualDisk", "VirtualMachineIPAddress", "Secret")} == {
        T.Outcome.FOREIGN}


def test_guest_objects_naming_what_is_absent():
    snap = Snapshot()
    w = upstream_world(snap, namespace=NS, masters=0, volumes=1, load_balancers=1)
    for kind in ("VirtualMachine", "VirtualDisk", "Service", "Secret", "VirtualMachineBlockDeviceAttachment"):
        snap.objects[PARENT][kind] = []
    got = [r for r in rows(report(snap)) if r[1] == GUEST]
    worker, disk, lb = w.machines[0], w.volumes[0], w.load_balancers[0]
    assert got == [
        ("blocks", GUEST, "Node", worker, "ccm", f"names VirtualMachine {worker}, which is not in the project"),
        ("kept", GUEST, "DeckhouseMachine", f"{MACHINES}/{worker}", "capdvp",
         f"no VirtualMachine {worker} in the project yet: capdvp makes it"),
        ("blocks", GUEST, "PersistentVolume", disk, "csi", f"names VirtualDisk {disk}, which is not in the project"),
        ("kept", GUEST, "Service", w.services[0], "ccm", f"no Service {lb} in the project yet: ccm makes it"),
    ]


def test_a_guest_service_without_the_finalizer_proves_nothing():
    snap = Snapshot()
    w = upstream_world(snap, namespace=NS, masters=0, workers=0, volumes=0)
    [svc] = snap.objects[GUEST]["Service"]
    svc["metadata"]["finalizers"] = []
    got = rows(report(snap))
    lb = w.load_balancers[0]
    assert got == [
        ("foreign", PARENT, "Service", lb, "", NAMES_NOTHING),
        ("foreign", PARENT, "NetworkPolicy", f"isolated-{PREFIX}", "", POLICY),
        ("blocks", GUEST, "Service", w.services[0], "ccm",
         f"Service {lb} exists but this Service lacks the {T.LB_FINALIZER} finalizer, so nothing proves it is this "
         "Service's: the CCM would leave it alone"),
    ]


def test_the_table_and_the_json():
    rep = T.Report(UUID, NS, (
        T.Row(PARENT, "VirtualDisk", "pvc-1", T.Outcome.ADOPTED, "csi", "adopted: named by X",
              T.Proof("PersistentVolume", "pvc-1", "volumeHandle", strong=True)),
        T.Row(GUEST, "Node", "n-1", T.Outcome.BLOCKS, "ccm", "names VirtualMachine v, which is not in the project")))
    assert T.table(rep) == (
        "OUTCOME  SIDE    OBJECT             COMPONENT  REASON\n"
        "adopted  parent  VirtualDisk/pvc-1  csi        adopted: named by X\n"
        "blocks   guest   Node/n-1           ccm        names VirtualMachine v, which is not in the project\n"
        "2 objects: 0 ours, 1 adopted, 0 read, 0 kept, 0 foreign, 1 blocks; the switch is blocked")
    assert rep.to_json() == {
        "clusterUUID": UUID, "namespace": NS, "blocks": True,
        "counts": {"ours": 0, "adopted": 1, "read": 0, "kept": 0, "foreign": 0, "blocks": 1},
        "objects": [
            {"side": "parent", "kind": "VirtualDisk", "name": "pvc-1", "outcome": "adopted", "component": "csi",
             "reason": "adopted: named by X",
             "proof": {"kind": "PersistentVolume", "name": "pvc-1", "field": "volumeHandle", "strong": True}},
            {"side": "guest", "kind": "Node", "name": "n-1", "outcome": "blocks", "component": "ccm",
             "reason": "names VirtualMachine v, which is not in the project", "proof": None}]}


def test_an_empty_cluster_uuid_judges_nothing():
    with pytest.raises(ValueError, match="cluster UUID is empty"):
        T.plan(T.Guest(), T.Parent(), "")


def test_secrets_other_than_cloud_init_are_never_listed():
    snap = Snapshot()
    upstream_world(snap, namespace=NS, masters=0, workers=0, volumes=0, load_balancers=0)
    snap(PARENT, SECRET, {"metadata": {"name": "d8-credentials"}, "type": "Opaque", "data": {"k": "c2VjcmV0"}}, NS)
    assert [r.kind for r in report(snap).rows] == ["NetworkPolicy"]
    assert T.CLOUD_INIT_TYPE == P.CLOUD_INIT_TYPE


def test_network_policies_ours_dhctls_and_anothers():
    snap = Snapshot()
    upstream_world(snap, namespace=NS, masters=0, workers=0, volumes=0, load_balancers=0)
    snap(PARENT, NETWORK_POLICY, {"metadata": {"name": f"{PREFIX}-isolated", "labels": {
        L.CLUSTER_UUID: UUID, L.COMPONENT: L.DHCTL, L.MANAGED_BY: L.MANAGED_BY_VALUE}}}, NS)
    snap(PARENT, NETWORK_POLICY, {"metadata": {"name": "x-isolated", "labels": {
        L.CLUSTER_UUID: "", L.COMPONENT: L.DHCTL}}}, NS)
    assert rows(report(snap)) == [
        ("ours", PARENT, "NetworkPolicy", f"{PREFIX}-isolated", "dhctl", "ours already"),
        ("foreign", PARENT, "NetworkPolicy", f"isolated-{PREFIX}", "", POLICY),
        ("foreign", PARENT, "NetworkPolicy", "x-isolated", "", f"made by {L.COMPONENT}='dhctl' of cluster ''; "
         "never adopted"),
    ]


def test_an_instance_class_no_vm_of_ours_can_have_blocks_the_switch():
    # what Deckhouse's CRD takes and this module refuses (dvp_common.node_groups.class_problems, the one rule)
    from dvp_common import node_groups as NG

    def ic(name: str, vm: dict, image_kind: str = "ClusterVirtualImage") -> dict:
        return {"metadata": {"name": name}, "spec": {"virtualMachine": {"cpu": {"cores": 2}, **vm}, "rootDisk": {
            "size": "20Gi", "image": {"kind": image_kind, "name": "ubuntu"}}}}

    classes = (ic("good", {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                   {"key": "zone", "operator": "In", "values": ["a"]}]}]}}),
               ic("frozen", {"liveMigrationPolicy": "Never"}, image_kind="VirtualDisk"))
    got = rows(T.plan(T.Guest(instance_classes=classes), T.Parent(), UUID, NS))
    assert got == [("blocks", GUEST, "DVPInstanceClass", "frozen", "capdvp",
                    f"spec.rootDisk.image: {NG.VIRTUAL_DISK_IMAGE}; spec.virtualMachine: {NG.LIVE_MIGRATION}")]
