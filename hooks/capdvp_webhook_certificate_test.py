# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import datetime
import os

import capdvp_webhook_certificate as hook
import pytest
from cryptography import x509
from deckhouse import hook as sdk
from lib import testing as t
from lib.testing.tls_hook_cases import *  # noqa: F403 - the shared certificate-hook cases run against this hook


@pytest.fixture
def cert_hook():
    return hook, os.path.join(os.path.dirname(__file__), "capdvp_webhook_certificate.py")


# Deckhouse's own hook test, replayed (facts only): deckhouse/deckhouse
# modules/030-cloud-provider-dvp/hooks/generate_capdvp_webhook_certs_test.go@8d7668d09f92c2e56beee406f15d7d1a3bc1ed5e,
# with the names of generate_capdvp_webhook_certs.go@4cb252cc8cd4a8d1023204fedc7033d33faca3ed (Secret
# capdvp-webhook-tls, common name capdvp-webhook, SANs capdvp-webhook.d8-cloud-provider-dvp[.svc][.<domain>]).
VALUES = {"global": {"discovery": {"clusterDomain": "cluster.local"}},
          "cloudProviderDvp": {"internal": {"capdvpControllerManagerWebhookCert": {}}}}


def deckhouse_issued(now):
    """A bundle as Deckhouse's module issues it: ECDSA P-256, CA and leaf both named capdvp-webhook, ten years."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "capdvp-webhook")])
    ten_years = datetime.timedelta(days=3650)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(ca_key.public_key())
          .serial_number(1).not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + ten_years)
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    base = "capdvp-webhook.d8-cloud-provider-dvp"
    sans = [base, f"{base}.svc", f"{base}.cluster.local", f"{base}.svc.cluster.local"]
    leaf = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(2).not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + ten_years)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in sans]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    return {"ca": ca.public_bytes(pem).decode(), "crt": leaf.public_bytes(pem).decode(),
            "key": key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()}


def test_upstream_without_secret():
    # "Without secret": a CA and a leaf in values; ours names the CA capdvp-webhook-ca (upstream: capdvp-webhook)
    snaps = t.snapshots(hook, tls_secret=[])
    out = sdk.testrun(hook.main, binding_context=t.before_helm(snaps), config_values={}, initial_values=VALUES)
    bundle = out.values["cloudProviderDvp"]["internal"]["capdvpControllerManagerWebhookCert"]
    ca = x509.load_pem_x509_certificate(bundle["ca"].encode())
    leaf = x509.load_pem_x509_certificate(bundle["crt"].encode())
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is True
    assert leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    assert (ca.subject.rfc4514_string(), leaf.subject.rfc4514_string()) == ("CN=capdvp-webhook-ca",
                                                                              "CN=capdvp-webhook")
    assert bundle["key"].startswith("-----BEGIN PRIVATE KEY-----")


def test_upstream_existing_secret_is_kept():
    # "With existing secret": the certificate Deckhouse's module issued is kept at the switch (its SANs cover
    # every name the API server dials), not replaced
    bundle = deckhouse_issued(datetime.datetime.now(datetime.UTC))
    secret = t.secret("d8-cloud-provider-dvp", "capdvp-webhook-tls",
                      {"ca.crt": bundle["ca"], "tls.crt": bundle["crt"], "tls.key": bundle["key"]},
                      "kubernetes.io/tls")
    snaps = t.snapshots(hook, tls_secret=[secret])
    out = sdk.testrun(hook.main, binding_context=t.synchronization(hook, snaps), config_values={},
                      initial_values=VALUES)
    assert out.values["cloudProviderDvp"]["internal"]["capdvpControllerManagerWebhookCert"] == bundle
