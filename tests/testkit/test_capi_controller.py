# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""harness.capi_controller without starting anything: the webhook rewrite and the missing-binary message."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.harness import capi_controller, processes
from testkit.harness.apiserver import ApiServer
from testkit.harness.processes import HarnessError


def test_upstream_webhooks_point_at_the_loopback_url_with_our_ca():
    docs = capi_controller._webhook_configurations("https://127.0.0.1:9443", "PEM", "capi-core-x")
    assert {d["kind"] for d in docs} == {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}
    hooks = [h for d in docs for h in d["webhooks"]]
    assert {h["name"] for h in hooks} >= {"default.machine.cluster.x-k8s.io",
                                          "default.machinedeployment.cluster.x-k8s.io",
                                          "validation.machine.cluster.x-k8s.io"}
    for d in docs:  # renamed, and nothing else of upstream's metadata (kustomize names) kept
        assert list(d["metadata"]) == ["name"] and d["metadata"]["name"].startswith("capi-core-x-")
    for h in hooks:
        assert set(h["clientConfig"]) == {"url", "caBundle"}, h["name"]
        assert h["clientConfig"]["url"].startswith("https://127.0.0.1:9443/")
        assert h["clientConfig"]["caBundle"] == "UEVN"  # base64 of "PEM"


def test_a_missing_binary_fails_with_what_to_run(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(processes, "BIN_DIR", tmp_path)
    api = ApiServer(name="x", url="https://127.0.0.1:1", token="t", ca_path=tmp_path / "ca.crt")  # noqa: S106
    with pytest.raises(HarnessError, match=r"cluster-api-controller is not built .* run `make tools`"):
        capi_controller.CapiController(api, workdir=tmp_path / "w").start()
