#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Serving certificate of the capdvp runtime-extension webhook (Service capdvp-webhook)
-> internal.capdvpControllerManagerWebhookCert (rendered into Secret capdvp-webhook-tls)."""

from lib import bindings, tls
from lib import values as v
from lib.hookrun import run

SNAPSHOT = "tls_secret"
CERT = tls.ServingCert(
    common_name="capdvp-webhook",
    service="capdvp-webhook",
    namespace=v.NAMESPACE,
    secret="capdvp-webhook-tls",  # noqa: S106 - a Secret name
    value="capdvpControllerManagerWebhookCert",
)

config = bindings.render({"beforeHelm": 5, "kubernetes": [CERT.binding(SNAPSHOT)]})
main = tls.main_for(CERT, SNAPSHOT)

if __name__ == "__main__":
    run(main, config)
