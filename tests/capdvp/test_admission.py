# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Admission: rules, and the HTTPS AdmissionReview endpoint as the API server calls it (the module's one
admission server, hardened against direct clients)."""

from __future__ import annotations

import copy
import datetime as dt
import json
import socket
import ssl
import time
import urllib.request

import pytest
from capdvp.admission import MACHINE_PATH, ROUTES, TEMPLATE_PATH, server
from capdvp.domain.admission import validate_machine, validate_template
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from dvp_common.admission import server as admission_server
from dvp_common.admission.decider import decide
from prometheus_client import CollectorRegistry

from testkit.capdvp.world import MACHINE_SPEC


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


KINDS = {MACHINE_PATH: "DeckhouseMachine", TEMPLATE_PATH: "DeckhouseMachineTemplate"}


def _body(path, operation, obj, old=None, api="admission.k8s.io/v1", uid="u-1") -> dict:
    kind = {"group": "infrastructure.cluster.x-k8s.io", "version": "v1alpha1", "kind": KINDS[path]}
    return {"apiVersion": api, "kind": "AdmissionReview",
            "request": {"uid": uid, "kind": kind, "operation": operation, "object": obj, "oldObject": old}}


def _review(path, operation, obj, old=None, api="admission.k8s.io/v1"):
    return decide(json.dumps(_body(path, operation, obj, old, api)).encode(), ROUTES[path], None)


def test_review_envelopes():
    assert _review(MACHINE_PATH, "CREATE", machine()) == {
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "u-1", "allowed": True}}
    denied = _review(TEMPLATE_PATH, "UPDATE", template(memory="1Gi"), template())["response"]
    assert denied["allowed"] is False and denied["status"]["code"] == 403
    dry = template(memory="1Gi")
    dry["metadata"]["annotations"] = {"topology.cluster.x-k8s.io/dry-run": ""}
    assert _review(TEMPLATE_PATH, "UPDATE", dry, template())["response"]["allowed"] is True
    assert _review(MACHINE_PATH, "DELETE", None, machine())["response"]["allowed"] is True
    assert _review(MACHINE_PATH, "CREATE", machine(), api="admission.k8s.io/v1beta1")["apiVersion"] == (
        "admission.k8s.io/v1beta1")


def test_a_review_of_another_kind_or_malformed_is_denied_not_crashed():
    other = _body(MACHINE_PATH, "CREATE", machine())
    other["request"]["kind"]["kind"] = "DeckhouseMachineTemplate"
    assert decide(json.dumps(other).encode(), ROUTES[MACHINE_PATH], None)["response"]["status"] == {
        "code": 400, "reason": "BadRequest",
        "message": "this webhook admits DeckhouseMachine.infrastructure.cluster.x-k8s.io only, got "
                   "DeckhouseMachineTemplate.infrastructure.cluster.x-k8s.io"}
    typed = _body(MACHINE_PATH, "CREATE", {"metadata": {"name": "w-1"}, "spec": "not an object"})
    answer = decide(json.dumps(typed).encode(), ROUTES[MACHINE_PATH], None)["response"]
    assert answer["allowed"] is False and answer["uid"] == "u-1"
    no_object = _body(MACHINE_PATH, "CREATE", None)
    assert decide(json.dumps(no_object).encode(), ROUTES[MACHINE_PATH], None)["response"]["status"]["message"] == (
        "AdmissionReview: request.object is missing for CREATE")


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


def _post(port, ctx, path, data: bytes):
    req = urllib.request.Request(f"https://localhost:{port}{path}?timeout=10s", data=data,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, context=ctx, timeout=10) as resp:  # noqa: S310 (https only)
        return resp.status, json.loads(resp.read())


def _raw(port, ctx, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, \
            ctx.wrap_socket(raw, server_hostname="localhost") as conn:
        conn.sendall(data)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.fixture
def endpoint(tls_dir):
    srv = server("127.0.0.1:0", tls_dir)
    srv.start()
    try:
        yield srv, ssl.create_default_context(cafile=str(tls_dir / "tls.crt"))
    finally:
        srv.stop()


def test_https_endpoint(endpoint):
    srv, ctx = endpoint
    body = json.dumps(_body(TEMPLATE_PATH, "UPDATE", template(memory="2Gi"), template(), uid="u-9")).encode()
    status, answer = _post(srv.port, ctx, TEMPLATE_PATH, body)
    assert status == 200 and answer["response"]["uid"] == "u-9" and answer["response"]["allowed"] is False
    for unparsable in (b"[1]", b"{not json"):
        with pytest.raises(urllib.error.HTTPError) as err:
            _post(srv.port, ctx, MACHINE_PATH, unparsable)
        assert err.value.code == 400
        assert json.loads(err.value.read())["response"] == {
            "uid": "", "allowed": False, "status": {
                "code": 400, "reason": "BadRequest",
                "message": "AdmissionReview: body is not a JSON object" if unparsable == b"[1]" else
                "AdmissionReview: body is not JSON (JSONDecodeError)"}}
    with pytest.raises(urllib.error.HTTPError) as err:
        _post(srv.port, ctx, "/nope", body)
    assert err.value.code == 404


def test_answers_are_counted_in_the_registry_the_manager_serves(tls_dir):
    """capdvp's webhook counts into the dashboards' dvp_webhook_admission_* families (the e2e scenario starts
    capdvp without its webhook, so its scrape cannot show them): every route from the start, then each verdict."""
    registry = CollectorRegistry()
    srv = server("127.0.0.1:0", tls_dir, registry=registry)
    srv.start()
    try:
        ctx = ssl.create_default_context(cafile=str(tls_dir / "tls.crt"))
        seeded = {(r, a): registry.get_sample_value("dvp_webhook_admission_reviews_total", {"route": r, "allowed": a})
                  for r in (MACHINE_PATH, TEMPLATE_PATH) for a in ("true", "false")}
        assert set(seeded.values()) == {0.0}
        denied = json.dumps(_body(TEMPLATE_PATH, "UPDATE", template(memory="2Gi"), template())).encode()
        assert _post(srv.port, ctx, TEMPLATE_PATH, denied)[1]["response"]["allowed"] is False
    finally:
        srv.stop()
    assert registry.get_sample_value("dvp_webhook_admission_reviews_total",
                                     {"route": TEMPLATE_PATH, "allowed": "false"}) == 1.0
    assert registry.get_sample_value("dvp_webhook_admission_duration_seconds_count", {"route": TEMPLATE_PATH}) == 1.0
    assert registry.get_sample_value("dvp_webhook_admission_reviews_total",
                                     {"route": MACHINE_PATH, "allowed": "true"}) == 0.0


def test_probes_are_served_on_the_webhook_port(endpoint):
    srv, ctx = endpoint
    for path in ("/healthz", "/readyz"):
        with urllib.request.urlopen(f"https://localhost:{srv.port}{path}", context=ctx, timeout=10) as resp:  # noqa: S310
            assert (resp.status, resp.read()) == (200, b"ok\n")


def test_an_oversized_body_is_refused_unread(endpoint):
    srv, ctx = endpoint
    head = (f"POST {MACHINE_PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: {admission_server.MAX_BODY + 1}"
            "\r\n\r\n").encode()
    answer = _raw(srv.port, ctx, head)
    assert answer.startswith(b"HTTP/1.1 413 ")
    review = json.loads(answer.split(b"\r\n\r\n", 1)[1])["response"]
    assert review["allowed"] is False and review["status"]["code"] == 400
    assert _raw(srv.port, ctx, f"POST {MACHINE_PATH} HTTP/1.1\r\nHost: x\r\n\r\n".encode()).startswith(
        b"HTTP/1.1 411 ")


def test_a_slow_client_is_cut_off_by_the_socket_timeout(endpoint, monkeypatch):
    monkeypatch.setattr(admission_server, "SOCKET_TIMEOUT", 0.3)
    srv, ctx = endpoint
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as raw, \
            ctx.wrap_socket(raw, server_hostname="localhost") as conn:
        conn.sendall(f"POST {MACHINE_PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{{".encode())
        started = time.monotonic()
        assert conn.recv(65536) == b""  # the server gives up on the rest of the body and closes
        assert time.monotonic() - started < 5
    body = json.dumps(_body(MACHINE_PATH, "CREATE", machine())).encode()
    assert _post(srv.port, ctx, MACHINE_PATH, body)[1]["response"]["allowed"] is True  # still serving




@pytest.mark.parametrize(("field", "value", "message"), [
    ("cpu", "4", "object.spec.cpu must be an object"),
    ("bootDiskImageRef", ["img"], "object.spec.bootDiskImageRef must be an object"),
    ("additionalDisks", {"size": "1Gi"}, "object.spec.additionalDisks must be a list"),
    ("vmClassName", 7, "object.spec.vmClassName must be a string"),
])
def test_a_wrongly_typed_field_is_a_denial_naming_it(field, value, message):
    from capdvp.admission import FIELDS
    from dvp_common.admission.review import Request
    from dvp_common.admission.shapes import checker

    obj = {"metadata": {"name": "m", "namespace": "ns"}, "spec": {field: value}}
    req = Request(uid="u", kind="DeckhouseMachine", group="infrastructure.cluster.x-k8s.io", operation="CREATE",
                  name="m", namespace="ns", obj=obj, old=None)
    assert checker(FIELDS)(req).endswith(message)
