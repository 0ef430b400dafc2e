# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m cloud_data_discoverer: a round at start, then every --discovery-period, until SIGTERM."""

from __future__ import annotations

import sys
import threading

from dvp_common.dvp import DVPConnection, Inventory
from dvp_common.kube import KubeClient, RequestMetrics
from dvp_common.runtime.entry import Started
from dvp_common.runtime.entry import main as run
from dvp_common.runtime.health import HealthServer

from .discoverer import Discoverer
from .errors import Scrub
from .guest import Guest
from .metrics import Metrics
from .settings import Settings, load_settings

ROUND_DRAIN = 70.0  # seconds a round in flight may take to finish on stop (a DVP read is bounded at 60 s)


def build(settings: Settings) -> tuple[Started, str]:
    guest_client = KubeClient.from_file_or_service_account(settings.kubeconfig)
    metrics = Metrics()
    conn = DVPConnection.from_settings(settings.dvp, metrics=RequestMetrics(metrics.registry))
    guest = Guest(guest_client, settings.write_attempts, settings.write_backoff, settings.write_backoff_cap)
    # The credentials we hold never leave the process, even quoted back in an upstream error page.
    scrub = Scrub(lambda: (conn.client.transport.credentials.token, guest_client.transport.credentials.token))
    discoverer = Discoverer(Inventory(conn, settings.dvp_request_deadline), guest, metrics, conn.cluster_uuid,
                            settings.quota_threshold, settings.orphan_min_age,
                            vanished_grace=settings.vanished_class_grace, scrub=scrub)
    health = HealthServer(settings.listen_address, metrics.registry)
    health.add_liveness("discovery-write", discoverer.liveness)
    health.add_readiness("dvp-api", discoverer.readiness)
    stop = threading.Event()
    loop = threading.Thread(target=discoverer.run, args=(settings.discovery_period, stop), name="discovery",
                            daemon=True)

    def start() -> None:
        health.start()
        loop.start()

    def shutdown() -> None:
        stop.set()
        loop.join(ROUND_DRAIN)
        health.stop()

    return Started(start, shutdown), (f"period {settings.discovery_period:.0f}s, DVP namespace {conn.namespace}, "
                                      f"serving {health.address}")


def main(argv: list[str] | None = None) -> int:
    return run("cloud_data_discoverer", load_settings, build, argv)


if __name__ == "__main__":
    sys.exit(main())
