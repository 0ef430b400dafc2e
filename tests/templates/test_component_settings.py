# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the chart passes each component is what its settings accept: the rendered args and literal env load
with the component's own loader, and the ports it listens on are the ones the chart exposes and probes."""

from __future__ import annotations

import base64
import re

import pytest
from capdvp.settings import load as capdvp_settings
from chart.render import render_values
from cloud_data_discoverer.settings import load_settings as discoverer_settings
from dvp_ccm.settings import load as ccm_settings
from dvp_csi.settings import parse as csi_settings
from dvp_webhooks.settings import load_settings as webhook_settings

from testkit.harness.objects import container, find

# what the credentials Secret's keys hold (secretKeyRefs are not rendered values)
CREDENTIALS = {"DVP_KUBERNETES_CONFIG_BASE64": base64.b64encode(b"apiVersion: v1\nkind: Config\n").decode(),
               "DVP_NAMESPACE": "project", "CLUSTER_UUID": "11111111-2222-3333-4444-555555555555"}


@pytest.fixture(scope="module")
def objects():
    from chart import matrix

    return render_values(matrix.build({}))


def _run(c: dict) -> tuple[list[str], dict[str, str]]:
    """The container's argv and env as the kubelet gives them ($(VAR) expanded from the env)."""
    env = {**CREDENTIALS, **{e["name"]: e["value"] for e in c.get("env", []) if "value" in e},
           **{e["name"]: "worker-0" for e in c.get("env", []) if "fieldRef" in e.get("valueFrom", {})}}
    args = [re.sub(r"\$\((\w+)\)", lambda m: env.get(m.group(1), m.group(0)), a) for a in c.get("args", [])]
    return c["command"][3:] + args, env


def _ports(c: dict) -> dict[str, int]:
    return {p["name"]: p["containerPort"] for p in c.get("ports", [])}


def _port(address: str | None) -> int:
    assert address is not None
    return int(address.rpartition(":")[2])


def test_capdvp_flags_load_and_its_ports_are_the_charts(objects):
    c = container(find(objects, "Deployment", "capdvp-controller-manager"), "capdvp-controller-manager")
    argv, env = _run(c)
    s = capdvp_settings(argv, env)
    assert s.leader_elect and s.reconcile.dvp_namespace == "project"
    ports = _ports(c)
    assert (_port(s.health_bind), _port(s.webhook_bind)) == (ports["healthz"], ports["webhook-server"])
    assert c["livenessProbe"]["httpGet"]["port"] == c["readinessProbe"]["httpGet"]["port"] == "healthz"
    service = find(objects, "Service", "capdvp-webhook")
    assert service["spec"]["ports"][0]["targetPort"] == "webhook-server"
    hooks = find(objects, "ValidatingWebhookConfiguration", "d8-cloud-provider-dvp-capdvp")["webhooks"]
    assert {w["clientConfig"]["service"]["port"] for w in hooks} == {service["spec"]["ports"][0]["port"]}
    assert s.webhook_cert_dir in {m["mountPath"] for m in c["volumeMounts"]}


def test_ccm_flags_load_and_its_probe_port_is_the_charts(objects):
    c = container(find(objects, "Deployment", "cloud-controller-manager"), "cloud-controller-manager")
    argv, env = _run(c)
    s = ccm_settings(argv, env)
    assert s.leader_elect and s.dvp.namespace == "project"
    assert _port(s.health_bind) == next(iter(_ports(c).values()))


def test_discoverer_flags_load(objects):
    c = container(find(objects, "Deployment", "cloud-data-discoverer"), "cloud-data-discoverer")
    argv, env = _run(c)
    s = discoverer_settings(argv, env)
    assert s.discovery_period == 3600 and s.listen_address == "127.0.0.1:8081"


@pytest.mark.parametrize(("deployment", "mode"), [("validation-webhook", "validation"),
                                                   ("snapshot-webhooks", "snapshot")])
def test_webhook_flags_load(objects, deployment, mode):
    c = container(find(objects, "Deployment", deployment), "webhooks")
    argv, env = _run(c)
    s = webhook_settings(argv, env)
    assert s.mode == mode and _port(s.listen_address) in _ports(c).values()


@pytest.mark.parametrize(("kind", "name", "mode"), [("Deployment", "csi-controller", "controller"),
                                                    ("DaemonSet", "csi-node", "node")])
def test_csi_flags_load(objects, kind, name, mode):
    c = container(find(objects, kind, name), "csi-driver")
    argv, env = _run(c)
    s = csi_settings(argv, env)
    assert (s.mode, s.node_name, s.endpoint) == (mode, "worker-0", "unix:///csi/csi.sock")


def test_the_validation_webhook_knows_the_clusters_prefix():
    """Permanent node names start with the cloud prefix; the NodeGroup name-length rule needs it."""
    from chart import matrix

    values = matrix.build({})
    values["global"].setdefault("clusterConfiguration", {}).setdefault("cloud", {})["prefix"] = "kube"
    c = container(find(render_values(values), "Deployment", "validation-webhook"), "webhooks")
    assert webhook_settings(*_run(c)).cluster_prefix == "kube"
    values["global"]["clusterConfiguration"]["cloud"].pop("prefix")
    c = container(find(render_values(values), "Deployment", "validation-webhook"), "webhooks")
    assert webhook_settings(*_run(c)).cluster_prefix == ""
