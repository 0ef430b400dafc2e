# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m dvp_csi --endpoint unix:///csi/csi.sock --mode controller|node|all --node-name NODE"""

from __future__ import annotations

import sys
import threading

from dvp_common.kube.errors import ConfigError
from dvp_common.runtime.entry import Started
from dvp_common.runtime.entry import main as run
from dvp_common.runtime.health import HealthServer

from . import DRIVER_NAME, VERSION, driver, metrics, server
from .settings import ConfigInvalid, Settings, parse

GRACE_SECONDS = 10.0  # calls in flight may finish after SIGTERM (the kubelet waits 30 s before SIGKILL)


def _load(argv, env) -> Settings:
    settings = parse(argv, env)
    if settings.controller and not settings.kubeconfig:
        raise ConfigInvalid("DVP_KUBERNETES_CONFIG_BASE64 is required in controller mode")
    return settings


def build(settings: Settings) -> tuple[Started, str]:
    api = None
    if settings.kubeconfig:
        from .access import Dvp  # only processes with DVP credentials load the client

        try:
            api = Dvp.from_kubeconfig(settings.kubeconfig, settings.namespace, settings.cluster_uuid,
                                      metrics.DVP_REQUESTS)
        except ValueError as exc:  # one line naming the kubeconfig field
            raise ConfigError(f"DVP_KUBERNETES_CONFIG_BASE64: {exc}") from None
    guest = None
    if settings.controller:  # the orphan pass, and the PVs and Nodes that prove an upstream volume ours
        from dvp_common.kube import KubeClient

        guest = KubeClient.from_file_or_service_account(settings.guest_kubeconfig)
    d = driver.build(settings, api, guest=guest)
    metrics_server = HealthServer(settings.metrics_address, metrics.REGISTRY) if settings.metrics_address else None
    grpc_server = server.build(settings.endpoint, d.identity, d.controller, d.node, settings.workers)
    stop = threading.Event()

    def start() -> None:
        if metrics_server:
            metrics_server.start()
        grpc_server.start()
        d.start_reaper(stop)

    def shutdown() -> None:
        stop.set()
        grpc_server.stop(GRACE_SECONDS).wait()
        d.close()
        if metrics_server:
            metrics_server.stop()
        if guest is not None:
            guest.close()

    return Started(start, shutdown), f"{DRIVER_NAME} {VERSION} serving {settings.mode} on {settings.endpoint}"


def main(argv: list[str] | None = None) -> int:
    return run("dvp_csi", _load, build, argv)


if __name__ == "__main__":
    sys.exit(main())
