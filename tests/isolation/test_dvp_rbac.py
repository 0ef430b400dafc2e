# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVP RBAC of docs/SECURITY.md is exactly what the components ask DVP for. Each component's DVP client
records every request (dvp_common's fault hook, returning no fault) while the component does its whole job on the
real API with the simulator: CSI (volume, publish, expand, snapshot, restore, clone, a dead VM, unpublish,
delete), capdvp (machines created, warm-updated with boot disk growth, hot-plugged, a VM lost, the
DeckhouseCluster deleted, machines deleted), the CCM (nodes, a LoadBalancer Service, the parent's ModuleConfig
service-with-healthchecks read, a dead VM), the discoverer (rounds). Every (verb, resource) seen must be allowed
by that component's documented Role/ClusterRole, and every rule documented must be seen (or be listed below with
the path that needs it)."""

from __future__ import annotations

import threading

import grpc
import pytest
from capdvp import resources as cr
from capdvp.controllers.machine_update import WARM_UPDATE
from capdvp.manager import Manager as CapdvpManager
from capdvp.settings import Settings as CapdvpSettings
from ccm_real import Env, eventually, now_text
from dvp_ccm.domain import parent_module as PM
from dvp_ccm.domain import taints as T
from dvp_common.dvp.connection import DVPConnection, DVPSettings
from dvp_common.dvp.resources import SERVICE as DVP_SERVICE
from dvp_common.dvp.resources import SERVICE_WITH_HEALTHCHECKS as SWHC
from dvp_common.dvp.resources import VIRTUAL_DISK, VIRTUAL_MACHINE, VMBDA
from dvp_common.kube import Fault
from dvp_common.kube.resources import NODE as NODE_RES
from dvp_common.kube.resources import PERSISTENT_VOLUME, PERSISTENT_VOLUME_CLAIM, SERVICE
from dvp_csi import DRIVER_NAME
from dvp_csi.access import Dvp
from dvp_csi.generated import csi_pb2
from isolation.rbac_doc import apply_block, documented_rules

from sim import SimConfig, Simulator, seed
from sim.builders import disk as disk_body
from sim.builders import phase_is
from sim.builders import vmbda as vmbda_body
from testkit.capdvp.real import RealEnv
from testkit.csi.env import CLUSTER, NODE, make_settings, serve
from testkit.csi.requests import GIB, cap, create, publish, unpublish
from testkit.csi.sim import STORAGE_CLASS, add_vm
from testkit.recorded import RecordedApi

# kube verbs a client method maps to; a watch-based wait is list + watch.
READS = {"get", "list", "watch"}


class Recorder:
    def __init__(self) -> None:
        self.seen: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self.hide_healthchecks = False  # API discovery answers ServiceWithHealthchecks is not served

    def __call__(self, info):  # a dvp_common fault hook that injects no fault but this one discovery answer
        if info.verb == "discover":  # granted to every authenticated user (system:discovery), not by a Role
            return Fault(status=404, reason="NotFound") if self.hide_healthchecks else None
        resource = info.resource.split("/")[0] + ("/" + info.resource.split("/", 1)[1] if "/" in info.resource else "")
        with self._lock:
            self.seen.add((info.verb, resource))
        return None


def upstream_volume(csi, admin, ns: str) -> None:
    """A volume the upstream driver made and attached, adopted with proof (a PV and the Node of this guest)."""
    guest = RecordedApi()
    # bound to a live claim whose uid is in the disk's name, as the provisioner names volumes (the disk's cluster
    # UUID is absent: an older upstream release)
    guest.put(PERSISTENT_VOLUME, {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pvc-up"},
                                  "spec": {"csi": {"driver": DRIVER_NAME, "volumeHandle": "pvc-up"},
                                           "claimRef": {"namespace": "app", "name": "data", "uid": "up"}}})
    guest.put(PERSISTENT_VOLUME_CLAIM, {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                        "metadata": {"name": "data", "namespace": "app", "uid": "up"},
                                        "spec": {"volumeName": "pvc-up"}}, "app")
    guest.put(NODE_RES, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": NODE},
                         "spec": {"providerID": "dvp://vm-a"}})
    csi.dvp.guest = guest.client
    body = disk_body("pvc-up", "1Gi", "rbac-sc")
    body["metadata"]["labels"] = {"deckhouse.io/managed-by": "deckhouse", "virtualDiskName": "pvc-up"}
    admin.create(VIRTUAL_DISK, body, ns)
    admin.wait_for(VIRTUAL_DISK, "pvc-up", phase_is("Ready"), 30, ns)
    att = vmbda_body(f"vmbda-pvc-up-{NODE}", "vm-a", "pvc-up")
    att["metadata"]["labels"] = {"virtualMachineDiskName": "pvc-up", "virtualMachineName": NODE}
    admin.create(VMBDA, att, ns)
    # attached, as upstream left it: DVP's status writes are over, so the adopting patch's precondition holds
    admin.wait_for(VMBDA, f"vmbda-pvc-up-{NODE}", phase_is("Attached"), 30, ns)
    c = csi.controller
    c.ControllerPublishVolume(publish("pvc-up"))
    c.ControllerUnpublishVolume(unpublish("pvc-up"))
    c.DeleteVolume(csi_pb2.DeleteVolumeRequest(volume_id="pvc-up"))


def csi_job(dvp_api, tmp_path, rec: Recorder) -> None:
    admin = dvp_api.client()
    seed.storage_class(admin, "rbac-sc")
    seed.storage_class(admin, STORAGE_CLASS)  # the kit's VMs' disks
    seed.vm_class(admin, "generic")
    seed.cluster_image(admin, "ubuntu")
    ns = dvp_api.create_namespace("rbac-csi")
    sim = Simulator(dvp_api.client(), SimConfig(namespace=ns, default_latency=0.02, watch_timeout=1)).start()
    add_vm(admin, ns, "vm-a", NODE, CLUSTER)
    add_vm(admin, ns, "vm-b", "worker-1", CLUSTER)
    client = dvp_api.client(faults=rec)
    try:
        for csi in serve(make_settings(tmp_path, namespace=ns), Dvp.over(client, ns, CLUSTER)):
            c = csi.controller
            c.CreateVolume(create("pvc-r", sc="rbac-sc", required=GIB))
            c.ControllerPublishVolume(publish("pvc-r"))
            req = csi_pb2.ControllerExpandVolumeRequest(volume_id="pvc-r", volume_capability=cap())
            req.capacity_range.required_bytes = 2 * GIB
            c.ControllerExpandVolume(req)
            c.CreateSnapshot(csi_pb2.CreateSnapshotRequest(name="snap-r", source_volume_id="pvc-r"))
            c.CreateVolume(create("pvc-restored", sc="rbac-sc", snapshot="snap-r"))
            c.CreateVolume(create("pvc-clone", sc="rbac-sc", volume="pvc-r"))
            c.ListVolumes(csi_pb2.ListVolumesRequest())
            c.ListSnapshots(csi_pb2.ListSnapshotsRequest())
            c.GetCapacity(csi_pb2.GetCapacityRequest(parameters={"dvpStorageClass": "rbac-sc"}))
            with pytest.raises(grpc.RpcError) as refused:  # DVP migrates no disk that no VM mounts
                c.ControllerModifyVolume(csi_pb2.ControllerModifyVolumeRequest(
                    volume_id="pvc-restored", mutable_parameters={"dvpStorageClass": STORAGE_CLASS}))
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, refused.value.details()
            c.ControllerPublishVolume(publish("pvc-clone", node="worker-1"))
            admin.delete(VIRTUAL_MACHINE, "vm-b", ns)  # a dead node: its VMBDA is reaped
            admin.wait_for(VIRTUAL_MACHINE, "vm-b", lambda o: o is None, 30, ns)
            assert csi.driver.attachments.reap_dead_vms() == ["vmbda-pvc-clone-vm-b"]
            c.ControllerUnpublishVolume(unpublish("pvc-r"))
            for v in ("pvc-r", "pvc-restored", "pvc-clone"):
                c.DeleteVolume(csi_pb2.DeleteVolumeRequest(volume_id=v))
            c.DeleteSnapshot(csi_pb2.DeleteSnapshotRequest(snapshot_id="snap-r"))
            upstream_volume(csi, admin, ns)
    finally:
        sim.stop()
        for cl in (client, admin, sim.client):
            cl.close()


def capdvp_job(dvp_api, guest_api, rec: Recorder) -> None:
    env = RealEnv(dvp_api, guest_api)
    sc = "rbac-capdvp-sc"
    seed.storage_class(env.dvp, sc)
    sim = Simulator(dvp_api.client(), SimConfig(namespace=env.dvp_ns, default_latency=0.02, watch_timeout=1)).start()
    settings = CapdvpSettings(dvp=DVPSettings(dvp_api.kubeconfig(), env.dvp_ns, env.uuid), reconcile=env.config,
                              watch_namespace=env.ns, leader_elect=False, health_bind=None, metrics_bind=None,
                              webhook_bind=None, workers=2)
    manager = CapdvpManager(settings, guest_api.client(),
                            DVPConnection(dvp_api.client(faults=rec), env.dvp_ns, env.uuid))
    manager.start()
    try:
        env.guest.create(cr.DECKHOUSE_CLUSTER, {"metadata": {"name": "dvp"}, "spec": {}}, env.ns)
        eventually(lambda: "deckhousecluster.infrastructure.cluster.x-k8s.io" in (
            env.guest.get(cr.DECKHOUSE_CLUSTER, "dvp", env.ns)["metadata"].get("finalizers") or []), 60, "finalizer")
        for name in ("m-0", "m-1"):
            env.capi_machine(name, env.spec(rootDiskStorageClass=sc, additionalDisks=[{"size": "1Gi",
                                                                                       "storageClass": sc}]))
        for name in ("m-0", "m-1"):
            eventually(lambda n=name: ((env.dm(n) or {}).get("status") or {}).get("ready"), 90, f"{name} ready")
        env.guest.patch(cr.DECKHOUSE_MACHINE, "m-0", {"spec": {"memory": "8Gi", "rootDiskSize": "21Gi",
                                                               "additionalDisks": [
            {"size": "1Gi", "storageClass": sc}, {"size": "2Gi", "storageClass": sc}]}}, env.ns)
        eventually(lambda: (env.vm("m-0") or {}).get("spec", {}).get("memory") == {"size": "8Gi"}, 90, "warm update")
        eventually(lambda: WARM_UPDATE not in (env.dm("m-0")["metadata"].get("annotations") or {}), 90, "update done")
        # node failure: DVP lost the VM, not its disks and Secret (orphaned, so capdvp surely deletes them itself:
        # those of a VM capdvp deletes may go with it by their ownerReference first)
        env.dvp.delete(cr.VIRTUAL_MACHINE, "m-1", env.dvp_ns, propagation="Orphan")
        eventually(lambda: (env.dm("m-1").get("status") or {}).get("failureReason"), 90, "lost VM noticed")
        env.guest.delete(cr.DECKHOUSE_CLUSTER, "dvp", env.ns)
        eventually(lambda: guest_get(env, cr.DECKHOUSE_CLUSTER, "dvp") is None, 120, "cluster released")
        for name in ("m-0", "m-1"):
            env.guest.delete(cr.DECKHOUSE_MACHINE, name, env.ns)
        eventually(lambda: env.dm("m-0") is None and env.dm("m-1") is None, 90, "machines released")
    finally:
        manager.shutdown()
        sim.stop()
        env.close()


def guest_get(env, res, name):
    from dvp_common.kube import NotFound

    try:
        return env.guest.get(res, name, env.ns)
    except NotFound:
        return None


def discoverer_job(dvp_api, guest_api, rec: Recorder) -> None:
    from cloud_data_discoverer.discoverer import Discoverer
    from cloud_data_discoverer.guest import Guest
    from cloud_data_discoverer.metrics import Metrics
    from dvp_common.dvp import Inventory

    admin = dvp_api.client()
    ns = dvp_api.create_namespace("rbac-cdd")
    seed.storage_class(admin, "rbac-cdd-sc")
    conn = DVPConnection(dvp_api.client(faults=rec), ns, "uuid-rbac-cdd")
    guest = guest_api.client()
    try:
        disc = Discoverer(Inventory(conn), Guest(guest, attempts=1), Metrics(), conn.cluster_uuid)
        for _ in range(2):
            result = disc.run_once()
            assert result.dvp_error is None
    finally:
        for cl in (admin, conn.client, guest):
            cl.close()


def ccm_job(dvp_api, guest_api, rec: Recorder) -> None:
    env = Env(dvp_api, guest_api)
    try:
        env.vm("c0")
        env.vm("c1")
        alive = env.node("c0", provider_id="dvp://c0")
        dead = env.node("c1", provider_id="dvp://c1", taints=[])
        rec.hide_healthchecks = True  # first a plain Service, then the parent's module comes on: a switch
        env.manager(dvp_faults=rec, controllers=frozenset({"cloud-node", "cloud-node-lifecycle",
                                                            "service-lb-controller"}),
                    load_balancer_kind="auto", load_balancer_kind_recheck=0.5)
        eventually(lambda: (n := env.get_node(alive)) and not T.has(n, T.UNINITIALIZED), what="node initialised")
        svc = env.guest.create(SERVICE, {"metadata": {"name": "web"}, "spec": {
            "type": "LoadBalancer", "selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}},
            env.guest_ns)
        eventually(lambda: env.guest.get(SERVICE, "web", env.guest_ns).get("status", {}).get("loadBalancer", {})
                   .get("ingress"), what="LB ingress")
        rec.hide_healthchecks = False
        eventually(lambda: [o for o in env.dvp.list(SWHC, env.ns).items if (o.get("status") or {}).get(
            "loadBalancer", {}).get("ingress")], what="the LB as a ServiceWithHealthchecks")
        env.dvp.delete(VIRTUAL_MACHINE, "c1", env.ns)
        env.set_ready(dead, False, since=now_text(-600))
        eventually(lambda: env.get_node(dead) is None, what="dead node removed")
        env.guest.delete(SERVICE, svc["metadata"]["name"], env.guest_ns)
        eventually(lambda: not env.dvp.list(DVP_SERVICE, env.ns).items and not env.dvp.list(SWHC, env.ns).items,
                   what="DVP LB gone")
    finally:
        env.close()


# Documented rules no flow above reaches, each with the path that needs it.
UNEXERCISED = {
    "capdvp": {("get", "virtualimages.virtualization.deckhouse.io"),  # a VirtualImage boot image
               ("get", "virtualdisksnapshots.virtualization.deckhouse.io"),  # a snapshot as boot image
               # the CCM's load balancers left at teardown (tests/capdvp/test_cluster_teardown_real.py)
               ("delete", "services"), ("delete", "servicewithhealthchecks.network.deckhouse.io")},
    "csi": set(),
    "ccm": {("patch", "services"),  # an update of an existing LoadBalancer
            ("patch", "servicewithhealthchecks.network.deckhouse.io")},
    "discoverer": set(),
}
COMPONENTS = ("csi", "capdvp", "ccm", "discoverer")


@pytest.mark.parametrize("component", COMPONENTS)
def test_components_use_exactly_their_documented_dvp_rbac(component, dvp_api, guest_api, tmp_path):
    rec = Recorder()
    {"csi": lambda: csi_job(dvp_api, tmp_path, rec), "capdvp": lambda: capdvp_job(dvp_api, guest_api, rec),
     "ccm": lambda: ccm_job(dvp_api, guest_api, rec),
     "discoverer": lambda: discoverer_job(dvp_api, guest_api, rec)}[component]()
    print(f"{component}: DVP requests {sorted(rec.seen)}")
    assert rec.seen, "nothing recorded: the recorder is not on the component's DVP client"
    rules = documented_rules(f"dvp-rbac:{component}")
    assert sorted(rec.seen - rules) == []
    assert sorted(rules - rec.seen) == sorted(UNEXERCISED[component])
    assert not {r for r in rec.seen if r[1] == "secrets" and r[0] in ("list", "watch")}, "Secrets listed"


def test_the_shared_role_is_the_union_of_the_component_roles():
    blocks = (*COMPONENTS, "hooks")
    assert documented_rules() == set().union(*(documented_rules(f"dvp-rbac:{c}") for c in blocks))


@pytest.mark.parametrize("marker", ["dvp-rbac", *(f"dvp-rbac:{c}" for c in (*COMPONENTS, "dhctl"))])
def test_the_documented_rbac_applies_and_grants_exactly_its_rules(rbac_api, marker):
    from dvp_common.kube import Forbidden, NotFound
    from dvp_common.kube.resources import CONFIG_MAP

    ns = rbac_api.create_namespace("rbac-doc")
    token = rbac_api.service_account_token(ns, "provider")
    admin, sa = rbac_api.client(), rbac_api.client(token=token)
    try:
        apply_block(admin, marker, ns, "provider")
        from dvp_common.dvp import resources as dr
        from dvp_common.kube.resources import SECRET, STORAGE_CLASS

        rules = documented_rules(marker)
        probes = [dr.VIRTUAL_MACHINE, dr.VIRTUAL_DISK, dr.VMBDA, dr.VIRTUAL_MACHINE_OPERATION, SECRET, DVP_SERVICE,
                  dr.VIRTUAL_MACHINE_CLASS, STORAGE_CLASS, CONFIG_MAP]

        def name(res) -> str:
            return res.plural + (f".{res.group}" if res.group else "")

        def allowed(res) -> bool:
            try:
                sa.list(res, ns if res.namespaced else None)
                return True
            except Forbidden:
                return False

        def may_get(res, obj_name: str) -> bool:
            try:
                sa.get(res, obj_name)
            except NotFound:
                pass
            except Forbidden:
                return False
            return True

        first = next(p for p in probes if ("list", name(p)) in rules)
        eventually(lambda: allowed(first), what="the Role in effect")  # the authorizer sees bindings a moment later
        assert {name(p): allowed(p) for p in probes} == {name(p): ("list", name(p)) in rules for p in probes}
        if first.namespaced:
            with pytest.raises(Forbidden):
                sa.list(first, "default")  # only in the project namespace
        # the parent's service-with-healthchecks ModuleConfig (the CCM's optional ClusterRole): that one, get only
        reads_module = ("get", name(dr.MODULE_CONFIG)) in rules
        assert reads_module is (marker in ("dvp-rbac", "dvp-rbac:ccm"))
        if reads_module:
            eventually(lambda: may_get(dr.MODULE_CONFIG, PM.NAME), what="the ClusterRole in effect")
        else:
            assert not may_get(dr.MODULE_CONFIG, PM.NAME)
        assert not may_get(dr.MODULE_CONFIG, "cloud-provider-dvp") and not allowed(dr.MODULE_CONFIG)
    finally:
        admin.close()
        sa.close()
