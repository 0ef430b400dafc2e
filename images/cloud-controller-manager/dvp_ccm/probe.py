# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""kube-proxy's health check for externalTrafficPolicy: Local: GET http://<node ip>:<healthCheckNodePort>/healthz
answers 200 only on nodes that run a ready endpoint of the Service."""

from __future__ import annotations

import http.client

from dvp_ccm.cloud import Prober


def http_prober(timeout: float = 3.0) -> Prober:
    def probe(ip: str, port: int) -> bool:
        conn = http.client.HTTPConnection(ip, port, timeout=timeout)
        try:
            conn.request("GET", "/healthz")
            return conn.getresponse().status == 200
        except OSError:
            return False
        finally:
            conn.close()

    return probe
