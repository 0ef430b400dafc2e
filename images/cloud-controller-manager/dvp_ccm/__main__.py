# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m dvp_ccm: run the cloud-controller-manager until SIGTERM."""

from __future__ import annotations

import sys

from dvp_common.dvp import DVPConnection
from dvp_common.kube import KubeClient, RequestMetrics
from dvp_common.runtime.entry import main as run
from prometheus_client import CollectorRegistry

from dvp_ccm.settings import Settings, load


def build(settings: Settings):
    from dvp_ccm.manager import Manager

    guest = KubeClient.from_file_or_service_account(settings.kubeconfig)
    registry = CollectorRegistry()  # the DVP requests (dvp_client_*) on /metrics beside the dvp_ccm_* series
    dvp = DVPConnection.from_settings(settings.dvp, metrics=RequestMetrics(registry))
    return Manager(settings, guest, dvp, registry=registry), (f"controllers {','.join(sorted(settings.controllers))}, "
                                           f"DVP namespace {dvp.namespace}")


def main(argv: list[str] | None = None) -> int:
    return run("dvp_ccm", load, build, argv)


if __name__ == "__main__":
    sys.exit(main())
