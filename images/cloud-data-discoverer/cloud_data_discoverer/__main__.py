# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m cloud_data_discoverer: a round at start, then every --discovery-period, until SIGTERM."""

from __future__ import annotations

import logging
import os
import sys

from dvp_common.dvp import DVPConnection, Inventory
from dvp_common.kube import ConfigError, KubeClient
from dvp_common.runtime import logging as runtime_logging
from dvp_common.runtime.health import HealthServer
from dvp_common.runtime.settings import ConfigInvalid
from dvp_common.runtime.signals import stop_on_signals

from .discoverer import Discoverer
from .errors import Scrub
from .guest import Guest
from .metrics import Metrics
from .settings import load_settings


def main(argv: list[str] | None = None) -> int:
    try:
        settings, dvp_settings = load_settings(sys.argv[1:] if argv is None else argv, os.environ)
    except ConfigInvalid as exc:
        print(f"cloud_data_discoverer: {exc}", file=sys.stderr)
        return 2
    runtime_logging.setup(settings.log_level)
    log = logging.getLogger("cloud_data_discoverer")
    try:
        guest_client = KubeClient.from_file_or_service_account(settings.kubeconfig)
        conn = DVPConnection.from_settings(dvp_settings)
    except (ConfigError, OSError) as exc:
        log.error("cloud_data_discoverer: %s", exc)
        return 2
    metrics = Metrics()
    guest = Guest(guest_client, settings.write_attempts, settings.write_backoff, settings.write_backoff_cap)
    # The credentials we hold never leave the process, even quoted back in an upstream error page.
    scrub = Scrub(lambda: (conn.client.transport.credentials.token, guest_client.transport.credentials.token))
    discoverer = Discoverer(Inventory(conn, settings.dvp_request_deadline), guest, metrics, conn.cluster_uuid,
                            settings.quota_threshold, settings.orphan_min_age,
                            vanished_grace=settings.vanished_class_grace, scrub=scrub)
    health = HealthServer(settings.listen_address, metrics.registry)
    health.add_liveness("discovery-write", discoverer.liveness)
    health.add_readiness("dvp-api", discoverer.readiness)
    health.start()
    stop = stop_on_signals()
    log.info("cloud_data_discoverer started (period %.0fs, DVP namespace %s, serving %s)",
             settings.discovery_period, conn.namespace, health.address)
    discoverer.run(settings.discovery_period, stop)
    health.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
