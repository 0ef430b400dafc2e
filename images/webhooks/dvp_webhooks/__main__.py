# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m dvp_webhooks <validation|snapshot> [flags]: serve until SIGTERM."""

from __future__ import annotations

import logging
import os
import ssl
import sys

from dvp_common.kube import ConfigError, KubeClient, RetryPolicy
from dvp_common.kube import config as kube_config
from dvp_common.kube.transport import Transport
from dvp_common.runtime import logging as runtime_logging
from dvp_common.runtime.settings import ConfigInvalid
from dvp_common.runtime.signals import stop_on_signals

from .handlers import ROUTES
from .lookups import Lookups
from .server import WebhookServer
from .settings import load_settings

# Lookups must finish well inside the shortest webhook timeout (10 s): short timeouts, one quick retry.
LOOKUP_TIMEOUT = (2.0, 4.0)
LOOKUP_RETRY = RetryPolicy(attempts=2, base=0.2, cap=0.5)


def main(argv: list[str] | None = None) -> int:
    try:
        mode, settings = load_settings(sys.argv[1:] if argv is None else argv, os.environ)
    except ConfigInvalid as exc:
        print(f"dvp_webhooks: {exc}", file=sys.stderr)
        return 2
    runtime_logging.setup(settings.log_level)
    log = logging.getLogger("dvp_webhooks")
    try:
        creds = kube_config.from_file_or_service_account(settings.kubeconfig)
        client = KubeClient(Transport(creds, timeout=LOOKUP_TIMEOUT), retry=LOOKUP_RETRY)
        lookups = Lookups(client, settings.module_namespace, settings.cluster_prefix)
        server = WebhookServer(settings.listen_address, ROUTES[mode], lookups, settings.tls_cert_file,
                               settings.tls_key_file)
    except (ConfigError, OSError, ssl.SSLError) as exc:
        log.error("dvp_webhooks: %s", exc)
        return 2
    stop = stop_on_signals()
    server.start()
    log.info("dvp_webhooks %s serving %s on :%d", mode, ", ".join(sorted(ROUTES[mode])), server.port)
    stop.wait()
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
