# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp's webhooks (:9443): DeckhouseMachineTemplate immutability, DeckhouseMachine validation.

They run on the module's one admission server (dvp_common.admission) and only translate a Request into
domain/admission.py's rules. Paths follow controller-runtime's naming so a ValidatingWebhookConfiguration reads
the same as for a Go provider.
"""

from __future__ import annotations

import logging
from pathlib import Path

from dvp_common.admission.decider import Route
from dvp_common.admission.review import Request
from dvp_common.admission.server import WebhookServer
from dvp_common.admission.shapes import LIST, MAP, STR, checker
from dvp_common.admission.verdict import Verdict
from prometheus_client import CollectorRegistry

from capdvp.domain import admission

log = logging.getLogger(__name__)

MACHINE_PATH = "/validate-infrastructure-cluster-x-k8s-io-v1alpha1-deckhousemachine"
TEMPLATE_PATH = "/validate-infrastructure-cluster-x-k8s-io-v1alpha1-deckhousemachinetemplate"
DRY_RUN_ANNOTATION = "topology.cluster.x-k8s.io/dry-run"


def _verdict(error: str | None) -> Verdict:
    return Verdict.allow() if error is None else Verdict.deny(error)


def _machine(req: Request, _lookups: object) -> Verdict:
    return _verdict(admission.validate_machine(req.operation, req.obj or {}, req.old))


def _template(req: Request, _lookups: object) -> Verdict:
    # ClusterClass' topology controller checks templates with a server-side-apply dry run: let it through.
    annotations = ((req.obj or {}).get("metadata") or {}).get("annotations")
    if isinstance(annotations, dict) and DRY_RUN_ANNOTATION in annotations:
        return Verdict.allow()
    return _verdict(admission.validate_template(req.operation, req.obj or {}, req.old))


# The fields the rules read (parse_spec judges values, these their types first).
_SPEC = {"vmClassName": STR, "cpu": MAP, "bootDiskImageRef": MAP, "bootDiskImageRef.kind": STR,
         "bootDiskImageRef.name": STR, "additionalDisks": LIST, "providerID": STR, "tolerations": LIST,
         "runPolicy": STR, "liveMigrationPolicy": STR, "bootloader": STR, "rootDiskStorageClass": STR}
FIELDS = {"DeckhouseMachine": {"spec": MAP, **{f"spec.{k}": v for k, v in _SPEC.items()}},
          "DeckhouseMachineTemplate": {"spec": MAP, "spec.template": MAP, "spec.template.spec": MAP,
                                       **{f"spec.template.spec.{k}": v for k, v in _SPEC.items()}}}
_check = checker(FIELDS)

ROUTES: dict[str, Route] = {
    MACHINE_PATH: Route("DeckhouseMachine", admission.GROUP, _machine, _check),
    TEMPLATE_PATH: Route("DeckhouseMachineTemplate", admission.GROUP, _template, _check),
}


def server(address: str, cert_dir: Path | str, cert_name: str = "tls.crt", key_name: str = "tls.key",
           registry: CollectorRegistry | None = None) -> WebhookServer:
    """The HTTPS server on `address` ([host]:port), with the certificate pair of `cert_dir`; its answers are
    counted in `registry` as dvp_webhook_admission_* (served on the manager's metrics address)."""
    cert_dir = Path(cert_dir)
    return WebhookServer(address, ROUTES, None, str(cert_dir / cert_name), str(cert_dir / key_name), logger=log,
                         registry=registry)

