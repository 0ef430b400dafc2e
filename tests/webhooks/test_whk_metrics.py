# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The webhooks' metrics: on their own HTTP address (loopback in the chart, published by kube-rbac-proxy), never
on the webhook's HTTPS port, which a scraper could read without a token."""

from __future__ import annotations

import requests
import yaml
from dvp_webhooks.__main__ import _build
from dvp_webhooks.settings import load_settings

from testkit.harness import pki
from testkit.harness.processes import free_port

KUBECONFIG = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
              "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1",
                                                     "insecure-skip-tls-verify": True}}],
              "users": [{"name": "u", "user": {"token": "t"}}],
              "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}]}


def test_metrics_are_served_on_their_own_address_only(tmp_path):
    tls = pki.generate(tmp_path / "pki")
    (tmp_path / "kubeconfig").write_text(yaml.safe_dump(KUBECONFIG))
    webhook, metrics = free_port(), free_port()
    settings = load_settings(["validation", f"--listen-address=127.0.0.1:{webhook}",
                              f"--metrics-address=127.0.0.1:{metrics}", f"--tls-cert-file={tls.serving_cert}",
                              f"--tls-key-file={tls.serving_key}", f"--kubeconfig={tmp_path / 'kubeconfig'}"], {})
    started, served = _build(settings)
    assert served.endswith(f"metrics on 127.0.0.1:{metrics}")
    started.start()
    try:
        text = requests.get(f"http://127.0.0.1:{metrics}/metrics", timeout=10).text
        assert 'dvp_webhook_admission_reviews_total{allowed="false",route="/validate--v1-secret"} 0.0' in text
        on_webhook = requests.get(f"https://localhost:{webhook}/metrics", verify=str(tls.ca_cert), timeout=10)
        assert on_webhook.status_code == 404
    finally:
        started.shutdown()


def test_without_an_address_no_metrics_server_starts(tmp_path):
    tls = pki.generate(tmp_path / "pki")
    (tmp_path / "kubeconfig").write_text(yaml.safe_dump(KUBECONFIG))
    settings = load_settings(["snapshot", f"--listen-address=127.0.0.1:{free_port()}",
                              f"--tls-cert-file={tls.serving_cert}", f"--tls-key-file={tls.serving_key}",
                              f"--kubeconfig={tmp_path / 'kubeconfig'}"], {})
    assert settings.metrics_address is None
    started, served = _build(settings)
    started.start()
    started.shutdown()
    assert "metrics" not in served
