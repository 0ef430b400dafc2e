# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Only node-level sources (the API server, the kubelet's probes) reach the webhook ports, and only Prometheus'
namespace the metrics port (kube-rbac-proxy), where Cilium serves CiliumNetworkPolicy; without it nothing is
rendered (a plain NetworkPolicy could not let the API server in)."""

from __future__ import annotations

from chart import render


def policies(objects):
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == "CiliumNetworkPolicy"}


def test_each_webhook_server_admits_only_node_level_sources():
    objects = render.render_values(render.module_values(all_on=True))
    found = policies(objects)
    assert sorted(found) == ["snapshot-webhooks", "validation-webhook"]
    for app, policy in found.items():
        assert policy["metadata"]["namespace"] == "d8-cloud-provider-dvp"
        assert policy["spec"] == {"endpointSelector": {"matchLabels": {"app": app}}, "ingress": [{
            "fromEntities": ["kube-apiserver", "host", "remote-node"],
            "toPorts": [{"ports": [{"port": "8443", "protocol": "TCP"}]}]}, {
            "fromEndpoints": [{"matchLabels": {"k8s:io.kubernetes.pod.namespace": "d8-monitoring"}}],
            "toPorts": [{"ports": [{"port": "8080", "protocol": "TCP"}]}]}]}
        deployment = next(o for o in objects if o["kind"] == "Deployment" and o["metadata"]["name"] == app)
        pod = deployment["spec"]["template"]
        assert pod["metadata"]["labels"]["app"] == app  # the policy selects the webhook's pods
        assert {c["name"]: [p["containerPort"] for p in c.get("ports", [])] for c in pod["spec"]["containers"]} == {
            "webhooks": [8443], "kube-rbac-proxy": [8080]}
        assert not pod["spec"].get("hostNetwork")


def test_nothing_is_rendered_without_cilium(monkeypatch):
    monkeypatch.setattr(render, "API_VERSIONS", tuple(v for v in render.API_VERSIONS if not v.startswith("cilium")))
    assert policies(render.render_values(render.module_values(all_on=True))) == {}
