# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Each certificate hook issues for the Service its webhook configuration names and reads back the Secret the
chart renders from its value: kube-apiserver checks the serving certificate against `<service>.<ns>.svc`, and a
hook watching a Secret the chart never writes would issue a new pair on every run."""

from __future__ import annotations

import capdvp_webhook_certificate
import pytest
import snapshot_webhook_certificate
import validation_webhook_certificate
from chart import render

CERTS = [capdvp_webhook_certificate.CERT, snapshot_webhook_certificate.CERT, validation_webhook_certificate.CERT]
WEBHOOK_KINDS = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")


@pytest.fixture(scope="module")
def objects():
    return render.render_values(render.module_values(all_on=True))


def named(objects, kind: str) -> set[tuple[str, str]]:
    return {(o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in objects if o["kind"] == kind}


@pytest.mark.parametrize("cert", CERTS, ids=lambda c: c.value)
def test_the_certificate_names_a_rendered_service_and_secret(objects, cert):
    assert (cert.namespace, cert.service) in named(objects, "Service")
    assert (cert.namespace, cert.secret) in named(objects, "Secret")


def test_every_webhook_calls_a_service_some_certificate_is_issued_for(objects):
    called = {(w["clientConfig"]["service"]["namespace"], w["clientConfig"]["service"]["name"])
              for o in objects if o["kind"] in WEBHOOK_KINDS for w in o["webhooks"]}
    assert called == {(c.namespace, c.service) for c in CERTS}
