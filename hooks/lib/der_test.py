# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import datetime

import pytest
from cryptography import x509

from lib import der, tls

NOW = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
SPEC = tls.ServingCert("cn", "svc", "ns", "svc-tls", "svcCert")


@pytest.mark.parametrize("when", [NOW, NOW.replace(year=2049), NOW.replace(year=2051)])
def test_reads_what_cryptography_reads(when):
    bundle = tls.issue(SPEC, SPEC.names("cluster.local"), when)
    for pem in (bundle["crt"], bundle["ca"]):
        cert = x509.load_pem_x509_certificate(pem.encode())
        not_before, not_after, names = der.read(pem)
        assert (not_before, not_after) == (cert.not_valid_before_utc, cert.not_valid_after_utc)
        try:
            want = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
                x509.DNSName)
        except x509.ExtensionNotFound:
            want = []
        assert names == want
    assert der.read(bundle["crt"])[2] == ["svc", "svc.ns", "svc.ns.svc", "svc.ns.svc.cluster.local"]


@pytest.mark.parametrize("pem", ["", "garbage", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----",
                                 "-----BEGIN CERTIFICATE-----\n%%%\n-----END CERTIFICATE-----"])
def test_malformed_input_is_refused(pem):
    with pytest.raises(ValueError):
        der.read(pem)


def test_steady_state_check_needs_identical_secret_and_values():
    bundle = tls.issue(SPEC, SPEC.names("cluster.local"), NOW)
    assert tls.still_fresh(bundle, SPEC.names("cluster.local"), NOW)
    assert not tls.still_fresh(bundle, SPEC.names("other.local"), NOW)
    assert not tls.still_fresh(bundle, SPEC.names("cluster.local"), NOW + tls.LEAF_LIFETIME - tls.RENEW_BEFORE)
