# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dvp_common against a real kube-apiserver (testkit/harness) holding the virtualization CRDs.

What the fake API server of the unit tests cannot vouch for: real error bodies, CRD schema and CEL validation
of the bodies we build, uid preconditions on patches, quota refusals, 410 on stale watches, Leases, RBAC.
"""

from __future__ import annotations

import threading
import time

import pytest
from dvp_common.dvp import (
    Attachments,
    CloudInitSecrets,
    DVPConnection,
    IPAddresses,
    NotOurs,
    Operations,
    Services,
    Snapshots,
    VirtualDisks,
)
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import VIRTUAL_DISK, VIRTUAL_MACHINE
from dvp_common.kube import (
    NO_RETRY,
    AlreadyExists,
    ApiError,
    Conflict,
    Forbidden,
    Invalid,
    KubeClient,
    NotFound,
    QuotaExceeded,
    RandomFaults,
    RetryPolicy,
    Unauthorized,
)
from dvp_common.kube.resources import CONFIG_MAP, LEASE, SECRET, Resource
from dvp_common.runtime import Informer, LeaderElector
from dvpc_kit import OnWatch

UUID = "7d9e4c1a-0000-4000-8000-00000000c0de"
RESOURCE_QUOTA = Resource("", "v1", "resourcequotas", "ResourceQuota")


@pytest.fixture
def ns(dvp_api):
    return dvp_api.create_namespace("dvpc")


@pytest.fixture
def kube(dvp_api):
    client = dvp_api.client(retry=RetryPolicy(base=0.05, cap=0.5))
    yield client
    client.close()


@pytest.fixture
def conn(dvp_api, ns, kubeconfig_for):
    connection = DVPConnection.from_kubeconfig(kubeconfig_for(dvp_api), ns, UUID,
                                               retry=RetryPolicy(base=0.05, cap=0.5))
    yield connection
    connection.close()


def cm(name, **data):
    return {"metadata": {"name": name}, "data": data}


def test_verbs_and_error_mapping(kube, ns):
    created = kube.create(CONFIG_MAP, cm("a", k="v"), ns)
    with pytest.raises(AlreadyExists) as info:
        kube.create(CONFIG_MAP, cm("a"), ns)
    assert (info.value.status, info.value.reason, str(info.value).startswith(f'create ConfigMap "{ns}/a": 409 ')) == (
        409, "AlreadyExists", True)
    assert kube.create(CONFIG_MAP, cm("a"), ns, get_existing=True)["metadata"]["uid"] == created["metadata"]["uid"]
    current = kube.get(CONFIG_MAP, "a", ns)
    kube.replace(CONFIG_MAP, {**current, "data": {"k": "v2"}}, ns)
    with pytest.raises(Conflict) as info:
        kube.replace(CONFIG_MAP, {**current, "data": {"k": "stale"}}, ns)
    assert type(info.value) is Conflict
    assert kube.patch(CONFIG_MAP, "a", {"data": {"m": "1"}}, ns)["data"] == {"k": "v2", "m": "1"}
    assert kube.patch(CONFIG_MAP, "a", [{"op": "remove", "path": "/data/m"}], ns, patch_type="json")["data"] == {
        "k": "v2"}
    assert kube.patch(CONFIG_MAP, "a", {"data": {"s": "1"}}, ns, patch_type="strategic")["data"]["s"] == "1"
    applied = kube.patch(CONFIG_MAP, "a", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
                                           "data": {"owned": "yes"}}, ns, patch_type="apply",
                         field_manager="bench", force=True)
    assert applied["data"]["owned"] == "yes"
    assert any(m["manager"] == "bench" for m in applied["metadata"]["managedFields"])
    with pytest.raises(Conflict):
        kube.delete(CONFIG_MAP, "a", ns, preconditions={"uid": "00000000-0000-0000-0000-000000000000"})
    kube.delete(CONFIG_MAP, "a", ns, preconditions={"uid": created["metadata"]["uid"]})
    with pytest.raises(NotFound) as info:
        kube.get(CONFIG_MAP, "a", ns)
    assert str(info.value) == f'get ConfigMap "{ns}/a": 404 NotFound: configmaps "a" not found'
    assert kube.delete(CONFIG_MAP, "a", ns, missing_ok=True) is None
    with pytest.raises(Invalid) as info:
        kube.create(CONFIG_MAP, cm("Not_A_DNS_Name"), ns)
    assert info.value.status == 422 and "\n" not in str(info.value)


def test_crd_validation_and_unsupported_patch(kube, ns):
    with pytest.raises(Invalid, match="a Static address needs staticIP"):
        kube.create(Resource("virtualization.deckhouse.io", "v1alpha2", "virtualmachineipaddresses",
                             "VirtualMachineIPAddress"), {"metadata": {"name": "ip"}, "spec": {"type": "Static"}}, ns)
    kube.create(VIRTUAL_DISK, {"metadata": {"name": "d"}, "spec": {"persistentVolumeClaim": {"size": "1Gi"}}}, ns)
    with pytest.raises(ApiError) as info:
        kube.patch(VIRTUAL_DISK, "d", {"spec": {}}, ns, patch_type="strategic")
    assert info.value.status == 415


def test_unauthorized(dvp_api):
    bad = KubeClient.from_url(dvp_api.url, token="not-a-token", ca_data=dvp_api.ca_pem, retry=NO_RETRY)  # noqa: S106
    with pytest.raises(Unauthorized) as info:
        bad.list(CONFIG_MAP, "default")
    assert str(info.value) == 'list ConfigMap in namespace "default": 401 Unauthorized: Unauthorized'


def test_forbidden(rbac_api):
    ns = rbac_api.create_namespace("rbac")
    token = rbac_api.service_account_token(ns, "nobody")
    client = rbac_api.client(token=token, retry=NO_RETRY)
    with pytest.raises(Forbidden) as info:
        client.get(SECRET, "anything", ns)
    assert token not in str(info.value) and info.value.status == 403


def test_quota_refusal_is_quota_exceeded(kube, ns):
    quota = kube.create(RESOURCE_QUOTA, {"metadata": {"name": "q"}, "spec": {"hard": {"count/configmaps": "1"}}}, ns)
    # No quota controller runs in the harness: publish the usage it would have computed.
    quota["status"] = {"hard": {"count/configmaps": "1"}, "used": {"count/configmaps": "1"}}
    kube.update_status(RESOURCE_QUOTA, quota, ns)
    # The quota admission plugin reads quotas from its own informer: until the usage reaches it, a create passes.
    # Each such create is taken back and tried again, a bounded number of times with backoff.
    for attempt in range(40):
        try:
            kube.create(CONFIG_MAP, cm(f"over-{attempt}"), ns)
        except QuotaExceeded as exc:
            refusal = exc
            break
        kube.delete(CONFIG_MAP, f"over-{attempt}", ns)
        time.sleep(min(0.05 * 2 ** attempt, 0.5))
    else:
        pytest.fail("the quota admission never saw the published usage")
    assert refusal.status == 403 and "exceeded quota" in refusal.message


def test_real_watch_events_and_close_from_another_thread(kube, ns):
    # (410 Gone needs an etcd compaction, which a fresh server does not do on demand: the fake server covers it.)
    rv = kube.list(CONFIG_MAP, ns).resource_version
    kube.create(CONFIG_MAP, cm("w", v="1"), ns)
    kube.patch(CONFIG_MAP, "w", {"data": {"v": "2"}}, ns)
    kube.delete(CONFIG_MAP, "w", ns)
    watch = kube.watch(CONFIG_MAP, ns, resource_version=rv, timeout_seconds=60)
    seen = []
    for event in watch:
        seen.append((event.type, event.name, event.object["kind"], event.object.get("data")))
        if len(seen) == 3:
            break
    assert seen == [("ADDED", "w", "ConfigMap", {"v": "1"}), ("MODIFIED", "w", "ConfigMap", {"v": "2"}),
                    ("DELETED", "w", "ConfigMap", {"v": "2"})]
    quiet = kube.watch(CONFIG_MAP, ns, resource_version=kube.list(CONFIG_MAP, ns).resource_version,
                       timeout_seconds=60)
    threading.Timer(0.5, quiet.close).start()
    started = time.monotonic()
    assert list(quiet) == []
    assert time.monotonic() - started < 10


def test_disk_wait_is_one_list_and_one_watch(conn, kube, ns):
    disks = VirtualDisks(conn, L.CSI)
    disk = disks.create(disks.new("pvc-real", "1Gi", "local"))

    def dvp_marks_ready():
        kube.update_status(VIRTUAL_DISK, {**kube.get(VIRTUAL_DISK, "pvc-real", ns),
                                          "status": {"phase": "Ready", "capacity": "1Gi"}}, ns)

    conn.client.transport.faults = OnWatch(dvp_marks_ready)
    before = conn.client.metrics.snapshot()
    ready = disks.wait_usable("pvc-real", 30)
    after = conn.client.metrics.snapshot()
    assert ready["status"] == {"phase": "Ready", "capacity": "1Gi"}
    assert {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)} == {
        "list virtualdisks.virtualization.deckhouse.io": 1, "watch virtualdisks.virtualization.deckhouse.io": 1}
    assert disk["metadata"]["labels"][L.COMPONENT] == "csi"


def test_uid_guard_refuses_a_same_named_replacement(conn, kube, ns):
    disks = VirtualDisks(conn, L.CSI)
    old = disks.create(disks.new("pvc-uid", "1Gi", "local"))
    kube.delete(VIRTUAL_DISK, "pvc-uid", ns)
    disks.create(disks.new("pvc-uid", "1Gi", "local"))
    with pytest.raises(Conflict) as info:
        disks.patch("pvc-uid", {"spec": {"persistentVolumeClaim": {"size": "2Gi"}}}, current=old)
    assert str(info.value) == (f'patch VirtualDisk "{ns}/pvc-uid": 409 Conflict: replaced since it was read '
                               f'(uid {old["metadata"]["uid"]} is gone)')
    assert kube.get(VIRTUAL_DISK, "pvc-uid", ns)["spec"]["persistentVolumeClaim"]["size"] == "1Gi"


@pytest.mark.parametrize("kind", ["disk", "snapshot"])
def test_delete_of_the_object_read_refuses_a_same_named_replacement(conn, kube, ns, kind):
    objs = VirtualDisks(conn, L.CSI) if kind == "disk" else Snapshots(conn, L.CSI)
    body = (lambda: objs.new("gone", "1Gi", "local")) if kind == "disk" else (lambda: objs.new("gone", "pvc-1"))
    old = objs.create(body())
    kube.delete(objs.resource, "gone", ns)
    new = objs.create(body())
    with pytest.raises(Conflict, match="the UID in the precondition .* does not match the UID in record"):
        objs.delete("gone", current=old)
    assert kube.get(objs.resource, "gone", ns)["metadata"]["uid"] == new["metadata"]["uid"]
    assert objs.delete("gone", current=new) is True
    assert objs.delete("gone", current=new) is False  # already gone: nothing to delete


def test_every_body_we_build_passes_the_real_crds(conn, kube, ns):
    vm = kube.create(VIRTUAL_MACHINE, {"metadata": {"name": "worker-0", "labels": {
        L.CLUSTER_UUID: UUID, L.COMPONENT: L.CAPDVP, L.HOSTNAME: "worker-0"}}, "spec": {
        "virtualMachineClassName": "generic", "cpu": {"cores": 1}, "memory": {"size": "1Gi"},
        "blockDeviceRefs": [{"kind": "VirtualDisk", "name": "worker-0-boot"}]}}, ns)
    bda = Attachments(conn, L.CSI).attach("pvc-1", vm["metadata"]["name"], "worker-0")
    assert bda["metadata"]["name"] == "vmbda-pvc-1-worker-0"
    snaps = Snapshots(conn, L.CSI)
    assert snaps.create(snaps.new("snap", "pvc-1"))["spec"] == {"virtualDiskName": "pvc-1", "requiredConsistency": True}
    assert Operations(conn, L.CAPDVP).request(vm, "Stop", 1, force=True)["spec"]["force"] is True
    ips = IPAddresses(conn, L.CAPDVP)
    assert ips.create(ips.new("master-0", "10.10.0.5"))["spec"] == {"type": "Static", "staticIP": "10.10.0.5"}
    svcs = Services(conn, L.CCM)
    spec = {"type": "LoadBalancer", "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 30080}],
            "selector": {"dvp.deckhouse.io/lb": "loadbalancer", "stale": "x"}}
    svcs.ensure("lb", spec, annotations={"old": "1"})
    out = svcs.ensure("lb", {**spec, "selector": {"dvp.deckhouse.io/lb": "loadbalancer"}}, annotations={"new": "1"})
    assert out["spec"]["selector"] == {"dvp.deckhouse.io/lb": "loadbalancer"}
    assert out["metadata"]["annotations"] == {"new": "1"}
    secrets = CloudInitSecrets(conn, L.CAPDVP)
    first = secrets.ensure("cloud-init-worker-0", "#cloud-config\n", owner=vm)
    second = secrets.ensure("cloud-init-worker-0", "#cloud-config\nruncmd: []\n", owner=vm)
    assert second["metadata"]["uid"] != first["metadata"]["uid"] and second["immutable"] is True
    kube.create(SECRET, {"metadata": {"name": "users-own"}, "stringData": {"k": "v"}}, ns)
    with pytest.raises(NotOurs):
        secrets.ensure("users-own", "x")


def test_leader_election_on_a_real_lease(dvp_api, ns, fake_time):
    events = []
    clients = [dvp_api.client(retry=NO_RETRY) for _ in range(2)]
    a, b = (LeaderElector(c, "lead", ns, who, clock=fake_time.clock, on_started=lambda w=who: events.append(w))
            for c, who in zip(clients, ("a", "b"), strict=True))
    assert a.tick() and not b.tick()
    a.release()
    assert b.tick()
    assert events == ["a", "b"]
    assert clients[0].get(LEASE, "lead", ns)["spec"]["holderIdentity"] == "b"


def test_informer_and_faults_on_a_real_api(dvp_api, kube, ns):
    faults = RandomFaults(rate=0.2, statuses=(500, 503), watch_drop_rate=0.5, seed=3)
    noisy = dvp_api.client(faults=faults, retry=RetryPolicy(attempts=8, base=0.01, cap=0.1))
    informer = Informer(noisy, CONFIG_MAP, ns, watch_timeout=2)
    stop = threading.Event()
    thread = threading.Thread(target=informer.run, args=(stop,))
    thread.start()
    try:
        assert informer.synced.wait(30)
        for i in range(10):
            noisy.create(CONFIG_MAP, cm(f"c{i}", v="1"), ns, get_existing=True)
            noisy.patch(CONFIG_MAP, f"c{i}", {"data": {"v": "2"}}, ns)
        waited = [noisy.wait_for(CONFIG_MAP, f"c{i}", lambda o: o and o["data"]["v"] == "2", 30, ns)
                  for i in range(10)]
        assert all(o["data"]["v"] == "2" for o in waited)
        for _ in range(200):
            if all((informer.get(f"{ns}/c{i}") or {}).get("data", {}).get("v") == "2" for i in range(10)):
                break
            stop.wait(0.05)
        assert sorted(informer.keys()) == sorted(f"{ns}/c{i}" for i in range(10))
        assert all(informer.get(f"{ns}/c{i}")["data"]["v"] == "2" for i in range(10))
        assert faults.injected > 0
    finally:
        stop.set()
        thread.join(10)
        noisy.close()
