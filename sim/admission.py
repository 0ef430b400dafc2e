# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP's validating admission webhooks, served for real: an HTTPS AdmissionReview server (the project's one
admission server, dvp_common.admission) that a ValidatingWebhookConfiguration registers in the DVP kube-apiserver,
so a refused write gets the 403 Forbidden real DVP answers, from the API server itself.

The rules are domain/admission.py; this module only reads what they need from the API (direct reads, so a
decision never rests on a stale cache) and registers the webhooks under DVP's names. The API server keeps its
connections to the webhook open, so TLS is set up once per connection, not per request."""

from __future__ import annotations

import base64
from typing import Any

from dvp_common.admission.decider import Route
from dvp_common.admission.review import Request
from dvp_common.admission.server import WebhookServer
from dvp_common.admission.verdict import Verdict
from dvp_common.dvp import resources as R
from dvp_common.kube import KubeClient, NotFound, Resource, get_or_none
from dvp_common.kube.resources import STORAGE_CLASS, VALIDATING_WEBHOOK_CONFIGURATION

from .domain import admission as rules
from .domain.addresses import lease_name

CONFIGURATION = "virtualization-controller-admission-webhook"
GROUP = R.GROUP
TIMEOUT_SECONDS = 10
# webhook name (as DVP names them; the API server quotes it in every denial), path, kind, plural
WEBHOOKS = (
    ("vm.virtualization-controller.validate.d8-virtualization", "/validate-virtualization-deckhouse-io-v1alpha2-"
     "virtualmachine", "VirtualMachine", "virtualmachines"),
    ("vd.virtualization-controller.validate.d8-virtualization", "/validate-virtualization-deckhouse-io-v1alpha2-"
     "virtualdisk", "VirtualDisk", "virtualdisks"),
    ("vmbda.virtualization-controller.validate.d8-virtualization", "/validate-virtualization-deckhouse-io-v1alpha2-"
     "virtualmachineblockdeviceattachment", "VirtualMachineBlockDeviceAttachment",
     "virtualmachineblockdeviceattachments"),
    ("vmip.virtualization-controller.validate.d8-virtualization", "/validate-virtualization-deckhouse-io-v1alpha2-"
     "virtualmachineipaddress", "VirtualMachineIPAddress", "virtualmachineipaddresses"),
)


class Reviews:
    """DVP's decisions per kind: read what the rule needs through `client`, then decide. The HTTPS server below
    and the in-memory API (sim/memory_api) both ask these, so the two worlds admit the same writes."""

    def __init__(self, client: KubeClient) -> None:
        self.client = client
        self.by_kind = {"VirtualMachine": self._vm, "VirtualDisk": self._vd,
                        "VirtualMachineBlockDeviceAttachment": self._vmbda, "VirtualMachineIPAddress": self._vmip}
        self.webhook = {kind: name for name, _, kind, _ in WEBHOOKS}

    def decide(self, req: Request) -> Verdict | None:
        """None for a kind DVP's webhooks do not see."""
        handler = self.by_kind.get(req.kind)
        return None if handler is None else handler(req, None)

    # handlers: read what the rule needs, then decide ---------------------------------------------------------
    def _get(self, res: Resource, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        return get_or_none(self.client, res, name, namespace) if name else None

    def _vm(self, req: Request, _lookups: Any) -> Verdict:
        vm = req.obj or {}
        class_name = (vm.get("spec") or {}).get("virtualMachineClassName") or ""
        vm_class = self._get(R.VIRTUAL_MACHINE_CLASS, class_name)
        verdict = _verdict(rules.virtual_machine(req.operation, vm, vm_class))
        if verdict.allowed and vm_class is None:
            return Verdict.allow(rules.missing_class_warning(class_name))
        return verdict

    def _vd(self, req: Request, _lookups: Any) -> Verdict:
        disk = req.obj or {}
        pvc = (disk.get("spec") or {}).get("persistentVolumeClaim") or {}
        old_pvc = ((req.old or {}).get("spec") or {}).get("persistentVolumeClaim") or {}
        needs_class = req.operation == "CREATE" or pvc.get("storageClassName") != old_pvc.get("storageClassName")
        storage_class = self._get(STORAGE_CLASS, pvc.get("storageClassName") or "") if needs_class else None
        vm = None
        if req.operation == "UPDATE" and pvc.get("storageClassName") != old_pvc.get("storageClassName"):
            vm = self._get(R.VIRTUAL_MACHINE, rules.mounted_to(disk), req.namespace)
        return _verdict(rules.virtual_disk(req.operation, disk, req.old, storage_class, vm))

    def _vmbda(self, req: Request, _lookups: Any) -> Verdict:
        siblings = self.client.list(R.VMBDA, req.namespace).items if req.operation == "CREATE" else []
        return _verdict(rules.attachment(req.operation, req.obj or {}, req.old, siblings))

    def _vmip(self, req: Request, _lookups: Any) -> Verdict:
        static_ip = ((req.obj or {}).get("spec") or {}).get("staticIP") or ""
        lease = self._get(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_name(static_ip)) if static_ip else None
        return _verdict(rules.ip_address(req.operation, req.obj or {}, req.old, lease))


class DvpAdmission:
    """start() serves, register() makes the API server call it, stop() ends both."""

    def __init__(self, client: KubeClient, cert_file: str, key_file: str, address: str = "127.0.0.1:0") -> None:
        self.client = client
        reviews = Reviews(client)
        routes = {path: Route(kind, GROUP, reviews.by_kind[kind]) for _, path, kind, _ in WEBHOOKS}
        self.server = WebhookServer(address, routes, None, cert_file, key_file)  # type: ignore[arg-type]

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.server.port}"

    def start(self) -> DvpAdmission:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()
        self.client.close()

    # registration --------------------------------------------------------------------------------------------
    def configuration(self, ca_pem: str) -> dict[str, Any]:
        bundle = base64.b64encode(ca_pem.encode()).decode()
        return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
                "metadata": {"name": CONFIGURATION}, "webhooks": [{
                    "name": name, "admissionReviewVersions": ["v1"], "sideEffects": "None",
                    "failurePolicy": "Fail", "matchPolicy": "Equivalent", "timeoutSeconds": TIMEOUT_SECONDS,
                    "clientConfig": {"url": f"{self.url}{path}", "caBundle": bundle},
                    "rules": [{"apiGroups": [GROUP], "apiVersions": [R.VERSION], "operations": ["CREATE", "UPDATE"],
                               "resources": [plural], "scope": "*"}],
                } for name, path, _, plural in WEBHOOKS]}

    def register(self, ca_pem: str) -> None:
        """Create (or point at this server) DVP's ValidatingWebhookConfiguration."""
        body = self.configuration(ca_pem)
        try:
            current = self.client.get(VALIDATING_WEBHOOK_CONFIGURATION, CONFIGURATION)
        except NotFound:
            self.client.create(VALIDATING_WEBHOOK_CONFIGURATION, body)
            return
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        self.client.replace(VALIDATING_WEBHOOK_CONFIGURATION, body)


def _verdict(message: str | None) -> Verdict:
    return Verdict.allow() if message is None else Verdict.deny(message)
