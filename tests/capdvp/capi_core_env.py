# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp beside the real CAPI controller (harness.capi_controller): a guest namespace watched by capdvp, its
admission webhook registered from the chart, and a DVP namespace played by sim."""

from __future__ import annotations

import base64
import copy
import secrets
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import requests
from capdvp import resources as r
from capdvp.controllers.context import ReconcileConfig
from capdvp.manager import Manager
from capdvp.settings import Settings
from chart.render import render_module
from dvp_common.dvp.connection import DVPConnection, DVPSettings
from dvp_common.kube import NotFound, Resource
from dvp_common.kube.resources import NODE, VALIDATING_WEBHOOK_CONFIGURATION

from sim import SimConfig, Simulator, seed
from testkit.capdvp.real import SPEC
from testkit.harness import pki
from testkit.harness.capi_controller import CapiController
from testkit.nodemanager import StandIn

WAIT = 45.0  # seconds per step; each takes a few seconds on a healthy machine
CLUSTER = "dvp"
SC = "capi-core-sc"
CAPI_GROUP = "cluster.x-k8s.io"
INFRA_GROUP = "infrastructure.cluster.x-k8s.io"
CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name"
MACHINE_DEPLOYMENT = Resource(CAPI_GROUP, "v1beta2", "machinedeployments", "MachineDeployment")
MACHINE_SET = Resource(CAPI_GROUP, "v1beta2", "machinesets", "MachineSet")
CAPDVP_WEBHOOK = "d8-cloud-provider-dvp-capdvp"  # the chart's ValidatingWebhookConfiguration


def capdvp_webhook_from_chart(port: int, ca_pem: str) -> dict:
    """The module's ValidatingWebhookConfiguration for capdvp as the chart renders it, its Service swapped for the
    loopback URL of the in-process webhook: CAPI's creates and updates of DeckhouseMachines pass it as in a cluster."""
    cert = {"ca": ca_pem, "crt": "unused", "key": "unused"}
    objs = render_module({"cloudProviderDvp": {"internal": {"capdvpControllerManagerWebhookCert": cert}}})
    vwc = copy.deepcopy(next(o for o in objs if o["kind"] == "ValidatingWebhookConfiguration"
                             and o["metadata"]["name"] == CAPDVP_WEBHOOK))
    for hook in vwc["webhooks"]:
        path = hook["clientConfig"]["service"]["path"]
        hook["clientConfig"] = {"url": f"https://127.0.0.1:{port}{path}", "caBundle": hook["clientConfig"]["caBundle"]}
    vwc["metadata"] = {"name": CAPDVP_WEBHOOK}
    return vwc


class Env:
    """One guest namespace watched by capdvp (its admission webhook registered from the chart), one DVP namespace
    played by the simulator; `create_cluster` makes what node-manager makes (Cluster, DeckhouseCluster, kubeconfig)."""

    def __init__(self, capi: CapiController, dvp_api, workdir: Path, **sim: object) -> None:
        """`sim`: more SimConfig fields (node_labels for zones, guest_agent=False for a guest that never boots)."""
        self.capi, self.api = capi, capi.api
        self.guest, self.dvp = self.api.client(), dvp_api.client()
        self.ns = self.api.create_namespace("capi-core")
        self.nodes: list[str] = []  # cluster-wide in the shared guest API: deleted on close
        self.dvp_ns = dvp_api.create_namespace("tenant")
        self.uuid = f"uuid-{secrets.token_hex(6)}"
        self.vm_class, self.image = f"generic-{secrets.token_hex(3)}", f"ubuntu-{secrets.token_hex(3)}"
        seed.storage_class(self.dvp, SC)
        seed.vm_class(self.dvp, self.vm_class)
        seed.cluster_image(self.dvp, self.image)
        self.sim = Simulator(dvp_api.client(), SimConfig(namespace=self.dvp_ns, default_latency=0.05,
                                                         watch_timeout=1, **sim)).start()
        tls = pki.generate(workdir / "capdvp-tls")  # a serving certificate for 127.0.0.1, under names capdvp reads
        shutil.copy(tls.serving_cert, tls.serving_cert.with_name("tls.crt"))
        shutil.copy(tls.serving_key, tls.serving_key.with_name("tls.key"))
        config = ReconcileConfig(dvp_namespace=self.dvp_ns, cluster_uuid=self.uuid)
        settings = Settings(dvp=DVPSettings(dvp_api.kubeconfig(), self.dvp_ns, self.uuid), reconcile=config,
                            watch_namespace=self.ns, leader_elect=False, health_bind=None, metrics_bind=None,
                            webhook_bind="127.0.0.1:0", webhook_cert_dir=str(tls.serving_cert.parent), workers=4)
        self.capdvp = Manager(settings, self.api.client(), DVPConnection(dvp_api.client(), self.dvp_ns, self.uuid))
        try:
            self.capdvp.start()
            assert self.capdvp.webhook is not None
            self.guest.create(VALIDATING_WEBHOOK_CONFIGURATION, capdvp_webhook_from_chart(self.capdvp.webhook.port,
                                                                                          tls.ca_pem))
            self._wait_capdvp_webhook_called()
        except BaseException:
            self.close()
            raise

    def _wait_capdvp_webhook_called(self) -> None:
        """Until the API server uses the new configuration, a DeckhouseMachine pointing at another VM gets in."""
        probe = {"apiVersion": f"{INFRA_GROUP}/v1alpha1", "kind": "DeckhouseMachine", "metadata": {"name": "probe"},
                 "spec": {**self.spec(), "providerID": "dvp://another-vm"}}
        url = f"{self.api.url}{r.DECKHOUSE_MACHINE.path(self.ns)}?dryRun=All"
        last = ""
        with requests.Session() as session:
            session.trust_env = False
            deadline = time.monotonic() + WAIT
            while time.monotonic() < deadline:
                resp = session.post(url, json=probe, verify=str(self.api.ca_path), timeout=10,
                                    headers={"Authorization": f"Bearer {self.api.token}"})
                if resp.status_code == 403 and "spec.providerID must be" in resp.text:
                    return
                last = f"HTTP {resp.status_code}: {resp.text[:200]}"
                time.sleep(0.2)
        raise AssertionError(f"capdvp's webhook was not called within {WAIT:g}s ({last})")

    def spec(self) -> dict:
        return {**SPEC, "vmClassName": self.vm_class, "rootDiskStorageClass": SC,
                "bootDiskImageRef": {"kind": "ClusterVirtualImage", "name": self.image},
                "additionalDisks": [{"size": "1Gi", "storageClass": SC}]}

    def create_cluster(self, zones: tuple[str, ...] = ()) -> None:
        """What node-manager makes once (Cluster, DeckhouseCluster from capi/cluster.yaml, the kubeconfig Secret
        through which CAPI's ClusterCache reaches the guest API itself, as for Deckhouse), then the machines'
        bootstrap Secret."""
        standin = StandIn(self.guest, self.ns, CLUSTER, {"uuid": self.uuid})
        standin.ensure_cluster({"zones": list(zones)} if zones else {}, self.api.kubeconfig())
        self.secret("bootstrap", b"#cloud-config\n")

    def machine_template(self, name: str, **spec) -> None:
        self.guest.create(r.DECKHOUSE_MACHINE_TEMPLATE, {"metadata": {"name": name},
                                                         "spec": {"template": {"spec": {**self.spec(), **spec}}}},
                          self.ns)

    def machine_deployment(self, name: str, template: str, replicas: int, rollout: dict | None = None,
                           failure_domain: str = "") -> None:
        spec = {"clusterName": CLUSTER, "replicas": replicas, "template": {"spec": {
            "clusterName": CLUSTER, "bootstrap": {"dataSecretName": "bootstrap"},
            "infrastructureRef": {"apiGroup": INFRA_GROUP, "kind": "DeckhouseMachineTemplate", "name": template}}}}
        if failure_domain:
            spec["template"]["spec"]["failureDomain"] = failure_domain
        if rollout:
            spec["rollout"] = rollout
        self.guest.create(MACHINE_DEPLOYMENT, {"metadata": {"name": name}, "spec": spec}, self.ns)

    def secret(self, name: str, value: bytes) -> None:
        self.guest.create(r.SECRET, {"metadata": {"name": name, "labels": {CLUSTER_NAME_LABEL: CLUSTER}},
                                     "type": "cluster.x-k8s.io/secret",
                                     "data": {"value": base64.b64encode(value).decode()}}, self.ns)

    def get(self, res: Resource, name: str) -> dict | None:
        try:
            return self.guest.get(res, name, self.ns)
        except NotFound:
            return None

    def items(self, res: Resource) -> list[dict]:
        return self.guest.list(res, self.ns).items

    def dvp_names(self, res: Resource) -> list[str]:
        return sorted(o["metadata"]["name"] for o in self.dvp.list(res, self.dvp_ns).items)

    def wait(self, what: str, predicate: Callable[[], object], describe: Callable[[], str] = lambda: "",
             timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.2)
        raise AssertionError(f"timed out after {timeout:g}s waiting for {what}; {describe()}\n"
                             f"cluster-api-controller log ({self.capi.log}):\n{self.capi.tail(20)}")

    def describe(self) -> str:
        machines = [(m["metadata"]["name"], (m.get("status") or {}).get("phase"), (m.get("spec") or {}).get(
            "providerID"), m["metadata"].get("finalizers")) for m in self.items(r.MACHINE)]
        dms = [(d["metadata"]["name"], (d.get("status") or {}).get("initialization"),
                [(c["type"], c["reason"]) for c in (d.get("status") or {}).get("conditions") or []],
                d["metadata"].get("finalizers")) for d in self.items(r.DECKHOUSE_MACHINE)]
        vms = [(v["metadata"]["name"], (v.get("status") or {}).get("phase"))
               for v in self.dvp.list(r.VIRTUAL_MACHINE, self.dvp_ns).items]
        return f"machines={machines} deckhouseMachines={dms} vms={vms}"

    def node(self, name: str, provider_id: str) -> None:
        """The Node a kubelet would register for a machine."""
        self.guest.create(NODE, {"metadata": {"name": name}, "spec": {"providerID": provider_id}})
        self.nodes.append(name)

    def close(self) -> None:
        for name in self.nodes:
            self.guest.delete(NODE, name, missing_ok=True)
        self.guest.delete(VALIDATING_WEBHOOK_CONFIGURATION, CAPDVP_WEBHOOK, missing_ok=True)
        self.capdvp.shutdown()
        self.sim.stop()
        self.guest.close()
        self.dvp.close()
