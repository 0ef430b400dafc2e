#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Serving certificate of the snapshot webhooks (Service snapshot-webhooks)
-> internal.snapshotWebhookCert (rendered into Secret snapshot-webhooks-tls)."""

from lib import bindings, tls
from lib import values as v
from lib.hookrun import run

SNAPSHOT = "tls_secret"
CERT = tls.ServingCert(
    common_name="cloud-provider-dvp-snapshot-webhook",
    service="snapshot-webhooks",
    namespace=v.NAMESPACE,
    secret="snapshot-webhooks-tls",  # noqa: S106 - a Secret name
    value="snapshotWebhookCert",
)

config = bindings.render({"beforeHelm": 5, "kubernetes": [CERT.binding(SNAPSHOT)]})
main = tls.main_for(CERT, SNAPSHOT)

if __name__ == "__main__":
    run(main, config)
