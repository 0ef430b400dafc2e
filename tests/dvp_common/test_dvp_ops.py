# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed DVP operations against the fake API server; DVP's controllers are played by direct writes."""

from __future__ import annotations

import base64

import pytest
import yaml
from dvp_common.dvp import (
    AttachmentFailed,
    Attachments,
    CloudInitSecrets,
    DuplicateObjects,
    DVPConnection,
    DVPSettings,
    Images,
    IPAddresses,
    NotOurs,
    Operations,
    ProvisioningFailed,
    QuotaExceeded,
    Services,
    Snapshots,
    StorageClasses,
    VirtualDisks,
    VirtualMachineClasses,
    VirtualMachines,
    VMFailed,
)
from dvp_common.dvp import labels as L
from dvp_common.dvp import resources as r
from dvp_common.kube import ConfigError, Conflict, RetryPolicy
from dvp_common.kube.resources import SECRET, SERVICE, STORAGE_CLASS
from dvpc_kit import TOKEN, OnWatch

UUID = "5c3f0a52-1111-4222-8333-444455556666"
NS = "proj"
VD, VM, VMBDA = r.VIRTUAL_DISK, r.VIRTUAL_MACHINE, r.VIRTUAL_MACHINE_BLOCK_DEVICE_ATTACHMENT


def kubeconfig(url):
    return yaml.safe_dump({"current-context": "c",
                           "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
                           "clusters": [{"name": "c", "cluster": {"server": url}}],
                           "users": [{"name": "u", "user": {"token": TOKEN}}]})


@pytest.fixture
def conn(api):
    # The fake API speaks plain HTTP, which the kubeconfig rule refuses; the settings path is tested below.
    api.max_watch_seconds = 5
    return DVPConnection.from_token(api.url, TOKEN, None, NS, UUID, retry=RetryPolicy(base=0.01, cap=0.05))


def when_watching(conn, api, coll, obj):
    """DVP's controller writes `obj` once the wait under test is watching."""
    conn.client.transport.faults = OnWatch(lambda: api.put(coll, obj))


def with_status(obj, **status):
    return {**obj, "status": status}


def foreign(name, coll, api, uuid="other-cluster", component="csi", extra=None):
    return api.put(coll, {"metadata": {"name": name, "namespace": NS, "labels": {
        L.CLUSTER_UUID: uuid, L.COMPONENT: component, **(extra or {})}}, "spec": {"keep": "me"}})


def test_settings_from_env():
    with pytest.raises(ConfigError, match="DVP settings: DVP_NAMESPACE, CLUSTER_UUID not set"):
        DVPSettings.from_env({"DVP_KUBERNETES_CONFIG_BASE64": "x"})
    with pytest.raises(ConfigError, match="^DVP settings: DVP_KUBERNETES_CONFIG_BASE64 is not base64 of UTF-8 text$"):
        DVPSettings.from_env({"DVP_KUBERNETES_CONFIG_BASE64": kubeconfig("https://h"), "DVP_NAMESPACE": NS,
                              "CLUSTER_UUID": UUID})
    text = kubeconfig("https://dvp.example:6443")
    settings = DVPSettings.from_env({"DVP_KUBERNETES_CONFIG_BASE64": base64.b64encode(text.encode()).decode(),
                                     "DVP_NAMESPACE": NS, "CLUSTER_UUID": UUID})
    assert settings.kubeconfig == text and TOKEN not in repr(settings)
    conn = DVPConnection.from_settings(settings)
    assert (conn.client.transport.credentials.host, conn.namespace) == ("https://dvp.example:6443", NS)


def test_disk_create_is_idempotent_labelled_and_waits_until_ready(conn, api):
    disks = VirtualDisks(conn, L.CSI)
    body = disks.new("pvc-1", "10Gi", "replicated")
    created = disks.create(body)
    assert created["metadata"]["namespace"] == NS
    assert created["metadata"]["labels"] == {
        "virtualDiskName": "pvc-1", "deckhouse.io/managed-by": "deckhouse",
        "dvp.deckhouse.io/cluster-uuid": UUID, "dvp.deckhouse.io/component": "csi"}
    assert created["spec"] == {"persistentVolumeClaim": {"size": "10Gi", "storageClassName": "replicated"}}
    assert disks.create(disks.new("pvc-1", "10Gi", "replicated"))["metadata"]["uid"] == created["metadata"]["uid"]
    when_watching(conn, api, VD, with_status(created, phase="Ready", capacity="10Gi"))
    ready = disks.wait_usable("pvc-1", 10)
    assert ready["status"]["phase"] == "Ready" and disks.find("pvc-1")["metadata"]["name"] == "pvc-1"
    assert conn.client.metrics.total("watch") == 1


def test_disk_wait_for_first_consumer_is_usable(conn, api):
    disks = VirtualDisks(conn, L.CSI)
    created = disks.create(disks.new("pvc-w", "1Gi", "local"))
    api.put(VD, with_status(created, phase="WaitForFirstConsumer"))
    assert disks.wait_usable("pvc-w", 5)["status"]["phase"] == "WaitForFirstConsumer"


@pytest.mark.parametrize(("status", "error", "text"), [
    ({"phase": "Pending", "conditions": [{"type": "Ready", "status": "False", "reason": "QuotaExceeded",
                                          "message": "exceeded quota: storage"}]},
     QuotaExceeded, 'wait VirtualDisk "proj/pvc-q": 403 QuotaExceeded: exceeded quota: storage'),
    ({"phase": "Provisioning", "conditions": [{"type": "Ready", "status": "False", "reason": "ProvisioningFailed",
                                               "message": "no space"}]},
     ProvisioningFailed, 'VirtualDisk "pvc-q": ProvisioningFailed: no space'),
    ({"phase": "Failed"}, ProvisioningFailed, 'VirtualDisk "pvc-q": Failed'),
])
def test_disk_terminal_states_end_the_wait(conn, api, status, error, text):
    disks = VirtualDisks(conn, L.CSI)
    created = disks.create(disks.new("pvc-q", "1Gi", "local"))
    when_watching(conn, api, VD, with_status(created, **status))
    with pytest.raises(error) as info:
        disks.wait_usable("pvc-q", 10)
    assert str(info.value) == text


def test_foreign_disks_are_invisible_and_untouched(conn, api):
    disks = VirtualDisks(conn, L.CSI)
    other = foreign("pvc-x", VD, api, extra={L.VIRTUAL_DISK_NAME: "pvc-x"})
    boot = foreign("worker-0-boot", VD, api, uuid=UUID, component="capdvp",
                   extra={L.VIRTUAL_DISK_NAME: "worker-0-boot"})
    assert disks.find("pvc-x") is None and disks.find("worker-0-boot") is None
    for name in ("pvc-x", "worker-0-boot"):
        with pytest.raises(NotOurs):
            disks.delete(name)
        with pytest.raises(NotOurs):
            disks.resize(name, "100Gi")
        with pytest.raises(NotOurs):
            disks.create(disks.new(name, "1Gi", "x"))
    assert api.peek(VD, "pvc-x", NS)["metadata"]["resourceVersion"] == other["metadata"]["resourceVersion"]
    assert api.peek(VD, "worker-0-boot", NS)["spec"] == boot["spec"]
    assert api.count("DELETE") == 0 and api.count("PATCH") == 0


def test_disk_resize_delete_and_uid_guard(conn, api):
    disks = VirtualDisks(conn, L.CSI)
    created = disks.create(disks.new("pvc-r", "1Gi", "x"))
    assert disks.resize("pvc-r", "2Gi")["spec"]["persistentVolumeClaim"]["size"] == "2Gi"
    stale = dict(created, metadata={**created["metadata"], "uid": "old-uid"})
    with pytest.raises(Conflict):
        disks.patch("pvc-r", {"spec": {"persistentVolumeClaim": {"size": "3Gi"}}}, current=stale)
    with pytest.raises(Conflict):  # the object judged (e.g. from a cache) was replaced since: untouched
        disks.delete("pvc-r", stale)
    assert disks.get("pvc-r")["metadata"]["uid"] == created["metadata"]["uid"]
    with pytest.raises(NotOurs):  # the judged object is checked too, not only the name
        disks.delete("pvc-r", dict(created, metadata={**created["metadata"], "labels": {}}))
    assert disks.delete("pvc-r") is True
    assert disks.delete("pvc-r") is False
    disks.wait_gone("pvc-r", 1)


def test_duplicate_disks_are_an_error(conn, api):
    disks = VirtualDisks(conn, L.CSI)
    for name in ("a", "b"):
        api.put(VD, {"metadata": {"name": name, "namespace": NS, "labels": owned(L.CSI, virtualDiskName="d")}})
    with pytest.raises(DuplicateObjects, match='VirtualDisk "virtualDiskName=d": 2 objects match: a, b'):
        disks.find("d")


def owned(component, **extra):
    return {L.CLUSTER_UUID: UUID, L.COMPONENT: component, L.MANAGED_BY: "deckhouse", **extra}


def put_vm(api, name, hostname, component=L.CAPDVP, uuid=UUID, phase="Running"):
    return api.put(VM, {"metadata": {"name": name, "namespace": NS, "labels": {
        L.CLUSTER_UUID: uuid, L.COMPONENT: component, L.HOSTNAME: hostname}},
        "spec": {"blockDeviceRefs": [{"kind": "VirtualDisk", "name": f"{name}-boot"}]},
        "status": {"phase": phase, "ipAddress": "10.0.0.5"}})


def test_vms_by_hostname_and_provider_id_only_ours(conn, api):
    vms = VirtualMachines(conn, L.CCM)
    put_vm(api, "worker-0", "worker-0")
    put_vm(api, "master-0", "master-0", component=L.DHCTL)
    put_vm(api, "evil", "worker-1", uuid="other")
    put_vm(api, "csi-made", "worker-2", component=L.CSI)  # only node makers' VMs count
    assert vms.by_hostname("master-0")["metadata"]["name"] == "master-0"
    assert vms.by_hostname("worker-2") is None
    assert vms.by_hostname("worker-0")["metadata"]["name"] == "worker-0"
    assert vms.by_hostname("worker-1") is None
    assert vms.by_provider_id("dvp://worker-0")["metadata"]["name"] == "worker-0"
    assert vms.by_provider_id("dvp://evil") is None and vms.by_provider_id("dvp://missing") is None
    assert VirtualMachines.ip_address(vms.get("worker-0")) == "10.0.0.5"
    assert VirtualMachines.static_block_devices(vms.get("worker-0")) == 1
    out = vms.set_labels("worker-0", {"dvp.deckhouse.io/a1b2": "loadbalancer"})
    assert out["metadata"]["labels"]["dvp.deckhouse.io/a1b2"] == "loadbalancer"
    assert "dvp.deckhouse.io/a1b2" not in vms.set_labels("worker-0", {"dvp.deckhouse.io/a1b2": None})[
        "metadata"]["labels"]
    with pytest.raises(ValueError, match="not ours to change"):
        vms.set_labels("worker-0", {L.CLUSTER_UUID: "x"})
    with pytest.raises(NotOurs):
        vms.set_labels("evil", {"dvp.deckhouse.io/a1b2": "loadbalancer"})


def test_vm_wait_phase(conn, api):
    vms = VirtualMachines(conn, L.CAPDVP)
    vm = put_vm(api, "m", "m", phase="Starting")
    when_watching(conn, api, VM, with_status(vm, phase="Running"))
    assert vms.wait_phase("m", ["Running"], 5)["status"]["phase"] == "Running"
    when_watching(conn, api, VM, with_status(vm, phase="Degraded"))
    with pytest.raises(VMFailed, match='VirtualMachine "m": phase Degraded'):
        vms.wait_phase("m", ["Stopped"], 5, failed=["Degraded"])


def test_attach_wait_detach(conn, api):
    put_vm(api, "vm-worker-0", "worker-0")
    bdas = Attachments(conn, L.CSI)
    created = bdas.attach("pvc-1", "vm-worker-0", "worker-0")
    assert created["metadata"]["name"] == "vmbda-pvc-1-vm-worker-0"
    assert created["spec"] == {"virtualMachineName": "vm-worker-0",
                               "blockDeviceRef": {"kind": "VirtualDisk", "name": "pvc-1"}}
    assert created["metadata"]["labels"] == owned(L.CSI, virtualMachineDiskName="pvc-1",
                                                  virtualMachineName="vm-worker-0", **{L.HOSTNAME: "worker-0"})
    assert "ownerReferences" not in created["metadata"]  # the VM is another component's (see attachments.py)
    assert bdas.attach("pvc-1", "vm-worker-0", "worker-0")["metadata"]["uid"] == created["metadata"]["uid"]
    assert [a["metadata"]["name"] for a in bdas.of_disk("pvc-1")] == ["vmbda-pvc-1-vm-worker-0"]
    when_watching(conn, api, VMBDA, with_status(created, phase="Attached"))
    assert bdas.wait_attached(created["metadata"]["name"], 5)["status"]["phase"] == "Attached"
    assert bdas.detach("pvc-1", "vm-worker-0") == "vmbda-pvc-1-vm-worker-0"
    assert bdas.detach("pvc-1", "vm-worker-0") is None


def test_attachment_failure(conn, api):
    put_vm(api, "worker-0", "worker-0")
    bdas = Attachments(conn, L.CSI)
    created = bdas.attach("pvc-2", "worker-0", "worker-0")
    api.put(VMBDA, with_status(created, phase="Failed", conditions=[
        {"type": "Attached", "status": "False", "reason": "CapacityReached", "message": "16 devices"}]))
    with pytest.raises(AttachmentFailed, match="phase Failed Attached=CapacityReached: 16 devices"):
        bdas.wait_attached(created["metadata"]["name"], 5)


def test_snapshots_operations_ipaddresses(conn, api):
    snaps = Snapshots(conn, L.CSI)
    snap = snaps.create(snaps.new("snap-1", "pvc-1"))
    assert snap["spec"] == {"virtualDiskName": "pvc-1", "requiredConsistency": True}
    api.put(r.VIRTUAL_DISK_SNAPSHOT, with_status(snap, phase="Ready"))
    assert snaps.wait_ready("snap-1", 5)["status"]["phase"] == "Ready"
    ops = Operations(conn, L.CAPDVP)
    vm = {"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualMachine",
          "metadata": {"name": "worker-0", "uid": "vm-uid"}}
    op = ops.request(vm, "Stop", 3)
    # Deterministic: the same request again finds the operation it made, never a second Stop.
    assert op["metadata"]["name"] == "worker-0-stop-g3"
    assert op["spec"] == {"type": "Stop", "virtualMachineName": "worker-0"}
    assert op["metadata"]["ownerReferences"] == [{"apiVersion": "virtualization.deckhouse.io/v1alpha2",
                                                  "kind": "VirtualMachine", "name": "worker-0", "uid": "vm-uid",
                                                  "controller": True, "blockOwnerDeletion": False}]
    assert ops.request(vm, "Stop", 3)["metadata"]["uid"] == op["metadata"]["uid"]
    assert [o["metadata"]["name"] for o in ops.on_vm("worker-0")] == ["worker-0-stop-g3"]
    api.put(r.VIRTUAL_MACHINE_OPERATION, with_status(op, phase="Completed"))
    assert ops.wait_done(op["metadata"]["name"], 5)["status"]["phase"] == "Completed"
    with pytest.raises(ValueError, match="Start cannot be forced"):
        ops.request(vm, "Start", 3, force=True)
    ips = IPAddresses(conn, L.CAPDVP)
    ip = ips.create(ips.new("master-0", "10.0.0.10"))
    assert ip["spec"] == {"type": "Static", "staticIP": "10.0.0.10"}
    api.put(r.VIRTUAL_MACHINE_IP_ADDRESS, with_status(ip, phase="Bound"))
    assert ips.wait_bound("master-0", 5)["status"]["phase"] == "Bound"


def test_services_only_ours_and_wait_ingress(conn, api):
    svcs = Services(conn, L.CCM)
    spec = {"type": "LoadBalancer", "ports": [{"port": 80, "targetPort": 30080}],
            "selector": {"dvp.deckhouse.io/a1": "loadbalancer"}}
    created = svcs.ensure("a1", spec)
    assert created["spec"] == spec and created["metadata"]["labels"][L.COMPONENT] == "ccm"
    svcs.ensure("a1", {**spec, "selector": {**spec["selector"], "stale": "x"}}, annotations={"old": "1"})
    updated = svcs.ensure("a1", {**spec, "ports": [{"port": 443, "targetPort": 30443}]}, annotations={"new": "2"})
    assert updated["spec"]["ports"] == [{"port": 443, "targetPort": 30443}]
    assert updated["spec"]["selector"] == {"dvp.deckhouse.io/a1": "loadbalancer"}
    assert updated["metadata"]["annotations"] == {"new": "2"}
    api.put(SERVICE, with_status(updated, loadBalancer={"ingress": [{"ip": "192.0.2.1"}]}))
    assert svcs.wait_ingress("a1", 5)["status"]["loadBalancer"]["ingress"] == [{"ip": "192.0.2.1"}]
    foreign("a2", SERVICE, api, uuid=UUID, component="csi")
    with pytest.raises(NotOurs):
        svcs.ensure("a2", spec)
    with pytest.raises(NotOurs):
        svcs.delete("a2")


def test_cloud_init_secret(conn, api):
    secrets = CloudInitSecrets(conn, L.CAPDVP)
    vm = put_vm(api, "m", "m")
    first = secrets.ensure("cloud-init-m", "#cloud-config\n", owner=vm)
    assert (first["type"], first["immutable"], first["data"]) == (
        "provisioning.virtualization.deckhouse.io/cloud-init", True, {"userData": "I2Nsb3VkLWNvbmZpZwo="})
    assert secrets.ensure("cloud-init-m", "#cloud-config\n")["metadata"]["uid"] == first["metadata"]["uid"]
    second = secrets.ensure("cloud-init-m", "#cloud-config\nruncmd: []\n")
    assert second["metadata"]["uid"] != first["metadata"]["uid"]
    api.put(SECRET, {"metadata": {"name": "cloud-init-user", "namespace": NS}, "data": {}})
    with pytest.raises(NotOurs):
        secrets.ensure("cloud-init-user", "x")
    assert api.peek(SECRET, "cloud-init-user", NS)["data"] == {}


def test_read_only_kinds(conn, api):
    api.put(r.VIRTUAL_IMAGE,
                   {"metadata": {"name": "ubuntu", "namespace": NS}})
    api.put(r.CLUSTER_VIRTUAL_IMAGE, {"metadata": {"name": "alt"}})
    api.put(r.VIRTUAL_MACHINE_CLASS, {"metadata": {"name": "generic"}})
    api.put(STORAGE_CLASS, {"metadata": {"name": "fast", "annotations": {
        "storageclass.kubernetes.io/is-default-class": "True"}}, "volumeBindingMode": "WaitForFirstConsumer"})
    images = Images(conn)
    assert images.exists("VirtualImage", "ubuntu") and images.exists("ClusterVirtualImage", "alt")
    assert not images.exists("VirtualImage", "alt") and not images.exists("ClusterVirtualImage", "ubuntu")
    with pytest.raises(ValueError, match="kind 'VirtualDiskSnapshot' is not one of"):
        images.get("VirtualDiskSnapshot", "s")
    assert VirtualMachineClasses(conn).exists("generic") and not VirtualMachineClasses(conn).exists("x")
    scs = StorageClasses(conn)
    assert [s["metadata"]["name"] for s in scs.list()] == ["fast"]
    assert scs.is_default(scs.get("fast")) and scs.binding_mode("fast") == "WaitForFirstConsumer"


def test_services_ensure_creates_first_and_writes_nothing_when_the_live_object_matches(conn, api):
    svcs = Services(conn, L.CCM)
    spec = {"type": "LoadBalancer", "ports": [{"port": 80, "targetPort": 30080}],
            "selector": {"dvp.deckhouse.io/a1": "loadbalancer"}}
    metrics = conn.client.metrics
    metrics.reset()
    created = svcs.ensure("a3", spec)
    assert metrics.snapshot() == {"create services": 1}  # new: one request
    metrics.reset()
    # a cache that has not seen it yet: created again, found, and already as wanted
    same = svcs.ensure("a3", spec, matches=lambda live: live["spec"]["ports"] == spec["ports"])
    assert same["metadata"]["uid"] == created["metadata"]["uid"]
    assert metrics.snapshot() == {"create services": 1, "get services": 1}
    metrics.reset()
    svcs.ensure("a3", {**spec, "ports": [{"port": 443, "targetPort": 30443}]}, known=True,
                matches=lambda live: False)  # cached and different: read, then patch
    assert metrics.snapshot() == {"get services": 1, "patch services": 1}
