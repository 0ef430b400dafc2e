# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dvp_webhooks: what one admission decision costs (in process, and over TLS with a kept-alive connection), and
the server's import time. Rules that read the cluster are measured with an in-memory view (the API round trips
are the API server's figures, not ours)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import requests
from dvp_common.admission.server import WebhookServer
from dvp_webhooks.handlers import ROUTES

from bench.measure import figure, median_ms, process_ms
from testkit.harness import pki
from testkit.webhooks import FakeLookups, body, run

ROOT = Path(__file__).resolve().parents[1]

SNAP = {"metadata": {"name": "s", "namespace": "n"}, "spec": {"source": {"persistentVolumeClaimName": "data"}}}


def figures():
    raw = body("VolumeSnapshot", "CREATE", SNAP, namespace="n")
    yield figure("webhooks: VolumeSnapshot validation decision (in process)",
                 median_ms(lambda: run("/validate-volumesnapshot", raw), runs=500), "ms", "< 1")
    with tempfile.TemporaryDirectory() as tmp:
        tls = pki.generate(Path(tmp))
        srv = WebhookServer("127.0.0.1:0", ROUTES["snapshot"], FakeLookups(), str(tls.serving_cert),
                            str(tls.serving_key)).start()
        try:
            url = f"https://127.0.0.1:{srv.port}/validate-volumesnapshot"
            with requests.Session() as session:
                ca = str(tls.ca_cert)  # per request: a session-level verify loses to REQUESTS_CA_BUNDLE
                yield figure("webhooks: AdmissionReview round trip over TLS (kept-alive connection)",
                             median_ms(lambda: session.post(url, data=raw, verify=ca, timeout=10).json(), runs=200),
                             "ms", "< 5")
            yield figure("webhooks: AdmissionReview round trip over TLS (new connection each)",
                         median_ms(lambda: requests.post(url, data=raw, verify=str(tls.ca_cert), timeout=10),
                                   runs=50), "ms", "< 20 (the API server keeps connections alive)")
        finally:
            srv.stop()
    yield figure("webhooks: interpreter start + import dvp_webhooks.__main__",
                 process_ms([sys.executable, "-c", "import dvp_webhooks.__main__"], runs=5, cwd=str(ROOT)), "ms",
                 "< 1000")
