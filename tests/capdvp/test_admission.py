# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Admission: rules, and the HTTPS AdmissionReview endpoint as the API server calls it."""

from __future__ import annotations

import copy
import datetime as dt
import json
import ssl
import urllib.request

import pytest
from capdvp.admission import MACHINE_PATH, TEMPLATE_PATH, WebhookServer, review
from capdvp.domain.admission import validate_machine, validate_template
from capdvp_world import MACHINE_SPEC
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def machine(name="w-1", **spec):
    return {"metadata": {"name": name, "namespace": "d8-cloud-instance-manager"}, "spec": {**MACHINE_SPEC, **spec}}


def template(**spec):
    return {"metadata": {"name": "worker-abc-gen1", "namespace": "d8-cloud-instance-manager"},
            "spec": {"template": {"spec": {**MACHINE_SPEC, **spec}}}}


def test_template_spec_is_immutable():
    old = template()
    assert validate_template("UPDATE", template(memory="16Gi"), old) == (
        'DeckhouseMachineTemplate.infrastructure.cluster.x-k8s.io "d8-cloud-instance-manager/worker-abc-gen1": '
        "spec is immutable; create a new template and point the MachineDeployment at it")
    relabelled = copy.deepcopy(old)
    relabelled["metadata"]["labels"] = {"a": "b"}
    assert validate_template("UPDATE", relabelled, old) is None


def test_template_spec_is_validated_on_create():
    assert validate_template("CREATE", template(), None) is None
    assert validate_template("CREATE", template(cpu={"cores": 0}), None) == (
        'DeckhouseMachineTemplate.infrastructure.cluster.x-k8s.io "d8-cloud-instance-manager/worker-abc-gen1": '
        "spec.template.spec.cpu.cores: must be an integer >= 1, got 0")


def test_machine_create_rules():
    assert validate_machine("CREATE", machine(), None) is None
    assert validate_machine("CREATE", machine(memory="lots"), None).endswith("spec.memory: 'lots' is not a quantity")
    assert validate_machine("CREATE", machine(name="x" * 64), None).endswith(
        "metadata.name must be a DNS label of at most 63 characters (it is the VM name)")


def test_machine_pointing_at_another_vm_is_refused():
    assert validate_machine("CREATE", machine(providerID="dvp://master-0"), None) == (
        'DeckhouseMachine.infrastructure.cluster.x-k8s.io "d8-cloud-instance-manager/w-1": spec.providerID must be '
        "'dvp://w-1' or empty, got 'dvp://master-0'")
    assert validate_machine("CREATE", machine(providerID="dvp://w-1"), None) is None


def test_machine_update_rules():
    old = machine()
    assert validate_machine("UPDATE", machine(providerID="dvp://w-1"), old) is None  # the controller sets it
    assert validate_machine("UPDATE", machine(memory="16Gi", runPolicy="AlwaysOn"), old) is None  # warm + hot
    assert validate_machine("UPDATE", machine(bootloader="BIOS"), old).endswith(
        "changing bootloader needs a new machine; roll out a new DeckhouseMachineTemplate instead")
    assert validate_machine("UPDATE", machine(), machine(providerID="dvp://w-1")).endswith(
        "spec.providerID is immutable once set")


def test_machine_placement_is_not_changed_in_place():
    old = machine(nodeSelector={"zone": "a"}, additionalLabels={"team": "a"})
    assert validate_machine("UPDATE", machine(nodeSelector={"zone": "a"}, additionalLabels={"team": "a"}), old) is None
    assert validate_machine("UPDATE", machine(nodeSelector={"zone": "b"}, priorityClassName="high",
                                              bootloader="BIOS"), old).endswith(
        "changing bootloader, additionalLabels, nodeSelector, priorityClassName needs a new machine; "
        "roll out a new DeckhouseMachineTemplate instead")
    assert validate_machine("UPDATE", machine(nodeSelector={"zone": "a"}, additionalLabels={"team": "a"},
                                              tolerations=[{"operator": "Exists"}]), old).endswith(
        "changing tolerations needs a new machine; roll out a new DeckhouseMachineTemplate instead")


def _review(path, operation, obj, old=None, api="admission.k8s.io/v1"):
    return review(path, {"apiVersion": api, "kind": "AdmissionReview",
                         "request": {"uid": "u-1", "operation": operation, "object": obj, "oldObject": old}})


def test_review_envelopes():
    assert _review(MACHINE_PATH, "CREATE", machine()) == {
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "u-1", "allowed": True}}
    denied = _review(TEMPLATE_PATH, "UPDATE", template(memory="1Gi"), template())["response"]
    assert denied["allowed"] is False and denied["status"]["code"] == 403
    dry = template(memory="1Gi")
    dry["metadata"]["annotations"] = {"topology.cluster.x-k8s.io/dry-run": ""}
    assert _review(TEMPLATE_PATH, "UPDATE", dry, template())["response"]["allowed"] is True
    assert review("/nope", {"kind": "AdmissionReview", "request": {"uid": "x", "object": {}}})["response"][
        "allowed"] is False


@pytest.fixture
def tls_dir(tmp_path):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "capdvp-webhook")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now - dt.timedelta(minutes=1))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    (tmp_path / "tls.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "tls.key").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                         serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    return tmp_path


def test_https_endpoint(tls_dir):
    server = WebhookServer("127.0.0.1", 0, tls_dir)
    server.start()
    try:
        ctx = ssl.create_default_context(cafile=str(tls_dir / "tls.crt"))
        body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
            "uid": "u-9", "operation": "UPDATE", "object": template(memory="2Gi"), "oldObject": template()}}).encode()
        req = urllib.request.Request(f"https://localhost:{server.port}{TEMPLATE_PATH}?timeout=10s", data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=ctx, timeout=10) as resp:  # noqa: S310 (https only)
            answer = json.loads(resp.read())
        assert answer["response"]["uid"] == "u-9" and answer["response"]["allowed"] is False
        bad = urllib.request.Request(f"https://localhost:{server.port}{MACHINE_PATH}", data=b"[1]")
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(bad, context=ctx, timeout=10)  # noqa: S310 (https only)
        assert err.value.code == 400
    finally:
        server.stop()
