# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real kube-apiserver (guest_api) calls our webhooks over TLS: webhook configurations point at
https://127.0.0.1:<port> with the test CA as caBundle.

The guest API is shared by the whole session, so every webhook here is scoped to this test's namespace or to
objects carrying this test's label, and the configurations are deleted at the end.
"""

from __future__ import annotations

import base64
import secrets

import pytest
import requests
from dvp_common.admission.server import WebhookServer
from dvp_common.kube import Forbidden, KubeError, Resource
from dvp_common.kube.resources import (
    MUTATING_WEBHOOK_CONFIGURATION,
    NAMESPACE,
    PERSISTENT_VOLUME_CLAIM,
    SECRET,
    STORAGE_CLASS,
    VALIDATING_WEBHOOK_CONFIGURATION,
)
from dvp_webhooks.handlers import ROUTES
from dvp_webhooks.lookups import DVP_INSTANCE_CLASS, VOLUME_SNAPSHOT_CLASS, Lookups

from testkit.harness import pki

VOLUME_SNAPSHOT = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshots", "VolumeSnapshot")
KUBECONFIG = """apiVersion: v1
kind: Config
current-context: dvp
clusters: [{name: dvp, cluster: {server: "https://dvp.example:6443"}}]
users: [{name: sa, user: {token: abc}}]
contexts: [{name: dvp, context: {cluster: dvp, user: sa}}]
"""


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


class Env:
    def __init__(self, guest_api, tmp_path) -> None:
        self.api, self.client = guest_api, guest_api.client()
        self.tag = f"whk{secrets.token_hex(3)}"
        self.ns = guest_api.create_namespace("whk")
        self.client.patch(NAMESPACE, self.ns, {"metadata": {"labels": {"whk-test": self.tag}}})
        self.tls = pki.generate(tmp_path / "pki")
        self.lookups = Lookups(guest_api.client(), module_namespace=self.ns)
        self.servers = {mode: WebhookServer("127.0.0.1:0", routes, self.lookups, str(self.tls.serving_cert),
                                            str(self.tls.serving_key)).start() for mode, routes in ROUTES.items()}
        self.configs: list[tuple[Resource, str]] = []
        self.cluster_objects: list[tuple[Resource, str]] = []

    def hook(self, name: str, mode: str, path: str, group: str, version: str, resource: str, scope: str,
             ops: list[str], by_namespace: bool) -> dict:
        selector = {"matchLabels": {"whk-test": self.tag}}
        hook = {"name": f"{name}.{self.tag}.test.deckhouse.io", "admissionReviewVersions": ["v1"],
                "sideEffects": "None", "failurePolicy": "Fail", "timeoutSeconds": 10,
                "rules": [{"apiGroups": [group], "apiVersions": [version], "operations": ops,
                           "resources": [resource], "scope": scope}],
                "clientConfig": {"url": f"https://127.0.0.1:{self.servers[mode].port}{path}",
                                 "caBundle": b64(self.tls.ca_pem)}}
        hook["namespaceSelector" if by_namespace else "objectSelector"] = selector
        return hook

    def register(self) -> None:
        snap = "snapshot.storage.k8s.io"
        validating = {"metadata": {"name": f"{self.tag}-validation"}, "webhooks": [
            self.hook("secrets", "validation", "/validate--v1-secret", "", "v1", "secrets", "Namespaced",
                      ["CREATE", "UPDATE", "DELETE"], True),
            self.hook("ic", "validation", "/validate-deckhouse-io-v1alpha1-dvpinstanceclass", "deckhouse.io",
                      "v1alpha1", "dvpinstanceclasses", "Cluster", ["CREATE", "UPDATE", "DELETE"], False),
            self.hook("vs", "snapshot", "/validate-volumesnapshot", snap, "v1", "volumesnapshots", "Namespaced",
                      ["CREATE", "UPDATE"], True),
            self.hook("vsclass", "snapshot", "/validate-volumesnapshotclass", snap, "v1", "volumesnapshotclasses",
                      "Cluster", ["CREATE", "UPDATE"], False)]}
        mutating = {"metadata": {"name": f"{self.tag}-mutation"}, "webhooks": [
            {**self.hook("vs-mutate", "snapshot", "/volume-snapshot-mutate", snap, "v1", "volumesnapshots",
                         "Namespaced", ["CREATE"], True), "reinvocationPolicy": "Never"}]}
        self.client.create(VALIDATING_WEBHOOK_CONFIGURATION, validating)
        self.configs.append((VALIDATING_WEBHOOK_CONFIGURATION, validating["metadata"]["name"]))
        self.client.create(MUTATING_WEBHOOK_CONFIGURATION, mutating)
        self.configs.append((MUTATING_WEBHOOK_CONFIGURATION, mutating["metadata"]["name"]))

    def close(self) -> None:
        for res, name in self.configs + self.cluster_objects:
            self.client.delete(res, name, missing_ok=True)
        for srv in self.servers.values():
            srv.stop()


@pytest.fixture
def env(guest_api, tmp_path):
    e = Env(guest_api, tmp_path)
    yield e
    e.close()


def eventually_denied(action, timeout: float = 15.0) -> KubeError:
    """Webhook configurations reach the API server's admission within a moment: retry until one denies."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            action()
        except Forbidden as exc:
            return exc
        if time.monotonic() > deadline:
            raise AssertionError("the webhook never denied the request")
        time.sleep(0.2)


def secret_body(name: str, **data: str) -> dict:
    return {"metadata": {"name": name}, "type": "cloud-provider.deckhouse.io/credentials",
            "stringData": {"authScheme": "kubeconfig", **data}}


def test_api_server_calls_the_webhooks(env):
    c = env.client
    # pre-existing bad state, made before the webhooks exist
    c.create(SECRET, secret_body("old-bad", secret=b64(KUBECONFIG), identity="x"), env.ns)
    env.register()

    # credentials Secret: denied with our message; the first denial also proves the configuration is live
    n = iter(range(1000))
    not_base64 = {"secret": "%%%"}
    exc = eventually_denied(lambda: c.create(SECRET, secret_body(f"bad-{next(n)}", **not_base64), env.ns))
    assert (f'Secret "{env.ns}/bad-' in str(exc)
            and "data.secret: kubeconfig is not base64 of UTF-8 text" in str(exc))
    assert c.create(SECRET, secret_body("good", secret=b64(KUBECONFIG)), env.ns)["type"] == (
        "cloud-provider.deckhouse.io/credentials")
    # a Secret of another type passes
    c.create(SECRET, {"metadata": {"name": "plain"}, "stringData": {"a": "b"}}, env.ns)
    # the pre-existing problem is a warning (HTTP Warning header), not a denial
    resp = requests.patch(f"{env.api.url}/api/v1/namespaces/{env.ns}/secrets/old-bad", verify=str(env.api.ca_path),
                          headers={"Authorization": f"Bearer {env.api.token}",
                                   "Content-Type": "application/merge-patch+json"},
                          json={"metadata": {"labels": {"touched": "yes"}}}, timeout=15)
    assert resp.status_code == 200, resp.text
    assert "data.identity: is not allowed with authScheme kubeconfig (already so before this change)" in resp.headers[
        "Warning"]
    # (a type change never reaches admission: the API server's own validation refuses it first)
    with pytest.raises(Forbidden, match="data.authScheme: must be kubeconfig"):
        c.patch(SECRET, "good", {"stringData": {"authScheme": "token"}}, env.ns)

    # VolumeSnapshotClass selection (mutating) and validation
    sc_name = f"{env.tag}-sc"
    c.create(STORAGE_CLASS, {"metadata": {"name": sc_name, "annotations": {
        "storage.deckhouse.io/volumesnapshotclass": "dvp-snapshots"}}, "provisioner": "csi.dvp.deckhouse.io"})
    env.cluster_objects.append((STORAGE_CLASS, sc_name))
    c.create(PERSISTENT_VOLUME_CLAIM, {"metadata": {"name": "data"}, "spec": {
        "storageClassName": sc_name, "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1Gi"}}}}, env.ns)
    snap = c.create(VOLUME_SNAPSHOT, {"metadata": {"name": "s1"}, "spec": {
        "source": {"persistentVolumeClaimName": "data"}}}, env.ns)
    assert snap["spec"]["volumeSnapshotClassName"] == "dvp-snapshots"
    with pytest.raises(Forbidden, match=f'PersistentVolumeClaim "{env.ns}/missing" not found'):
        c.create(VOLUME_SNAPSHOT, {"metadata": {"name": "s2"}, "spec": {
            "source": {"persistentVolumeClaimName": "missing"}}}, env.ns)

    # one default VolumeSnapshotClass per driver
    labels = {"whk-test": env.tag}
    ann = {"snapshot.storage.kubernetes.io/is-default-class": "true"}
    driver = f"{env.tag}.csi.example"
    for name in ("a", "b"):
        env.cluster_objects.append((VOLUME_SNAPSHOT_CLASS, f"{env.tag}-{name}"))
    c.create(VOLUME_SNAPSHOT_CLASS, {"metadata": {"name": f"{env.tag}-a", "labels": labels, "annotations": ann},
                                     "driver": driver, "deletionPolicy": "Delete"})
    with pytest.raises(Forbidden, match=f'default snapshot class "{env.tag}-a" already exists for driver'):
        c.create(VOLUME_SNAPSHOT_CLASS, {"metadata": {"name": f"{env.tag}-b", "labels": labels,
                                                      "annotations": ann},
                                         "driver": driver, "deletionPolicy": "Delete"})

    # DVPInstanceClass: no delete while a NodeGroup consumes it
    ic_name = f"{env.tag}-ic"
    ic = c.create(DVP_INSTANCE_CLASS, {"metadata": {"name": ic_name, "labels": labels}, "spec": {
        "virtualMachine": {"cpu": {"cores": 1}, "memory": {"size": "1Gi"}, "virtualMachineClassName": "generic"},
        "rootDisk": {"size": "10Gi", "image": {"kind": "ClusterVirtualImage", "name": "ubuntu"}}}})
    env.cluster_objects.append((DVP_INSTANCE_CLASS, ic_name))
    ic["status"] = {"nodeGroupConsumers": ["worker"]}
    c.update_status(DVP_INSTANCE_CLASS, ic)
    with pytest.raises(Forbidden, match="used by NodeGroup worker; move those groups to another class first"):
        c.delete(DVP_INSTANCE_CLASS, ic_name)
    ic = c.get(DVP_INSTANCE_CLASS, ic_name)
    ic["status"] = {"nodeGroupConsumers": []}
    c.update_status(DVP_INSTANCE_CLASS, ic)
    c.delete(DVP_INSTANCE_CLASS, ic_name)


def test_entry_point_serves_reviews(guest_api, tmp_path):
    """python -m dvp_webhooks snapshot, as the Deployment runs it (flags, TLS files), against the guest API."""
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    tls = pki.generate(tmp_path / "pki")
    kubeconfig = tmp_path / "guest.kubeconfig"
    kubeconfig.write_text(guest_api.kubeconfig())
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "dvp_webhooks", "snapshot", f"--listen-address=127.0.0.1:{port}",
                             f"--tls-cert-file={tls.serving_cert}", f"--tls-key-file={tls.serving_key}",
                             "--log-level=Info", f"--kubeconfig={kubeconfig}"],
                            cwd=Path(__file__).resolve().parents[2], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, proc.stderr.read()
            try:
                if requests.get(f"https://127.0.0.1:{port}/readyz", verify=str(tls.ca_cert), timeout=2).ok:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "webhook server never became ready"
            time.sleep(0.1)
        review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
            "uid": "u-1", "operation": "CREATE", "namespace": "n", "name": "s",
            "kind": {"group": "snapshot.storage.k8s.io", "version": "v1", "kind": "VolumeSnapshot"},
            "object": {"metadata": {"name": "s", "namespace": "n"},
                       "spec": {"source": {"persistentVolumeClaimName": "absent"}}}}}
        answer = requests.post(f"https://127.0.0.1:{port}/volume-snapshot-mutate", json=review,
                               verify=str(tls.ca_cert), timeout=10).json()
        assert answer["response"] == {"uid": "u-1", "allowed": False, "status": {
            "code": 403, "reason": "Forbidden",
            "message": 'VolumeSnapshot.snapshot.storage.k8s.io "n/s": PersistentVolumeClaim "n/absent" not found'}}
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert guest_api.token not in out + err
    assert '"msg": "CREATE VolumeSnapshot.snapshot.storage.k8s.io \\"n/s\\": denied' in err


# A stand-in for node-manager's NodeGroup API (this test's own minimal schema; the guest API does not serve it).
# It stays registered for the rest of the session (no template renders a NodeGroup, so nothing else notices).
NODE_GROUP_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "nodegroups.deckhouse.io"},
    "spec": {"group": "deckhouse.io", "scope": "Cluster",
             "names": {"plural": "nodegroups", "singular": "nodegroup", "kind": "NodeGroup",
                       "listKind": "NodeGroupList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]},
}


def test_node_groups_and_instance_classes_through_the_api_server(env):
    import time

    from dvp_common.kube.resources import CRD
    from dvp_webhooks.lookups import NODE_GROUP

    c = env.client
    c.create(CRD, NODE_GROUP_CRD, get_existing=True)
    deadline = time.monotonic() + 30
    while True:
        try:
            c.list(NODE_GROUP)
            break
        except KubeError:
            assert time.monotonic() < deadline, "NodeGroup CRD never served"
            time.sleep(0.2)
    labels = {"whk-test": env.tag}
    validating = {"metadata": {"name": f"{env.tag}-nodes"}, "webhooks": [
        env.hook("ng", "validation", "/validate-deckhouse-io-v1-nodegroup", "deckhouse.io", "v1", "nodegroups",
                 "Cluster", ["CREATE", "UPDATE"], False),
        env.hook("ic", "validation", "/validate-deckhouse-io-v1alpha1-dvpinstanceclass", "deckhouse.io",
                 "v1alpha1", "dvpinstanceclasses", "Cluster", ["CREATE", "UPDATE", "DELETE"], False)]}
    c.create(VALIDATING_WEBHOOK_CONFIGURATION, validating)
    env.configs.append((VALIDATING_WEBHOOK_CONFIGURATION, validating["metadata"]["name"]))
    spec = {"virtualMachine": {"cpu": {"cores": 1}, "memory": {"size": "1Gi"}, "virtualMachineClassName": "generic"},
            "rootDisk": {"size": "10Gi", "image": {"kind": "ClusterVirtualImage", "name": "ubuntu"}}}
    etcd, plain = f"{env.tag}-etcd", f"{env.tag}-plain"
    c.create(DVP_INSTANCE_CLASS, {"metadata": {"name": etcd, "labels": labels}, "spec": {
        **spec, "etcdDisk": {"size": "10Gi", "storageClass": "fast"}}})
    c.create(DVP_INSTANCE_CLASS, {"metadata": {"name": plain, "labels": labels}, "spec": spec})
    ng_name = f"{env.tag}-workers"
    env.cluster_objects += [(NODE_GROUP, ng_name), (DVP_INSTANCE_CLASS, etcd), (DVP_INSTANCE_CLASS, plain)]

    def group(ic_name: str) -> dict:
        return {"apiVersion": "deckhouse.io/v1", "kind": "NodeGroup", "metadata": {"name": ng_name, "labels": labels},
                "spec": {"nodeType": "CloudEphemeral",
                         "cloudInstances": {"classReference": {"kind": "DVPInstanceClass", "name": ic_name}}}}

    exc = eventually_denied(lambda: c.create(NODE_GROUP, group(etcd)))
    assert "only \"master\" may have an etcd disk (etcd_disk_forbidden_for_non_master)" in str(exc)
    c.create(NODE_GROUP, group(plain))
    # the class is now used: adding an etcd disk to it, or deleting it, is refused; the real NodeGroup list is read
    ic = c.get(DVP_INSTANCE_CLASS, plain)
    ic["spec"]["etcdDisk"] = {"size": "10Gi", "storageClass": "fast"}
    with pytest.raises(Forbidden, match=f"is used by NodeGroup {ng_name}"):
        c.replace(DVP_INSTANCE_CLASS, ic)
    with pytest.raises(Forbidden, match=f"used by NodeGroup {ng_name}; move those groups to another class first"):
        c.delete(DVP_INSTANCE_CLASS, plain)
    c.delete(NODE_GROUP, ng_name)
    c.delete(DVP_INSTANCE_CLASS, plain)
    c.delete(DVP_INSTANCE_CLASS, etcd)
