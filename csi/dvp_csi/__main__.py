# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m dvp_csi --endpoint unix:///csi/csi.sock --mode controller|node|all --node-name NODE"""

from __future__ import annotations

import logging
import sys
import threading

from prometheus_client import start_http_server

from . import DRIVER_NAME, VERSION, driver, metrics, server
from .settings import ConfigInvalid, parse

LEVELS = {"Debug": logging.DEBUG, "Info": logging.INFO, "Warn": logging.WARNING, "Error": logging.ERROR}


def main(argv: list[str]) -> int:
    try:
        settings = parse(argv)
    except ConfigInvalid as exc:
        print(f"dvp_csi: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=LEVELS[settings.log_level], format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    api = None
    if settings.kubeconfig:
        from .access import Dvp  # only processes with DVP credentials load the client

        try:
            api = Dvp.from_kubeconfig(settings.kubeconfig, settings.namespace, settings.cluster_uuid)
        except ValueError as exc:  # dvp_common's ConfigError: one line naming the kubeconfig field
            print(f"dvp_csi: DVP_KUBERNETES_CONFIG_BASE64: {exc}", file=sys.stderr)
            return 2
    elif settings.controller:
        print("dvp_csi: DVP_KUBERNETES_CONFIG_BASE64 is required in controller mode", file=sys.stderr)
        return 2
    d = driver.build(settings, api)
    if settings.metrics_address:
        host, _, port = settings.metrics_address.rpartition(":")
        start_http_server(int(port), addr=host or "127.0.0.1", registry=metrics.REGISTRY)
    grpc_server = server.build(settings.endpoint, d.identity, d.controller, d.node, settings.workers)
    stop = threading.Event()
    d.start_reaper(stop)
    logging.getLogger("dvp_csi").info("%s %s serving %s on %s", DRIVER_NAME, VERSION, settings.mode, settings.endpoint)
    server.serve_until_signalled(grpc_server, on_stop=stop.set)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
