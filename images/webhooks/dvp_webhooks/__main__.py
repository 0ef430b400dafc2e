# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m dvp_webhooks <validation|snapshot> [flags]: serve until SIGTERM."""

from __future__ import annotations

import logging
import sys

from dvp_common.admission.server import WebhookServer
from dvp_common.kube import KubeClient, RetryPolicy
from dvp_common.kube import config as kube_config
from dvp_common.kube.transport import Transport
from dvp_common.runtime.entry import Started
from dvp_common.runtime.entry import main as run
from dvp_common.runtime.health import HealthServer
from prometheus_client import CollectorRegistry

from .handlers import ROUTES
from .lookups import Lookups
from .settings import Settings, load_settings

# Lookups must finish well inside the shortest webhook timeout (10 s): short timeouts, one quick retry.
LOOKUP_TIMEOUT = (2.0, 4.0)
LOOKUP_RETRY = RetryPolicy(attempts=2, base=0.2, cap=0.5)


def _build(s: Settings) -> tuple[Started, str]:
    creds = kube_config.from_file_or_service_account(s.kubeconfig)
    client = KubeClient(Transport(creds, timeout=LOOKUP_TIMEOUT), retry=LOOKUP_RETRY)
    lookups = Lookups(client, s.module_namespace, s.cluster_prefix)
    # dvp_webhook_admission_*, on their own HTTP address (kube-rbac-proxy publishes it), never the webhook's port
    registry = CollectorRegistry()
    server = WebhookServer(s.listen_address, ROUTES[s.mode], lookups, s.tls_cert_file, s.tls_key_file,
                           logger=logging.getLogger("dvp_webhooks"), registry=registry)
    metrics = HealthServer(s.metrics_address, registry) if s.metrics_address else None

    def start() -> None:
        if metrics is not None:
            metrics.start()
        server.start()

    def stop() -> None:
        server.stop()
        if metrics is not None:
            metrics.stop()

    served = f"{s.mode}: {', '.join(sorted(ROUTES[s.mode]))} on :{server.port}"
    return Started(start, stop), served + (f", metrics on {s.metrics_address}" if metrics else "")


def main(argv: list[str] | None = None) -> int:
    return run("dvp_webhooks", load_settings, _build, argv)


if __name__ == "__main__":
    sys.exit(main())
