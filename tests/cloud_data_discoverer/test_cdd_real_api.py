# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The discoverer against the real DVP and guest API servers (the simulator plays DVP's controllers).

StorageClasses are cluster-wide in the shared DVP API: each test names its classes with a unique prefix and
asserts on those entries exactly (plus: the whole list is sorted and covers every DVP class). The guest
objects go to a fresh namespace per test; one test runs `python -m cloud_data_discoverer` on kube-system.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from cloud_data_discoverer.discoverer import Discoverer
from cloud_data_discoverer.guest import INSTANCE_TYPES_CATALOG, Guest
from cloud_data_discoverer.metrics import Metrics
from dvp_common.dvp import DVPConnection, Inventory
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import RESOURCE_QUOTA, VIRTUAL_DISK, VIRTUAL_MACHINE, VMBDA
from dvp_common.kube import NO_RETRY, Fault
from dvp_common.kube.resources import CONFIG_MAP, PERSISTENT_VOLUME, SECRET, STORAGE_CLASS
from dvp_common.runtime.health import HealthServer

from sim import SimConfig, Simulator, seed
from sim.builders import disk, vm, vmbda
from testkit.harness.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = "storageclass.kubernetes.io/is-default-class"
SKIP = "cloud-provider.deckhouse.io/skip-storage-class"


class Env:
    def __init__(self, dvp_api, guest_api) -> None:
        self.dvp_api, self.guest_api = dvp_api, guest_api
        self.dvp, self.guest = dvp_api.client(), guest_api.client()
        self.ns = dvp_api.create_namespace("cdd")
        self.gns = guest_api.create_namespace("cdd")
        self.uuid = str(uuid.uuid4())
        self.p = f"cdd{secrets.token_hex(3)}"
        self.down = False  # flips the DVP client into "connection refused"
        faulty = dvp_api.client(retry=NO_RETRY,
                                faults=lambda req: Fault(connection_error=True) if self.down else None)
        self.conn = DVPConnection(faulty, self.ns, self.uuid)
        self.metrics = Metrics()
        self.sleeps: list[float] = []
        self.catalog = f"{self.p}-catalog"  # cluster-wide: each test its own
        self.guest_io = Guest(guest_api.client(), attempts=3, backoff=0.01, cap=0.02, sleep=self.sleeps.append,
                              namespace=self.gns, catalog_name=self.catalog)
        self.disc = Discoverer(Inventory(self.conn), self.guest_io, self.metrics, self.uuid, orphan_min_age=0)
        self.classes: list[str] = []

    def sc(self, suffix: str, **ann: str) -> str:
        name = f"{self.p}-{suffix}"
        body = {"metadata": {"name": name, "annotations": ann}, "provisioner": "replicated.csi.storage.deckhouse.io",
                "volumeBindingMode": "Immediate", "reclaimPolicy": "Retain", "allowVolumeExpansion": True}
        self.dvp.create(STORAGE_CLASS, body)
        self.classes.append(name)
        return name

    def secret(self) -> dict:
        return self.guest.get(SECRET, "d8-cloud-provider-discovery-data", self.gns)

    def data(self) -> dict:
        return json.loads(base64.b64decode(self.secret()["data"]["discovery-data.json"]))

    def mine(self) -> list[dict]:
        return [e for e in self.data()["storageClasses"] if e["name"].startswith(self.p)]

    def conditions(self) -> list[dict]:
        cm = self.guest.get(CONFIG_MAP, "d8-cloud-provider-conditions", self.gns)
        return json.loads(cm["data"]["conditions"])

    def sample(self, name: str, labels: dict | None = None) -> float | None:
        return self.metrics.registry.get_sample_value(name, labels or {})

    def close(self) -> None:
        for name in self.classes:
            self.dvp.delete(STORAGE_CLASS, name, missing_ok=True)
        self.guest.delete(INSTANCE_TYPES_CATALOG, self.catalog, missing_ok=True)


@pytest.fixture
def env(dvp_api, guest_api):
    e = Env(dvp_api, guest_api)
    yield e
    e.close()


def entry(name: str, **extra) -> dict:
    return {"name": name, "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Retain",
            "allowVolumeExpansion": True, **extra}


def test_first_run_change_and_vanished_class(env):
    legacy = f"{env.p}-legacy"
    installer = {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "layout": "Standard",
                 "zones": ["zone-a"], "storageClasses": [{"name": legacy, "isEnabled": True, "isDefault": True}]}
    env.guest.create(SECRET, {"metadata": {"name": "d8-provider-cluster-configuration"}, "data": {
        "cloud-provider-discovery-data.json": base64.b64encode(json.dumps(installer).encode()).decode()}}, env.gns)
    fast = env.sc("fast", **{DEFAULT: "true"})
    slow = env.sc("slow")
    hidden = env.sc("hidden", **{SKIP: "true"})

    # first run: installer data merged with DVP's classes; default from the parent's annotation
    result = env.disc.run_once()
    assert result.dvp_error is None and result.discovery_written and result.write_error is None
    data = env.data()
    assert data["layout"] == "Standard" and data["zones"] == ["zone-a"] and data["kind"] == "DVPCloudDiscoveryData"
    assert env.mine() == [entry(fast, isEnabled=True, isDefault=True), entry(hidden),
                          {"name": legacy, "isEnabled": True}, entry(slow, isEnabled=True)]
    names = [e["name"] for e in data["storageClasses"]]
    dvp_names = {o["metadata"]["name"] for o in env.dvp.list_all(STORAGE_CLASS).items}
    assert names == sorted(names) and dvp_names <= set(names)
    assert env.secret()["metadata"]["labels"] == {"heritage": "deckhouse", "module": "cloud-provider-dvp"}
    assert env.conditions() == [{"name": "DVPAPIReachable", "ok": True, "message": "the DVP API answers"},
                                {"name": "DiscoveryDataValid", "ok": True, "message": "the installer's data parses"}]
    assert env.disc.liveness() is None and env.disc.readiness() is None
    assert env.sample("cloud_data_discovery_cloud_request_error", {"type": "discovery_data"}) == 0
    assert env.sample("cloud_data_discovery_last_success_timestamp_seconds") > 0

    # nothing changed: no write at all
    rv = env.secret()["metadata"]["resourceVersion"]
    assert env.disc.run_once().discovery_written is False
    assert env.secret()["metadata"]["resourceVersion"] == rv

    # change in DVP: the default moves
    env.dvp.patch(STORAGE_CLASS, fast, {"metadata": {"annotations": {DEFAULT: None}}})
    env.dvp.patch(STORAGE_CLASS, slow, {"metadata": {"annotations": {DEFAULT: "True"}}})
    assert env.disc.run_once().discovery_written
    assert env.mine() == [entry(fast, isEnabled=True), entry(hidden), {"name": legacy, "isEnabled": True},
                          entry(slow, isEnabled=True, isDefault=True)]

    # vanished class: kept as it was (a guest StorageClass may still use it), but never default
    env.dvp.delete(STORAGE_CLASS, slow)
    assert env.disc.run_once().discovery_written
    assert env.mine() == [entry(fast, isEnabled=True), entry(hidden), {"name": legacy, "isEnabled": True},
                          entry(slow, isEnabled=True)]

    # the installer's data changes (converge): its fields follow, the classes seen so far stay
    installer["zones"] = ["zone-a", "zone-b"]
    env.guest.patch(SECRET, "d8-provider-cluster-configuration", {"data": {
        "cloud-provider-discovery-data.json": base64.b64encode(json.dumps(installer).encode()).decode()}}, env.gns)
    assert env.disc.run_once().discovery_written
    assert env.data()["zones"] == ["zone-a", "zone-b"]
    assert [e["name"] for e in env.mine()] == [fast, hidden, legacy, slow]


def test_invalid_installer_data_keeps_last_good_secret(env):
    env.sc("x")
    env.disc.run_once()
    before = env.secret()
    env.guest.create(SECRET, {"metadata": {"name": "d8-provider-cluster-configuration"}, "data": {
        "cloud-provider-discovery-data.json": base64.b64encode(b"{not json").decode()}}, env.gns)
    result = env.disc.run_once()
    assert not result.discovery_written and result.write_error is None
    assert env.secret()["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert env.conditions()[1] == {
        "name": "DiscoveryDataValid", "ok": False,
        "message": f'Secret "{env.gns}/d8-provider-cluster-configuration": discovery data is not JSON: '
                   "Expecting property name enclosed in double quotes"}
    assert env.sample("cloud_data_discovery_cloud_request_error", {"type": "discovery_data"}) == 1
    assert env.disc.liveness() is None  # a restart would not fix the installer's data


def test_periodic_rounds_until_stopped(env):
    import threading

    env.sc("loop")
    stop = threading.Event()
    thread = threading.Thread(target=env.disc.run, args=(0.05, stop), daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while env.disc.rounds < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    thread.join(10)
    assert not thread.is_alive() and env.disc.rounds >= 3
    assert env.mine()[0]["name"] == f"{env.p}-loop"


def test_dvp_unreachable_keeps_secret_and_reports(env):
    env.sc("one", **{DEFAULT: "true"})
    health = HealthServer("127.0.0.1:0", env.metrics.registry)
    health.add_liveness("discovery-write", env.disc.liveness)
    health.add_readiness("dvp-api", env.disc.readiness)
    health.start()
    try:
        env.disc.run_once()
        before = env.secret()
        assert get(health, "/readyz")[0] == 200

        env.down = True
        result = env.disc.run_once()
        assert result.dvp_error and not result.discovery_written
        after = env.secret()
        assert after["data"] == before["data"]
        assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
        [c] = env.conditions()
        assert c["name"] == "DVPAPIReachable" and c["ok"] is False
        assert c["message"].startswith("the DVP API is unreachable: ")
        code, text = get(health, "/readyz")
        assert code == 500 and "[-]dvp-api failed" in text
        assert get(health, "/healthz")[0] == 200  # restarting would not bring DVP back
        for kind in ("conditions", "discovery_data", "instance_types", "disks_meta"):
            assert env.sample("cloud_data_discovery_cloud_request_error", {"type": kind}) == 1
        _, metrics = get(health, "/metrics")
        assert 'cloud_data_discovery_cloud_conditions_error{message="the DVP API is unreachable' in metrics

        env.down = False
        env.disc.run_once()
        assert get(health, "/readyz")[0] == 200
        assert env.conditions()[0]["ok"] is True
        assert env.sample("cloud_data_discovery_cloud_request_error", {"type": "discovery_data"}) == 0
    finally:
        health.stop()


def test_orphaned_disks_instance_types_and_quota(env, dvp_api):
    seed.storage_class(env.dvp, "sim-fast")
    seed.vm_class(env.dvp, "generic")
    ours = {L.CLUSTER_UUID: env.uuid, L.COMPONENT: L.CSI, L.MANAGED_BY: L.MANAGED_BY_VALUE}
    for name in ("boot", "hot", "pv", "lost"):
        body = disk(name)
        body["metadata"]["labels"] = ours
        env.dvp.create(VIRTUAL_DISK, body, env.ns)
    foreign = disk("foreign")
    foreign["metadata"]["labels"] = {**ours, L.CLUSTER_UUID: "another"}
    env.dvp.create(VIRTUAL_DISK, foreign, env.ns)
    env.dvp.create(VIRTUAL_MACHINE, vm("vm-1", ["boot"]), env.ns)
    env.dvp.create(VMBDA, vmbda("bda-1", "vm-1", "hot"), env.ns)
    pv_name = f"{env.p}-pv"
    env.guest.create(PERSISTENT_VOLUME, {"metadata": {"name": pv_name}, "spec": {
        "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
        "csi": {"driver": "csi.dvp.deckhouse.io", "volumeHandle": "pv"}}})
    quota = env.dvp.create(RESOURCE_QUOTA, {"metadata": {"name": "project"}, "spec": {"hard": {
        "requests.storage": "100Gi", "count/virtualdisks.virtualization.deckhouse.io": "50"}}}, env.ns)
    quota["status"] = {"hard": quota["spec"]["hard"], "used": {
        "requests.storage": "95Gi", "count/virtualdisks.virtualization.deckhouse.io": "5"}}
    env.dvp.update_status(RESOURCE_QUOTA, quota, env.ns)
    try:
        with Simulator(dvp_api.client(), SimConfig(namespace=env.ns, watch_timeout=1, default_latency=0.02)):
            result = env.disc.run_once()
    finally:
        env.guest.delete(PERSISTENT_VOLUME, pv_name, missing_ok=True)
    assert [d.name for d in result.orphans] == ["lost"]
    lost = env.dvp.get(VIRTUAL_DISK, "lost", env.ns)
    assert env.sample("cloud_data_discovery_orphaned_disk_info", {"id": lost["metadata"]["uid"], "name": "lost"}) == 1
    exported = [s for s in env.metrics.orphaned.collect()[0].samples]
    assert len(exported) == 1
    assert env.sample("cloud_data_discovery_instance_type_info", {
        "virtual_machine_class": "generic", "policy": "0", "cores_min": "1", "cores_max": "64", "memory_min": "",
        "memory_max": "", "core_fractions": "5,10,20,50,100"}) == 1
    by_name = {c["name"]: c for c in env.conditions()}
    assert by_name["DVPQuota:project:requests.storage"] == {
        "name": "DVPQuota:project:requests.storage", "ok": False,
        "message": 'ResourceQuota "project": requests.storage used 95Gi of 100Gi (95%, near its limit)'}
    assert by_name["DVPQuota:project:count/virtualdisks.virtualization.deckhouse.io"]["ok"] is True
    assert env.sample("cloud_data_discovery_cloud_conditions_error", {
        "name": "DVPQuota:project:requests.storage",
        "message": 'ResourceQuota "project": requests.storage used 95Gi of 100Gi (95%, near its limit)'}) == 1

    # the disk is taken by a PV later: no longer reported
    env.dvp.delete(VIRTUAL_DISK, "lost", env.ns)
    assert env.disc.run_once().orphans == []
    assert env.metrics.orphaned.collect()[0].samples == []


def test_write_gives_up_after_bounded_backoff(env, guest_api):
    env.sc("w")
    failing = guest_api.client(retry=NO_RETRY, faults=lambda req: Fault(status=503) if req.verb in (
        "create", "update") else None)
    env.guest_io.client = failing
    result = env.disc.run_once()
    assert result.write_error.startswith(
        f'Secret "{env.gns}/d8-cloud-provider-discovery-data": gave up after 3 attempts')
    # the InstanceTypesCatalog, the discovery Secret, then the conditions ConfigMap
    assert env.sleeps == [0.01, 0.02, 0.01, 0.02, 0.01, 0.02]
    assert env.disc.liveness() == result.write_error
    assert env.sample("cloud_data_discovery_update_resource_error") == 1
    env.guest_io.client = env.guest_api.client()
    assert env.disc.run_once().write_error is None and env.disc.liveness() is None
    assert env.sample("cloud_data_discovery_update_resource_error") == 0


def get(health: HealthServer | str, path: str) -> tuple[int, str]:
    address = health if isinstance(health, str) else health.address
    try:
        with urllib.request.urlopen(f"http://{address}{path}", timeout=5) as resp:  # noqa: S310
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_entry_point_writes_kube_system(dvp_api, guest_api, tmp_path):
    """python -m cloud_data_discoverer as the Deployment runs it (flags, env), on kube-system."""
    guest = guest_api.client()
    name = f"cddmain{secrets.token_hex(3)}"
    guest.delete(SECRET, "d8-cloud-provider-discovery-data", "kube-system", missing_ok=True)
    dvp = dvp_api.client()
    dvp.create(STORAGE_CLASS, {"metadata": {"name": name}, "provisioner": "x"})
    kubeconfig = tmp_path / "guest.kubeconfig"
    kubeconfig.write_text(guest_api.kubeconfig())
    port = free_port()
    env = {**os.environ, "DVP_KUBERNETES_CONFIG_BASE64": base64.b64encode(dvp_api.kubeconfig().encode()).decode(),
           "DVP_NAMESPACE": dvp_api.create_namespace("cdd"), "CLUSTER_UUID": str(uuid.uuid4())}
    proc = subprocess.Popen([sys.executable, "-m", "cloud_data_discoverer", "--discovery-period=1s",
                             f"--listen-address=127.0.0.1:{port}", "--log-level=Info",
                             f"--kubeconfig={kubeconfig}"], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline, data = time.monotonic() + 30, None
        while time.monotonic() < deadline and data is None:
            time.sleep(0.2)
            assert proc.poll() is None, proc.stderr.read()
            try:
                secret = guest.get(SECRET, "d8-cloud-provider-discovery-data", "kube-system")
                data = json.loads(base64.b64decode(secret["data"]["discovery-data.json"]))
            except Exception:  # noqa: BLE001 - not there yet
                data = None
        assert data is not None, "discovery Secret never written"
        assert {"name": name, "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete",
                "isEnabled": True} in data["storageClasses"]
        # the Secret is written mid-round; readiness follows at the round's end
        deadline = time.monotonic() + 10
        while get(f"127.0.0.1:{port}", "/readyz")[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert get(f"127.0.0.1:{port}", "/readyz") == (200, "[+]discovery-write ok\n[+]dvp-api ok\nok\n")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:  # noqa: S310
            assert 'cloud_data_discovery_cloud_request_error{type="discovery_data"} 0.0' in resp.read().decode()
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=15)
        dvp.delete(STORAGE_CLASS, name, missing_ok=True)
    assert proc.returncode == 0, err
    assert dvp_api.token not in out + err and guest_api.token not in out + err


def test_bad_settings_exit_2_with_one_line():
    proc = subprocess.run([sys.executable, "-m", "cloud_data_discoverer", "--discovery-period=soon"],
                          env={**os.environ, "DVP_KUBERNETES_CONFIG_BASE64": "x", "DVP_NAMESPACE": "n",
                               "CLUSTER_UUID": "u"}, capture_output=True, text=True, cwd=ROOT, timeout=30)
    assert proc.returncode == 2
    assert proc.stderr == ("cloud_data_discoverer: --discovery-period: 'soon' is not a duration "
                           "(e.g. 30s, 5m, 1h)\n")
    proc = subprocess.run([sys.executable, "-m", "cloud_data_discoverer"], env={
        k: v for k, v in os.environ.items() if k not in ("DVP_KUBERNETES_CONFIG_BASE64", "DVP_NAMESPACE",
                                                          "CLUSTER_UUID")}, capture_output=True, text=True, cwd=ROOT,
        timeout=30)
    assert proc.returncode == 2
    assert proc.stderr == ("cloud_data_discoverer: DVP settings: DVP_KUBERNETES_CONFIG_BASE64, DVP_NAMESPACE, "
                           "CLUSTER_UUID not set\n")
