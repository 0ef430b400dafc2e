# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The recommended DVP RBAC of docs/SECURITY.md covers what the components really ask DVP for. Each component's
DVP client records every request (dvp_common's fault hook, returning no fault) while the component does its
whole job on the real API with the simulator: CSI (volume, publish, expand, snapshot, restore, unpublish,
delete), capdvp (machines created, warm-updated, hot-plugged, deleted), the CCM (nodes, a LoadBalancer
Service, a dead VM). Every (verb, resource) seen must be allowed by the documented Role/ClusterRole."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
import yaml
from capdvp import resources as cr
from capdvp.manager import Manager as CapdvpManager
from capdvp.settings import Settings as CapdvpSettings
from capdvp_real import RealEnv
from ccm_real import Env, eventually, now_text
from csi_env import CLUSTER, NODE, make_settings, serve
from csi_requests import GIB, cap, create, publish, unpublish
from csi_sim import STORAGE_CLASS, add_vm
from dvp_ccm.domain import taints as T
from dvp_common.dvp.connection import DVPConnection, DVPSettings
from dvp_common.dvp.resources import SERVICE as DVP_SERVICE
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import SERVICE
from dvp_csi.dvp.kube import KubeDvp
from dvp_csi.generated import csi_pb2
from dvp_sim import SimConfig, Simulator, seed

DOC = Path(__file__).resolve().parents[2] / "docs" / "SECURITY.md"
# kube verbs a client method maps to; a watch-based wait is list + watch.
READS = {"get", "list", "watch"}


class Recorder:
    def __init__(self) -> None:
        self.seen: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def __call__(self, info):  # a dvp_common fault hook that never injects a fault
        resource = info.resource.split("/")[0] + ("/" + info.resource.split("/", 1)[1] if "/" in info.resource else "")
        with self._lock:
            self.seen.add((info.verb, resource))
        return None


def documented_rules() -> set[tuple[str, str]]:
    """(verb, plural[.group][/subresource]) pairs allowed by the YAML block of docs/SECURITY.md."""
    text = DOC.read_text()
    block = re.search(r"<!-- dvp-rbac -->\s*```yaml\n(.*?)```", text, re.S)
    assert block, f"{DOC}: the recommended RBAC block (<!-- dvp-rbac --> then ```yaml) is missing"
    allowed = set()
    for doc in yaml.safe_load_all(block.group(1)):
        if doc["kind"] not in ("Role", "ClusterRole"):
            continue
        for rule in doc["rules"]:
            assert "*" not in rule["verbs"] and "*" not in rule["resources"], f"wildcard in {doc['kind']}"
            for group in rule["apiGroups"]:
                for res in rule["resources"]:
                    base, _, sub = res.partition("/")
                    name = base + (f".{group}" if group else "") + (f"/{sub}" if sub else "")
                    allowed |= {(verb, name) for verb in rule["verbs"]}
    return allowed


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
        for csi in serve(make_settings(tmp_path, namespace=ns), KubeDvp(client, ns)):
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
            c.ControllerPublishVolume(publish("pvc-clone", node="worker-1"))
            admin.delete(VIRTUAL_MACHINE, "vm-b", ns)  # a dead node: its VMBDA is reaped
            admin.wait_for(VIRTUAL_MACHINE, "vm-b", lambda o: o is None, 30, ns)
            assert csi.driver.attachments.reap_dead_vms() == ["vmbda-pvc-clone-vm-b"]
            c.ControllerUnpublishVolume(unpublish("pvc-r"))
            for v in ("pvc-r", "pvc-restored", "pvc-clone"):
                c.DeleteVolume(csi_pb2.DeleteVolumeRequest(volume_id=v))
            c.DeleteSnapshot(csi_pb2.DeleteSnapshotRequest(snapshot_id="snap-r"))
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
        env.capi_machine("m-0", env.spec(rootDiskStorageClass=sc, additionalDisks=[{"size": "1Gi",
                                                                                     "storageClass": sc}]))
        eventually(lambda: ((env.dm("m-0") or {}).get("status") or {}).get("ready"), 90, "machine ready")
        env.guest.patch(cr.DECKHOUSE_MACHINE, "m-0", {"spec": {"memory": "8Gi", "additionalDisks": [
            {"size": "1Gi", "storageClass": sc}, {"size": "2Gi", "storageClass": sc}]}}, env.ns)
        eventually(lambda: (env.vm("m-0") or {}).get("spec", {}).get("memory") == {"size": "8Gi"}, 90, "warm update")
        env.guest.delete(cr.DECKHOUSE_MACHINE, "m-0", env.ns)
        eventually(lambda: env.dm("m-0") is None, 90, "machine released")
    finally:
        manager.shutdown()
        sim.stop()
        env.close()


def ccm_job(dvp_api, guest_api, rec: Recorder) -> None:
    env = Env(dvp_api, guest_api)
    try:
        env.vm("c0")
        env.vm("c1")
        alive = env.node("c0", provider_id="dvp://c0")
        dead = env.node("c1", provider_id="dvp://c1", taints=[])
        env.manager(dvp_faults=rec, controllers=frozenset({"cloud-node", "cloud-node-lifecycle",
                                                            "service-lb-controller"}))
        eventually(lambda: (n := env.get_node(alive)) and not T.has(n, T.UNINITIALIZED), what="node initialised")
        svc = env.guest.create(SERVICE, {"metadata": {"name": "web"}, "spec": {
            "type": "LoadBalancer", "selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}},
            env.guest_ns)
        eventually(lambda: env.guest.get(SERVICE, "web", env.guest_ns).get("status", {}).get("loadBalancer", {})
                   .get("ingress"), what="LB ingress")
        env.dvp.delete(VIRTUAL_MACHINE, "c1", env.ns)
        env.set_ready(dead, False, since=now_text(-600))
        eventually(lambda: env.get_node(dead) is None, what="dead node removed")
        env.guest.delete(SERVICE, svc["metadata"]["name"], env.guest_ns)
        eventually(lambda: not env.dvp.list(DVP_SERVICE, env.ns).items, what="DVP LB gone")
    finally:
        env.close()


@pytest.mark.parametrize("component", ["csi", "capdvp", "ccm"])
def test_components_stay_within_the_recommended_dvp_rbac(component, dvp_api, guest_api, tmp_path):
    rec = Recorder()
    {"csi": lambda: csi_job(dvp_api, tmp_path, rec), "capdvp": lambda: capdvp_job(dvp_api, guest_api, rec),
     "ccm": lambda: ccm_job(dvp_api, guest_api, rec)}[component]()
    print(f"{component}: DVP requests {sorted(rec.seen)}")
    assert rec.seen, "nothing recorded: the recorder is not on the component's DVP client"
    assert sorted(rec.seen - documented_rules()) == []


def test_the_documented_rbac_applies_and_grants_exactly_its_rules(rbac_api):
    from dvp_common.kube import Forbidden, Resource
    from dvp_common.kube.resources import CONFIG_MAP

    ns = rbac_api.create_namespace("rbac-doc")
    text = re.search(r"<!-- dvp-rbac -->\s*```yaml\n(.*?)```", DOC.read_text(), re.S).group(1)
    text = text.replace("<dvp project>", ns).replace("<provider service account>", "provider")
    kinds = {"Role": Resource("rbac.authorization.k8s.io", "v1", "roles", "Role"),
             "ClusterRole": Resource("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole",
                                     namespaced=False),
             "RoleBinding": Resource("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding"),
             "ClusterRoleBinding": Resource("rbac.authorization.k8s.io", "v1", "clusterrolebindings",
                                            "ClusterRoleBinding", namespaced=False)}
    token = rbac_api.service_account_token(ns, "provider")
    admin, sa = rbac_api.client(), rbac_api.client(token=token)
    try:
        for doc in yaml.safe_load_all(text):
            res = kinds[doc["kind"]]
            admin.create(res, doc, ns if res.namespaced else None)
        from dvp_common.dvp.resources import VIRTUAL_DISK, VIRTUAL_MACHINE_CLASS

        def granted() -> bool:  # the authorizer's informers see new bindings a moment later
            try:
                return sa.list(VIRTUAL_DISK, ns).items == []
            except Forbidden:
                return False

        eventually(granted, what="the Role in effect")
        assert sa.list(VIRTUAL_MACHINE_CLASS).items is not None  # the ClusterRole's read
        with pytest.raises(Forbidden):
            sa.list(CONFIG_MAP, ns)  # nothing beyond the rules
        with pytest.raises(Forbidden):
            sa.list(VIRTUAL_DISK, "default")  # and only in the project namespace
    finally:
        admin.close()
        sa.close()
