# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Test cases every certificate hook passes; its <hook>_test.py imports them and provides the `cert_hook`
fixture (module, file path). Not collected on its own (no test_ prefix in the file name)."""

import base64
import datetime

import pytest
from cryptography import x509
from deckhouse import hook as sdk

from lib import testing as t
from lib import tls

NOW = datetime.datetime.now(datetime.UTC)


def now() -> datetime.datetime:
    """For certificates the hook issued during the test: NOW is taken at import, possibly minutes earlier than
    the 5-minute backdating of a new certificate's notBefore covers on a loaded machine."""
    return datetime.datetime.now(datetime.UTC)


def _values(domain="corp.local", internal=None):
    return {"global": {"discovery": {"clusterDomain": domain}}, "cloudProviderDvp": {"internal": internal or {}}}


def _secret(spec, bundle):
    obj = t.secret(spec.namespace, spec.secret, {"tls.crt": bundle["crt"], "tls.key": bundle["key"],
                                                 "ca.crt": bundle["ca"]}, "kubernetes.io/tls")
    return obj


def _run(module, objects, values, kind="sync"):
    snaps = t.snapshots(module, **{module.SNAPSHOT: objects})
    bc = t.synchronization(module, snaps) if kind == "sync" else t.event(module, snaps, module.SNAPSHOT)
    return sdk.testrun(module.main, binding_context=bc, config_values={}, initial_values=values), bc


@pytest.mark.parametrize("kind", ["sync", "event"])
def test_issues_a_certificate_for_the_service_names(cert_hook, kind):
    module, _ = cert_hook
    spec = module.CERT
    out, _ = _run(module, [], _values(), kind)
    [patch] = out.values_patches.data
    assert patch["op"] == "add" and patch["path"] == f"/cloudProviderDvp/internal/{spec.value}"
    bundle = patch["value"]
    leaf = x509.load_pem_x509_certificate(bundle["crt"].encode())
    sans = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    s, ns = spec.service, spec.namespace
    assert sans.get_values_for_type(x509.DNSName) == [s, f"{s}.{ns}", f"{s}.{ns}.svc", f"{s}.{ns}.svc.corp.local"]
    assert leaf.subject.rfc4514_string() == f"CN={spec.common_name}"
    leaf.verify_directly_issued_by(x509.load_pem_x509_certificate(bundle["ca"].encode()))
    assert tls.reusable(bundle, spec.names("corp.local"), now())
    assert out.kube_operations.data == [] and out.metrics.data == []


def test_the_stored_secret_is_reused_and_a_second_run_changes_nothing(cert_hook):
    module, path = cert_hook
    spec = module.CERT
    bundle = tls.issue(spec, spec.names("corp.local"), NOW)
    out, bc = _run(module, [_secret(spec, bundle)], _values())
    assert out.values_patches.data == [
        {"op": "add", "path": f"/cloudProviderDvp/internal/{spec.value}", "value": bundle}]
    again, _ = _run(module, [_secret(spec, bundle)], _values(internal={spec.value: bundle}))
    assert again.values_patches.data == []
    t.assert_contract(module, path, bc, _values(), {}, out)


def test_values_are_reused_before_the_secret_exists(cert_hook):
    module, _ = cert_hook
    spec = module.CERT
    bundle = tls.issue(spec, spec.names("corp.local"), NOW)
    out, _ = _run(module, [], _values(internal={spec.value: bundle}))
    assert out.values_patches.data == []


@pytest.mark.parametrize("why", ["expiring", "other-domain", "garbled", "key-mismatch"])
def test_a_certificate_that_cannot_serve_is_replaced(cert_hook, why):
    module, _ = cert_hook
    spec = module.CERT
    domain = "other.local" if why == "other-domain" else "corp.local"
    when = NOW - tls.LEAF_LIFETIME + datetime.timedelta(days=29) if why == "expiring" else NOW
    bundle = tls.issue(spec, spec.names(domain), when)
    if why == "garbled":
        bundle["crt"] = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
    if why == "key-mismatch":
        bundle["key"] = tls.issue(spec, spec.names(domain), NOW)["key"]
    out, _ = _run(module, [_secret(spec, bundle)], _values())
    new = out.values["cloudProviderDvp"]["internal"][spec.value]
    assert new["crt"] != bundle["crt"] and tls.reusable(new, spec.names("corp.local"), now())


def test_renewal_starts_thirty_days_before_expiry(cert_hook):
    module, _ = cert_hook
    spec = module.CERT
    names = spec.names("cluster.local")
    bundle = tls.issue(spec, names, NOW - tls.LEAF_LIFETIME + datetime.timedelta(days=31))
    assert tls.reusable(bundle, names, NOW)
    assert not tls.reusable(bundle, names, NOW + datetime.timedelta(days=1, minutes=1))


def test_undecodable_secret_data_means_a_new_certificate(cert_hook):
    module, _ = cert_hook
    spec = module.CERT
    broken = t.secret(spec.namespace, spec.secret, {}, "kubernetes.io/tls")
    broken["data"] = {"tls.crt": "%%", "tls.key": "", "ca.crt": base64.b64encode(b"x").decode()}
    out, _ = _run(module, [broken], _values(domain=""))
    new = out.values["cloudProviderDvp"]["internal"][spec.value]
    assert tls.reusable(new, spec.names("cluster.local"), now())


def test_steady_state_run_reuses_without_importing_cryptography(cert_hook):
    """When the Secret holds exactly the bundle in values, the hook reads dates and names from DER only."""
    import json
    import subprocess
    import sys

    module, _ = cert_hook
    spec = module.CERT
    bundle = tls.issue(spec, spec.names("corp.local"), NOW)
    snaps = t.snapshots(module, **{module.SNAPSHOT: [_secret(spec, bundle)]})
    script = (
        "import json, sys\n"
        f"sys.path.insert(0, {t.ROOT + '/hooks'!r})\n"
        f"import {module.__name__} as h\n"
        "from deckhouse import hook\n"
        "bc, values = json.load(sys.stdin)\n"
        "out = hook.testrun(h.main, binding_context=bc, config_values={}, initial_values=values)\n"
        "print(json.dumps([out.values_patches.data, 'cryptography' in sys.modules]))\n"
    )
    stdin = json.dumps([t.synchronization(module, snaps), _values(internal={spec.value: bundle})])
    proc = subprocess.run([sys.executable, "-c", script], input=stdin, capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout) == [[], False]
