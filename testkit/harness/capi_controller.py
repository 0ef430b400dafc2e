# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real Cluster API core controller manager (`.bin/cluster-api-controller`, tools/cluster-api-controller) run
against a harness API server, with its webhooks served and registered as in a real installation.

Its defaulting and validating webhooks are part of what CAPI does to Machines and MachineDeployments, so they are
registered in the API server (upstream's config/webhook/manifests.yaml, pointed at a loopback URL with a throw-away
certificate) for as long as the process runs, and removed when it stops. Leader election is off; metrics are off.
"""

from __future__ import annotations

import base64
import copy
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

import requests
import yaml

from . import lifetime, pki
from .apiserver import UPSTREAM, ApiServer, ControlPlane
from .processes import HarnessError, Process, free_port, tool

TOOL = "cluster-api-controller"
WEBHOOKS = UPSTREAM.parent / "cluster-api" / "webhooks.yaml"
READY_TIMEOUT = 60.0  # seconds: the manager syncs its caches and serves webhooks in a few seconds when healthy
STOP_TIMEOUT = 5.0
CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name"


def _webhook_configurations(url: str, ca_pem: str, prefix: str) -> list[dict[str, Any]]:
    """Upstream's webhook configurations, renamed (`prefix`) and pointed at `url` instead of an in-cluster Service."""
    if not WEBHOOKS.is_file():
        raise HarnessError(f"no CAPI webhook configurations at {WEBHOOKS}: run `make upstream`")
    ca = base64.b64encode(ca_pem.encode()).decode()
    out = []
    for doc in yaml.safe_load_all(WEBHOOKS.read_text()):
        if not doc:
            continue
        doc = copy.deepcopy(doc)
        doc["metadata"] = {"name": f"{prefix}-{doc['metadata']['name']}"}
        for hook in doc.get("webhooks") or []:
            path = hook["clientConfig"]["service"]["path"]
            hook["clientConfig"] = {"url": f"{url}{path}", "caBundle": ca}
        out.append(doc)
    return out


class CapiController:
    """One cluster-api core manager process; `start()` returns once its webhooks serve and are registered."""

    def __init__(self, api: ApiServer, *, namespace: str | None = None, workdir: Path | None = None) -> None:
        self.api, self.namespace = api, namespace
        self._own_dir = workdir is None
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="cpdvp-capi-"))
        if self._own_dir:
            lifetime.remove_on_exit(self.workdir)  # even if this process is killed
        self.process: Process | None = None
        self.webhook_port = 0
        self.health_port = 0
        self._registered: list[tuple[Any, str]] = []
        self._prefix = f"capi-core-{secrets.token_hex(3)}"
        self.started_in = 0.0

    @property
    def log(self) -> Path:
        return self.workdir / "cluster-api-controller.log"

    def start(self) -> CapiController:
        binary = tool(TOOL)  # fails first, with "run `make tools`", when it is not built
        started = time.monotonic()
        certs = pki.generate(self.workdir / "webhook-certs")  # serving certificate for 127.0.0.1
        kubeconfig = self.workdir / "kubeconfig"
        kubeconfig.write_text(self.api.kubeconfig())
        kubeconfig.chmod(0o600)
        self.webhook_port, self.health_port = free_port(), free_port()
        argv = [
            str(binary), f"--kubeconfig={kubeconfig}", "--leader-elect=false",
            f"--webhook-port={self.webhook_port}", f"--webhook-cert-dir={certs.serving_cert.parent}",
            f"--webhook-cert-name={certs.serving_cert.name}", f"--webhook-key-name={certs.serving_key.name}",
            f"--health-addr=127.0.0.1:{self.health_port}", "--diagnostics-address=0",
            "--v=2",
        ]
        if self.namespace:
            argv.append(f"--namespace={self.namespace}")
        self.process = Process(TOOL, argv, self.log)
        try:
            self._wait_ready()
            self._register(f"https://127.0.0.1:{self.webhook_port}", certs.ca_pem)
            self._wait_webhooks_called()
        except BaseException:
            self.stop()
            raise
        self.started_in = time.monotonic() - started
        return self

    def stop(self) -> None:
        """Unregister the webhooks first (nothing would answer them), then end the process (its log goes with the
        temporary directory; failures quote its tail)."""
        if self._registered:
            client = self.api.client()
            try:
                for res, name in self._registered:
                    client.delete(res, name, missing_ok=True)
            finally:
                client.close()
            self._registered.clear()
        if self.process:
            self.process.stop(STOP_TIMEOUT)
        if self._own_dir:
            lifetime.remove_now(self.workdir)

    def tail(self, lines: int = 30) -> str:
        return self.process.tail(lines) if self.process else ""

    def __enter__(self) -> CapiController:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # internals ------------------------------------------------------------------------------------------------
    def _wait_ready(self) -> None:
        """/readyz includes the webhook server's own check, so 200 means webhooks are served too."""
        assert self.process is not None
        ControlPlane._wait_ready(self.process, f"http://127.0.0.1:{self.health_port}/readyz", None, None, TOOL)

    def _wait_webhooks_called(self) -> None:
        """The API server loads new webhook configurations asynchronously: wait until a dry-run Machine comes back
        defaulted by CAPI's webhook (it adds the cluster-name label), so no object a test creates escapes them."""
        probe = {"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
                 "metadata": {"name": "webhook-probe", "namespace": "default"},
                 "spec": {"clusterName": "probe", "bootstrap": {"dataSecretName": "probe"},
                          "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io",
                                                "kind": "DeckhouseMachine", "name": "probe"}}}
        url = f"{self.api.url}/apis/cluster.x-k8s.io/v1beta2/namespaces/default/machines?dryRun=All"
        deadline = time.monotonic() + READY_TIMEOUT
        last = ""
        with requests.Session() as session:
            session.trust_env = False
            while True:
                resp = session.post(url, json=probe, verify=str(self.api.ca_path), timeout=10,
                                    headers={"Authorization": f"Bearer {self.api.token}"})
                if resp.status_code == 201:
                    labels = resp.json()["metadata"].get("labels") or {}
                    if labels.get(CLUSTER_NAME_LABEL) == "probe":
                        return
                    last = "created without CAPI's defaults"
                else:
                    last = f"HTTP {resp.status_code}: {resp.text[:300]}"
                if time.monotonic() > deadline:
                    raise HarnessError(f"CAPI webhooks not called by the API server within {READY_TIMEOUT:.0f}s "
                                       f"({last}); last log lines ({self.log}):\n{self.tail()}")
                time.sleep(0.2)

    def _register(self, url: str, ca_pem: str) -> None:
        from dvp_common.kube.resources import MUTATING_WEBHOOK_CONFIGURATION, VALIDATING_WEBHOOK_CONFIGURATION

        kinds = {"MutatingWebhookConfiguration": MUTATING_WEBHOOK_CONFIGURATION,
                 "ValidatingWebhookConfiguration": VALIDATING_WEBHOOK_CONFIGURATION}
        client = self.api.client()
        try:
            for doc in _webhook_configurations(url, ca_pem, self._prefix):
                res = kinds[doc["kind"]]
                client.create(res, doc)
                self._registered.append((res, doc["metadata"]["name"]))
        finally:
            client.close()
