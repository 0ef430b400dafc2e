# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every Deployment of the module is scraped the Deckhouse way: its component serves /metrics on loopback only,
a kube-rbac-proxy sidecar publishes it (the scraper's token checked against `deployments/prometheus-metrics` of
that Deployment), a PodMonitor of Prometheus main selects its pods, and its ServiceAccount may ask the API server
about the token (d8:rbac-proxy). The dashboards read what these scrapes bring (tests/e2e/test_clean_run.py)."""

from __future__ import annotations

import pytest
import yaml
from chart import matrix
from chart.render import render_values

NS = "d8-cloud-provider-dvp"
# Deployment -> (the container serving /metrics, its flag, the proxy's port, its ServiceAccount, the binding's name)
SCRAPED = {
    "cloud-data-discoverer": ("cloud-data-discoverer", "--listen-address=127.0.0.1:8081", 8080,
                              "cloud-data-discoverer", "cloud-data-discoverer"),
    "cloud-controller-manager": ("cloud-controller-manager", "--metrics-bind-address=127.0.0.1:4212", 4213,
                                 "cloud-controller-manager", "cloud-controller-manager"),
    "capdvp-controller-manager": ("capdvp-controller-manager", "--metrics-bind-address=127.0.0.1:8082", 8080,
                                  "capdvp-controller-manager", "capdvp-controller-manager"),
    "csi-controller": ("csi-driver", "--metrics-address=127.0.0.1:9810", 8094, "csi", "csi"),
    "snapshot-controller": ("snapshot-controller", "--http-endpoint=127.0.0.1:8081", 8080, "snapshot-controller",
                            "snapshot-controller"),
    "validation-webhook": ("webhooks", "--metrics-address=127.0.0.1:8081", 8080, "validation-webhook",
                           "validation-webhook"),
    "snapshot-webhooks": ("webhooks", "--metrics-address=127.0.0.1:8081", 8080, "snapshot-webhooks",
                          "snapshot-webhooks"),
}


@pytest.fixture(scope="module")
def objects() -> list[dict]:
    return render_values(matrix.case("maximal"))


def find(objects, kind, name, namespace=None):
    return next(o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name
                and o["metadata"].get("namespace") == namespace)


def test_every_deployment_of_the_module_is_scraped(objects):
    deployments = {o["metadata"]["name"] for o in objects if o["kind"] == "Deployment"
                   and o["metadata"]["namespace"] == NS}
    assert deployments == set(SCRAPED)
    monitors = {o["metadata"]["name"] for o in objects if o["kind"] == "PodMonitor"}
    assert monitors == set(SCRAPED)


@pytest.mark.parametrize("name", sorted(SCRAPED))
def test_metrics_on_loopback_published_by_kube_rbac_proxy(objects, name):
    container, flag, port, account, binding = SCRAPED[name]
    pod = find(objects, "Deployment", name, NS)["spec"]["template"]["spec"]
    containers = {c["name"]: c for c in pod["containers"]}
    assert flag in containers[container]["args"]
    proxy = containers["kube-rbac-proxy"]
    assert [(p["containerPort"], p["name"]) for p in proxy["ports"]] == [(port, "https-metrics")]
    config = yaml.safe_load(next(e["value"] for e in proxy["env"] if e["name"] == "KUBE_RBAC_PROXY_CONFIG"))
    upstream, = config["upstreams"]
    assert upstream["upstream"] == f"http://{flag.split('=', 1)[1]}/"
    assert upstream["authorization"]["resourceAttributes"] == {
        "namespace": NS, "apiGroup": "apps", "apiVersion": "v1", "resource": "deployments",
        "subresource": "prometheus-metrics", "name": name}
    used = [p["containerPort"] for c in pod["containers"] for p in c.get("ports", [])]
    assert len(used) == len(set(used))  # the host network's ports too (the CCM)
    assert pod["serviceAccountName"] == account

    monitor = find(objects, "PodMonitor", name, "d8-monitoring")
    assert monitor["metadata"]["labels"]["prometheus"] == "main"
    assert monitor["spec"]["selector"] == {"matchLabels": {"app": name}}
    assert monitor["spec"]["namespaceSelector"] == {"matchNames": [NS]}
    endpoint, = monitor["spec"]["podMetricsEndpoints"]
    assert (endpoint["port"], endpoint["scheme"], endpoint["path"]) == ("https-metrics", "https", "/metrics")
    assert endpoint["bearerTokenSecret"] == {"name": "prometheus-token", "key": "token"}

    rbac = find(objects, "ClusterRoleBinding", f"d8:cloud-provider-dvp:{binding}:rbac-proxy")
    assert rbac["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "d8:rbac-proxy"}
    assert rbac["subjects"] == [{"kind": "ServiceAccount", "name": account, "namespace": NS}]


def test_only_the_snapshot_controller_keeps_ready_pods_only(objects):
    """The discoverer's alerts read an unready pod's metrics; the snapshot-controller's replicas wait for the lease."""
    for name in SCRAPED:
        endpoint, = find(objects, "PodMonitor", name, "d8-monitoring")["spec"]["podMetricsEndpoints"]
        keep = {"sourceLabels": ["__meta_kubernetes_pod_ready"], "regex": "true", "action": "keep"}
        assert (keep in endpoint["relabelings"]) == (name == "snapshot-controller"), name
