# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The admission webhook as the real kube-apiserver calls it (AdmissionReview v1 over HTTPS, caBundle)."""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
import secrets
import time

import pytest
from capdvp import resources as r
from capdvp.admission import MACHINE_PATH, TEMPLATE_PATH
from capdvp.admission import server as webhook_server
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from dvp_common.kube import Forbidden, Resource

from testkit.capdvp.real import SPEC

VWC = Resource("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
               "ValidatingWebhookConfiguration", namespaced=False)


def _tls(tmp_path) -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "capdvp-webhook")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=1))
            .not_valid_after(now + dt.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM)
    (tmp_path / "tls.crt").write_bytes(pem)
    (tmp_path / "tls.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    return pem


@pytest.fixture
def webhook(guest_api, tmp_path):
    ca = _tls(tmp_path)
    server = webhook_server("127.0.0.1:0", tmp_path)
    server.start()
    ns = guest_api.create_namespace("adm")
    client = guest_api.client()
    name = f"capdvp-test-{secrets.token_hex(3)}"

    def hook(hook_name: str, path: str, resource: str) -> dict:
        return {"name": hook_name, "admissionReviewVersions": ["v1"], "sideEffects": "None", "failurePolicy": "Fail",
                "timeoutSeconds": 5,
                "clientConfig": {"url": f"https://127.0.0.1:{server.port}{path}",
                                 "caBundle": base64.b64encode(ca).decode()},
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
                "rules": [{"apiGroups": ["infrastructure.cluster.x-k8s.io"], "apiVersions": ["v1alpha1"],
                           "operations": ["CREATE", "UPDATE"], "resources": [resource], "scope": "Namespaced"}]}

    client.create(VWC, {"metadata": {"name": name}, "webhooks": [
        hook("deckhousemachinetemplate.capdvp.dvp.deckhouse.io", TEMPLATE_PATH, "deckhousemachinetemplates"),
        hook("deckhousemachine.capdvp.dvp.deckhouse.io", MACHINE_PATH, "deckhousemachines")]})
    _wait_active(client, ns)
    yield client, ns
    client.delete(VWC, name, missing_ok=True)
    client.close()
    server.stop()


def _template(spec: dict) -> dict:
    return {"metadata": {"name": "worker-gen1"}, "spec": {"template": {"spec": spec}}}


def _wait_active(client, ns: str) -> None:
    """The API server picks a new webhook configuration up within moments: probe until it answers."""
    probe = {"metadata": {"name": "probe"}, "spec": {**SPEC, "vmClassName": "generic", "providerID": "dvp://x",
                                                     "bootDiskImageRef": {"kind": "VirtualImage", "name": "i"}}}
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            client.create(r.DECKHOUSE_MACHINE, probe, ns)
        except Forbidden:
            return
        client.delete(r.DECKHOUSE_MACHINE, "probe", ns, missing_ok=True)
        time.sleep(0.2)
    raise AssertionError("the webhook configuration never took effect")


def test_template_spec_is_immutable_through_the_api_server(webhook):
    client, ns = webhook
    spec = {**SPEC, "vmClassName": "generic", "bootDiskImageRef": {"kind": "ClusterVirtualImage", "name": "img"}}
    client.create(r.DECKHOUSE_MACHINE_TEMPLATE, _template(spec), ns)
    with pytest.raises(Forbidden) as err:
        client.patch(r.DECKHOUSE_MACHINE_TEMPLATE, "worker-gen1", {"spec": {"template": {"spec": {"memory": "16Gi"}}}},
                     ns)
    assert "spec is immutable; create a new template" in str(err.value)
    client.patch(r.DECKHOUSE_MACHINE_TEMPLATE, "worker-gen1", {"metadata": {"labels": {"a": "b"}}}, ns)
    got = client.get(r.DECKHOUSE_MACHINE_TEMPLATE, "worker-gen1", ns)
    assert got["spec"]["template"]["spec"]["memory"] == "4Gi"


def test_machine_pointing_at_another_vm_is_refused_by_the_api_server(webhook):
    client, ns = webhook
    spec = {**SPEC, "vmClassName": "generic", "bootDiskImageRef": {"kind": "ClusterVirtualImage", "name": "img"},
            "providerID": "dvp://master-0"}
    with pytest.raises(Forbidden) as err:
        client.create(r.DECKHOUSE_MACHINE, {"metadata": {"name": "w-1"}, "spec": spec}, ns)
    assert "spec.providerID must be 'dvp://w-1' or empty" in str(err.value)
    ok = dict(spec, providerID="dvp://w-1")
    created = client.create(r.DECKHOUSE_MACHINE, {"metadata": {"name": "w-1"}, "spec": ok}, ns)
    assert created["spec"] == {**ok, "bootloader": "EFI", "runPolicy": "AlwaysOnUnlessStoppedManually"}  # CRD defaults
