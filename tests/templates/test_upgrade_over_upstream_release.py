# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A cluster switching from Deckhouse's embedded module to ours keeps the Helm release `cloud-provider-dvp`: the
real `helm upgrade` of our rendered chart over a release holding the objects upstream's chart renders succeeds,
keeps every shared object (same uid), and deletes what only upstream renders. A selector that differs from
upstream's makes the upgrade fail, so the test can fail (docs/MIGRATION.md)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import requests
import yaml
from chart import matrix
from chart.render import NAMESPACE, RELEASE, helm_binary, render_values

from testkit.harness.apiserver import capi_core_crd_files

# What upstream's chart renders, as far as an upgrade depends on it: the immutable fields of every object both
# charts render (Deployment/DaemonSet spec.selector, CSIDriver attachRequired/volumeLifecycleModes, StorageClass
# provisioner/parameters/reclaimPolicy/volumeBindingMode, Secret type; Services set no clusterIP, so the live one
# stays) and the objects only upstream renders (deleted by the upgrade).
# (kind, name, immutable fields as upstream renders them, where read)
UPSTREAM: list[tuple[str, str, dict[str, Any], str]] = [
    ("Deployment", "capdvp-controller-manager",
     {"selector": {"app": "capdvp-controller-manager", "cluster.x-k8s.io/provider": "infrastructure-dvp",
                   "control-plane": "controller-manager"}},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/capdvp-controller-manager/"
     "deployment.yaml@05e2c3fc5ba222588b9f751df78fa0bb8bfd4377"),
    # helm_lib_cloud_controller_manager_manifests: Deployment `cloud-controller-manager`, selector app.
    ("Deployment", "cloud-controller-manager", {"selector": {"app": "cloud-controller-manager"}},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/cloud-controller-manager/"
     "deployment.yaml@094dff650aea1865a5cd3360a7fd3e284d6555e1"),
    ("Deployment", "cloud-data-discoverer", {"selector": {"app": "cloud-data-discoverer"}},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/cloud-data-discoverer/"
     "deployment.yaml@01994868ae639f1455f4f165bbc98a587ff022a5"),
    ("Deployment", "validation-webhook", {"selector": {"app": "validation-webhook"}},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/validation-webhook/"
     "deployment.yaml@00d19647e6febc5a30d11b798d420c69acdd7218"),
    # helm_lib_csi_controller_manifests / helm_lib_csi_node_manifests: `csi-controller`, `csi-node`, selector app.
    ("Deployment", "csi-controller", {"selector": {"app": "csi-controller"}},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/csi/"
     "controller.yaml@08a15145ec97f309f6884c3278753f00f9597c17"),
    ("DaemonSet", "csi-node", {"selector": {"app": "csi-node"}},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/csi/"
     "controller.yaml@08a15145ec97f309f6884c3278753f00f9597c17"),
    # volumeLifecycleModes is left to its default, [Persistent].
    ("CSIDriver", "csi.dvp.deckhouse.io", {"attachRequired": True, "podInfoOnMount": False},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/csi/"
     "csidriver.yaml@0f69a190d376b6eb0bedbba444d8a6a97978fbd5"),
    # One per internal.storageClasses entry, named as the entry (the same hook input gives the same classes).
    ("StorageClass", "*", {"provisioner": "csi.dvp.deckhouse.io", "parameters": ["dvpStorageClass"]},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/csi/"
     "storage-classes.yaml@208967a576fdfa13beb8d335a65febb9b54d1382"),
    ("Service", "capdvp-webhook", {"ports": [9443], "selector": {"app": "capdvp-controller-manager"}},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/capdvp-controller-manager/"
     "service.yaml@ec727debd677f144bd3b4e4c5902fbdb9b08c20e"),
    ("Service", "validation-webhook", {"ports": [443], "selector": {"app": "validation-webhook"}},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/validation-webhook/"
     "service.yaml@926add138357cb1dc6c27ec54ea2cdc4031eaee2"),
    ("Secret", "dvp-credentials-capdvp", {"type": "Opaque"},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/capdvp-controller-manager/"
     "secret.yaml@2d042f9b89416764d461db3291465fc35e6a2368"),
    ("Secret", "validation-webhook-tls", {"type": "kubernetes.io/tls"},
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/validation-webhook/"
     "secret-tls.yaml@6d15f41e164776c34cd15da99aa8973617753f5e"),
]
# Rendered only by upstream: the upgrade deletes them.
UPSTREAM_ONLY: list[tuple[str, str, str]] = [
    ("ExtensionConfig", "capdvp-extension-config",
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/capdvp-controller-manager/"
     "extension-config.yaml@42e23d1ad2d9f44beb4b5d00a651b825ba4b75c8"),
    ("Secret", "cloud-controller-manager",
     "read in deckhouse/deckhouse modules/030-cloud-provider-dvp/templates/cloud-controller-manager/"
     "secret.yaml@42c47a519326625eae006a94fd225480957a17ea"),
]

PATHS = {
    "Namespace": "/api/v1/namespaces",
    "Deployment": f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments",
    "DaemonSet": f"/apis/apps/v1/namespaces/{NAMESPACE}/daemonsets",
    "Service": f"/api/v1/namespaces/{NAMESPACE}/services",
    "Secret": f"/api/v1/namespaces/{NAMESPACE}/secrets",
    "CSIDriver": "/apis/storage.k8s.io/v1/csidrivers",
    "StorageClass": "/apis/storage.k8s.io/v1/storageclasses",
    "ExtensionConfig": "/apis/runtime.cluster.x-k8s.io/v1beta2/extensionconfigs",
}
HELM_OWNED = {"labels": {"app.kubernetes.io/managed-by": "Helm"},
              "annotations": {"meta.helm.sh/release-name": RELEASE, "meta.helm.sh/release-namespace": NAMESPACE}}
# Kinds whose admission would call back into Pods that do not run here (the release Secret is a Secret too).
WEBHOOK_KINDS = {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}


class Api:
    def __init__(self, server) -> None:
        self.url = server.url
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {server.token}"
        self.session.verify = str(server.ca_path)
        self.session.trust_env = False

    def get(self, kind: str, name: str) -> dict[str, Any] | None:
        reply = self.session.get(f"{self.url}{PATHS[kind]}/{name}", timeout=30)
        if reply.status_code == 404:
            return None
        reply.raise_for_status()
        return reply.json()

    def create(self, kind: str, body: dict[str, Any]) -> None:
        self.session.post(self.url + PATHS[kind], json=body, timeout=30).raise_for_status()

    def served(self, api_version: str, kind: str) -> bool:
        prefix = "/api/" if "/" not in api_version else "/apis/"
        reply = self.session.get(self.url + prefix + api_version, timeout=30)
        return reply.status_code == 200 and any(r["kind"] == kind for r in reply.json()["resources"])


def _workload(kind: str, name: str, selector: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {"selector": {"matchLabels": selector}, "template": {
                "metadata": {"labels": selector},
                "spec": {"containers": [{"name": name, "image": "registry.example/upstream@sha256:" + "0" * 64}]}}}}


def upstream_objects(ours: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The release as upstream's chart renders it, built from UPSTREAM (names, selectors, immutable fields)."""
    objects: list[dict[str, Any]] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}]
    for kind, name, fields, _ in UPSTREAM:
        if kind in ("Deployment", "DaemonSet"):
            objects.append(_workload(kind, name, fields["selector"]))
        elif kind == "CSIDriver":
            objects.append({"apiVersion": "storage.k8s.io/v1", "kind": kind, "metadata": {"name": name},
                            "spec": dict(fields)})
        elif kind == "StorageClass":
            for sc in (o for o in ours if o["kind"] == "StorageClass"):
                objects.append({"apiVersion": "storage.k8s.io/v1", "kind": kind,
                                "metadata": {"name": sc["metadata"]["name"]},
                                "provisioner": fields["provisioner"],
                                "volumeBindingMode": sc["volumeBindingMode"], "reclaimPolicy": sc["reclaimPolicy"],
                                "allowVolumeExpansion": sc.get("allowVolumeExpansion", False),
                                "parameters": {"dvpStorageClass": sc["parameters"]["dvpStorageClass"]}})
        elif kind == "Service":
            objects.append({"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": NAMESPACE},
                            "spec": {"selector": fields["selector"],
                                     "ports": [{"port": p, "protocol": "TCP"} for p in fields["ports"]]}})
        elif kind == "Secret":
            objects.append({"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": NAMESPACE},
                            "type": fields["type"], "data": _secret_data(fields["type"])})
    objects.append({"apiVersion": "runtime.cluster.x-k8s.io/v1beta2", "kind": "ExtensionConfig",
                    "metadata": {"name": "capdvp-extension-config"},
                    "spec": {"clientConfig": {"service": {"name": "capdvp-webhook", "namespace": NAMESPACE,
                                                          "port": 9443}}}})
    objects.append({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "cloud-controller-manager",
                                                                         "namespace": NAMESPACE},
                    "type": "Opaque", "data": {"kubeconfigBase64": ""}})
    return objects


def _secret_data(shape: str) -> dict[str, str]:
    return {"tls.crt": "", "tls.key": ""} if shape == "kubernetes.io/tls" else {"namespace": "ZGVtbw=="}


def our_objects(api: Api) -> list[dict[str, Any]]:
    """Our chart rendered with the example values, less what this API server cannot hold: kinds it does not serve,
    namespaces other than the module's, webhook configurations (no Pod answers them here)."""
    out = []
    for obj in render_values(matrix.case("defaults")):
        namespace = obj["metadata"].get("namespace")
        if obj["kind"] in WEBHOOK_KINDS or (namespace and namespace != NAMESPACE):
            continue
        if api.served(obj["apiVersion"], obj["kind"]):
            out.append(obj)
    return out


class Helm:
    def __init__(self, server, tmp: Path) -> None:
        self.tmp = tmp
        kubeconfig = tmp / "kubeconfig"
        kubeconfig.write_text(server.kubeconfig())
        self.env = dict(os.environ, KUBECONFIG=str(kubeconfig), HELM_CACHE_HOME=str(tmp), HELM_CONFIG_HOME=str(tmp),
                        HELM_DATA_HOME=str(tmp))
        self.charts = 0

    def chart(self, objects: list[dict[str, Any]]) -> Path:
        """A chart holding these objects as they are (read through .Files: nothing in them is templated again)."""
        self.charts += 1
        chart = self.tmp / f"chart-{self.charts}"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: cloud-provider-dvp\nversion: 0.0.1\n")
        (chart / "objects.yaml").write_text(yaml.safe_dump_all(objects, sort_keys=False, explicit_start=True))
        (chart / "templates" / "objects.yaml").write_text('{{ .Files.Get "objects.yaml" }}\n')
        return chart

    def run(self, verb: str, objects: list[dict[str, Any]]) -> subprocess.CompletedProcess:
        return subprocess.run([helm_binary(), verb, RELEASE, str(self.chart(objects)), "--namespace", NAMESPACE],
                              capture_output=True, text=True, env=self.env, check=False, timeout=300)


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    return obj["kind"], obj["metadata"]["name"]


@pytest.fixture(scope="module")
def upstream_release(control_plane, tmp_path_factory):
    """A kube-apiserver of its own (the upgrade writes cluster-scoped objects) holding upstream's release:
    (api, helm, our objects, uid of every upstream object)."""
    server = control_plane.add_server("upgrade", "AlwaysAllow", capi_core_crd_files())
    api = Api(server)
    helm = Helm(server, tmp_path_factory.mktemp("helm"))
    ours = our_objects(api)
    # Deckhouse creates the namespace before the first release; Helm adopts it by these labels and annotations.
    if api.get("Namespace", NAMESPACE) is None:
        api.create("Namespace", {"apiVersion": "v1", "kind": "Namespace",
                                 "metadata": {"name": NAMESPACE, **HELM_OWNED}})
    upstream = upstream_objects(ours)
    proc = helm.run("install", upstream)
    assert proc.returncode == 0, proc.stderr
    uids = {_key(o): api.get(*_key(o))["metadata"]["uid"] for o in upstream}
    return api, helm, ours, uids


def test_upstream_table_names_what_both_charts_render(upstream_release):
    _, _, ours, _ = upstream_release
    rendered = {_key(o): o for o in ours}
    for kind, name, fields, _ in UPSTREAM:
        if name == "*":
            continue
        obj = rendered[(kind, name)]
        if kind in ("Deployment", "DaemonSet"):
            assert obj["spec"]["selector"] == {"matchLabels": fields["selector"]}, name
            assert fields["selector"].items() <= obj["spec"]["template"]["metadata"]["labels"].items(), name
        if kind == "CSIDriver":
            assert {k: obj["spec"][k] for k in fields} == fields
            assert obj["spec"].get("volumeLifecycleModes", ["Persistent"]) == ["Persistent"]
        if kind == "Secret":
            assert obj["type"] == fields["type"], name
        if kind == "Service":
            assert [p["port"] for p in obj["spec"]["ports"]] == fields["ports"], name
            assert "clusterIP" not in obj["spec"], name
    for kind, name, _ in UPSTREAM_ONLY:
        assert (kind, name) not in rendered


def test_a_selector_unlike_upstreams_fails_the_upgrade(upstream_release):
    api, helm, ours, uids = upstream_release
    changed = json.loads(json.dumps(ours))
    capdvp = next(o for o in changed if _key(o) == ("Deployment", "capdvp-controller-manager"))
    capdvp["spec"]["selector"] = {"matchLabels": {"app": "capdvp-controller-manager"}}
    proc = helm.run("upgrade", changed)
    assert proc.returncode != 0
    assert "field is immutable" in proc.stderr, proc.stderr
    live = api.get("Deployment", "capdvp-controller-manager")
    assert live["metadata"]["uid"] == uids[("Deployment", "capdvp-controller-manager")]
    assert live["spec"]["selector"]["matchLabels"] == UPSTREAM[0][2]["selector"]


def test_our_chart_upgrades_upstreams_release_in_place(upstream_release):
    api, helm, ours, uids = upstream_release
    proc = helm.run("upgrade", ours)
    assert proc.returncode == 0, proc.stderr
    status = subprocess.run([helm_binary(), "status", RELEASE, "--namespace", NAMESPACE, "-o", "json"],
                            capture_output=True, text=True, env=helm.env, check=True)
    assert json.loads(status.stdout)["info"]["status"] == "deployed"
    ours_keys = {_key(o) for o in ours}
    kept = [key for key in uids if key in ours_keys]
    assert ("Deployment", "capdvp-controller-manager") in kept and ("CSIDriver", "csi.dvp.deckhouse.io") in kept
    for key in kept:
        live = api.get(*key)
        assert live is not None and live["metadata"]["uid"] == uids[key], key
    for o in ours:
        if o["kind"] in ("Deployment", "DaemonSet"):
            assert api.get(*_key(o))["spec"]["selector"] == o["spec"]["selector"], _key(o)
    for kind, name, _ in UPSTREAM_ONLY:
        assert api.get(kind, name) is None, (kind, name)
