# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The webhooks and the kubeconfig rule under hostile input: one test per finding (names, file references,
secrets in answers and logs, body shapes, deadlines, caps, answer shape). The real-API cases (traversal,
selector, rotation) are in test_whk_security_real_api.py."""

from __future__ import annotations

import base64
import io
import json
import logging
import threading

import pytest
from dvp_common.admission.decider import Decider
from dvp_common.kube import InvalidName, Resource
from dvp_common.kube.resources import NAMESPACE, PERSISTENT_VOLUME_CLAIM, SECRET, SERVICE
from dvp_common.runtime import logging as runtime_logging
from dvp_webhooks.handlers import ROUTES

from testkit.webhooks import UID, FakeLookups, body, denied, run

TOKEN = "s3cr3t-T0KEN-a8f7d6e5c4b3a2"  # noqa: S105 - a test credential; it must never show up in any output
KUBECONFIG = f"""apiVersion: v1
kind: Config
current-context: dvp
clusters: [{{name: dvp, cluster: {{server: "https://dvp.example:6443"}}}}]
users: [{{name: sa, user: {{token: {TOKEN}}}}}]
contexts: [{{name: dvp, context: {{cluster: dvp, user: sa}}}}]
"""
GOOD = base64.b64encode(KUBECONFIG.encode()).decode()
MODULE_NS = "d8-cloud-provider-dvp"
SECRET_PATH = "/validate--v1-secret"  # noqa: S105 - a URL path
MUTATE = "/volume-snapshot-mutate"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def credentials_secret(**data: str) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "type": "cloud-provider.deckhouse.io/credentials",
            "metadata": {"name": "d8-credentials", "namespace": MODULE_NS},
            "data": {k: b64(v) for k, v in data.items()}}


# 1. names go into URL paths only when they can be Kubernetes names ------------------------------------------
@pytest.mark.parametrize("name", ["../../victim/persistentvolumeclaims/db-data", "..", "a/b", "db?watch=true",
                                  "db#frag", "DB", "db%2F..", "db\n", "", "a" * 254])
def test_a_name_that_cannot_be_a_kubernetes_name_never_becomes_a_path(name):
    with pytest.raises(InvalidName) as info:
        PERSISTENT_VOLUME_CLAIM.path("attacker", name)
    assert str(info.value).startswith("PersistentVolumeClaim name ")
    with pytest.raises(InvalidName, match="^namespace "):
        PERSISTENT_VOLUME_CLAIM.path(name or "..", "db-data")


def test_names_follow_each_kinds_rule():
    assert PERSISTENT_VOLUME_CLAIM.path("ns-1", "db.data-1") == (
        "/api/v1/namespaces/ns-1/persistentvolumeclaims/db.data-1")
    with pytest.raises(InvalidName, match="DNS-1035 label"):
        SERVICE.path("ns", "1svc")  # Services are DNS-1035 labels: no leading digit
    with pytest.raises(InvalidName, match="DNS-1123 label"):
        NAMESPACE.path(None, "a.b")  # Namespaces are labels: no dots
    with pytest.raises(InvalidName, match="^subresource "):
        SECRET.path("ns", "s", "status/../..")
    # RBAC names are path segments ("system:controller:x"): allowed, escaped; "/", "%", ".." are not
    cluster_role = Resource("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", namespaced=False)
    assert cluster_role.path(None, "d8:x?y#z") == "/apis/rbac.authorization.k8s.io/v1/clusterroles/d8:x%3Fy%23z"
    for bad in ("..", "a/b", "a%2F"):
        with pytest.raises(InvalidName, match="must be a path segment name"):
            cluster_role.path(None, bad)


@pytest.mark.parametrize("pvc", ["../../victim/persistentvolumeclaims/db-data", "db-data?x=1", "db-data#x"])
def test_snapshot_mutation_refuses_a_traversing_pvc_name_before_any_lookup(pvc):
    lookups = FakeLookups(fail=AssertionError("no lookup for an impossible name"))
    raw = body("VolumeSnapshot", "CREATE", {"metadata": {"name": "s", "namespace": "attacker"},
                                            "spec": {"source": {"persistentVolumeClaimName": pvc}}},
               namespace="attacker")
    out = run(MUTATE, raw, lookups)
    assert out["response"]["allowed"] is False and lookups.asked == []
    assert out["response"]["status"]["message"].startswith(
        'VolumeSnapshot.snapshot.storage.k8s.io "attacker/s": spec.source.persistentVolumeClaimName must be a '
        "DNS-1123 subdomain")


def test_node_group_class_reference_that_cannot_be_a_name_is_refused_before_any_lookup():
    lookups = FakeLookups(fail=AssertionError("no lookup for an impossible name"))
    ng = {"metadata": {"name": "w"}, "spec": {"nodeType": "CloudEphemeral", "cloudInstances": {
        "classReference": {"kind": "DVPInstanceClass", "name": "../../../api/v1/namespaces/x/secrets/y"}}}}
    out = run("/validate-deckhouse-io-v1-nodegroup", body("NodeGroup", "CREATE", ng), lookups)
    assert out["response"]["status"]["message"].startswith(
        'NodeGroup.deckhouse.io "w": object.spec.cloudInstances.classReference.name must be a DNS-1123 subdomain')
    assert lookups.asked == []


# 3. denials name the field, never a value; logs redact kubeconfig material ---------------------------------
def test_swapped_auth_scheme_and_secret_is_denied_without_echoing_the_kubeconfig(caplog):
    caplog.set_level(logging.DEBUG)
    swapped = credentials_secret(authScheme=GOOD, secret="kubeconfig")  # noqa: S106 - swapped on purpose
    raw = body("Secret", "CREATE", swapped, namespace=MODULE_NS)
    out = run(SECRET_PATH, raw)
    message = out["response"]["status"]["message"]
    assert message == ('Secret "d8-cloud-provider-dvp/d8-credentials": data.authScheme: must be kubeconfig; '
                       'Secret "d8-cloud-provider-dvp/d8-credentials": data.secret: kubeconfig is not base64 of UTF-8 '
                       "text")
    for text in (json.dumps(out), caplog.text):
        assert GOOD not in text and TOKEN not in text and GOOD[:40] not in text


def test_the_log_redactor_knows_kubeconfig_keys_and_long_base64():
    stream = io.StringIO()
    log = logging.getLogger("whk-security-redactor")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(runtime_logging.JsonFormatter())
    log.addHandler(handler)
    try:
        key = b64("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB" + "Xy" * 40 + "\n-----END EC PRIVATE KEY-----\n")
        log.warning("kubeconfig: client-key-data: %s certificate-authority-data: %s and %s", key, key[:60], GOOD,
                    extra={"certificate-authority-data": key, "doc": {"client-key-data": key, "token": TOKEN}})
    finally:
        log.removeHandler(handler)
    line = stream.getvalue()
    assert key[:30] not in line and GOOD[:30] not in line and TOKEN not in line
    doc = json.loads(line)
    assert doc["certificate-authority-data"] == "<redacted>" and doc["doc"]["client-key-data"] == "<redacted>"
    # what is not a secret stays readable: names, paths, hex digests
    text = "pvc-0b6f-data /var/lib/kubelet/plugins/kubernetes.io/csi/pv/pvc-1/globalmount sha256:" + "ab" * 32
    assert runtime_logging.redact_text(text) == text


def test_scrub_makes_free_text_publishable():
    page = f"<html>502 Bad Gateway\nAuthorization: Bearer {TOKEN}\nbody: {GOOD}</html>"
    out = runtime_logging.scrub(page, limit=80)
    assert TOKEN not in out and GOOD[:20] not in out and "\n" not in out and len(out) <= 80
    assert out.startswith("<html>502 Bad Gateway Authorization: Bearer <redacted>")


# 9, 12. every body gets a well-formed answer --------------------------------------------------------------
def nested(depth: int) -> bytes:
    return b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","x":' + \
        b"[" * depth + b"]" * depth + b"}}"


def test_deep_json_gets_an_answer():
    decider = Decider()
    try:
        for depth in (150, 1000, 100_000):
            status, out = decider.decide(nested(depth), ROUTES["snapshot"]["/validate-volumesnapshot"], FakeLookups())
            assert out["response"]["allowed"] is False and out["response"]["status"]["code"] == 400
            assert "nested deeper than 100 levels" in out["response"]["status"]["message"]
    finally:
        decider.close()


def test_non_mapping_metadata_with_empty_name_is_denied_naming_the_field():
    raw = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": UID, "operation": "CREATE", "name": "", "namespace": "n",
        "kind": {"group": "snapshot.storage.k8s.io", "version": "v1", "kind": "VolumeSnapshot"},
        "object": {"metadata": ["x"], "spec": {}}}}).encode()
    assert run("/validate-volumesnapshot", raw) == denied(
        'VolumeSnapshot.snapshot.storage.k8s.io "n/": object.metadata must be an object')


@pytest.mark.parametrize(("path", "kind", "obj", "field"), [
    (SECRET_PATH, "Secret", {"type": "cloud-provider.deckhouse.io/credentials", "data": {"secret": 1}},
     "object.data must be a map of strings"),
    (SECRET_PATH, "Secret", {"type": ["x"]}, "object.type must be a string"),
    ("/validate-deckhouse-io-v1-nodegroup", "NodeGroup", {"spec": {"cloudInstances": "x"}},
     "object.spec.cloudInstances must be an object"),
    ("/validate-deckhouse-io-v1alpha1-dvpinstanceclass", "DVPInstanceClass",
     {"spec": {}, "status": {"nodeGroupConsumers": [1]}}, "object.status.nodeGroupConsumers must be a list of strings"),
    ("/validate-volumesnapshotcontent", "VolumeSnapshotContent", {"spec": {"volumeSnapshotRef": []}},
     "object.spec.volumeSnapshotRef must be an object"),
    ("/validate-volumesnapshotclass", "VolumeSnapshotClass",
     {"driver": {}, "metadata": {"annotations": {"snapshot.storage.kubernetes.io/is-default-class": True}}},
     "object.metadata.annotations must be a map of strings"),
    (MUTATE, "VolumeSnapshot", {"spec": {"source": {"persistentVolumeClaimName": ["a"]}}},
     "object.spec.source.persistentVolumeClaimName must be a string"),
])
def test_type_confusion_is_a_denial_naming_the_field(path, kind, obj, field):
    obj = {"metadata": {"name": "o", **obj.pop("metadata", {})}, **obj}
    out = run(path, body(kind, "CREATE", obj))
    assert out["response"]["status"]["code"] == 403
    assert out["response"]["status"]["message"].endswith(f": {field}")


def test_v1beta1_review_is_answered_in_kind_with_its_uid():
    raw = json.loads(body("VolumeSnapshot", "CREATE", {"metadata": {"name": "s", "namespace": "n"}, "spec": {
        "source": {"persistentVolumeClaimName": "data"}}}, namespace="n"))
    raw["apiVersion"] = "admission.k8s.io/v1beta1"
    out = run("/validate-volumesnapshot", json.dumps(raw).encode())
    assert out == {"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview",
                   "response": {"uid": UID, "allowed": True}}


def test_unparsable_bodies_are_http_400_and_readable_uids_are_answered():
    decider = Decider()
    route = ROUTES["snapshot"]["/validate-volumesnapshot"]
    try:
        assert decider.decide(b"{", route, FakeLookups())[0] == 400
        assert decider.decide(b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}', route,
                              FakeLookups())[0] == 400
        status, out = decider.decide(json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                                 "request": {"uid": UID, "operation": "NUKE"}}).encode(), route,
                                     FakeLookups())
        assert (status, out["response"]["uid"], out["response"]["status"]["code"]) == (200, UID, 400)
    finally:
        decider.close()


# 10. a deadline per request, below the webhook timeout ----------------------------------------------------
class StuckLookups(FakeLookups):
    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.entered = threading.Event()

    def pvc(self, namespace: str, name: str) -> dict | None:
        self.entered.set()
        self.release.wait(30)
        return None


def test_a_stuck_lookup_is_answered_by_the_deadline_fail_closed():
    lookups = StuckLookups()
    decider = Decider(deadline=0.3, workers=1)
    raw = body("VolumeSnapshot", "CREATE", {"metadata": {"name": "s", "namespace": "n"}, "spec": {
        "source": {"persistentVolumeClaimName": "data"}}}, namespace="n")
    try:
        status, out = decider.decide(raw, ROUTES["snapshot"][MUTATE], lookups)
        assert lookups.entered.is_set()
        assert (status, out) == (200, denied('VolumeSnapshot.snapshot.storage.k8s.io "n/s": cannot check the '
                                             "request now: no verdict within 0.3 s", code=500))
        # the only worker is still stuck: the next request is answered by the deadline as well
        status, out = decider.decide(raw, ROUTES["snapshot"][MUTATE], lookups)
        assert out["response"]["status"]["code"] == 500
    finally:
        lookups.release.set()
        decider.close()


def test_the_deadline_is_below_every_webhook_timeout():
    from chart import render
    from dvp_common.admission import decider as admission

    objects = render.render_values(render.module_values(all_on=True))
    timeouts = [(w["clientConfig"]["service"]["name"], w["timeoutSeconds"]) for o in objects
                if o["kind"].endswith("WebhookConfiguration") for w in o["webhooks"]]
    # capdvp's webhooks run on the same server, with the same deadline
    assert "capdvp-webhook" in {name for name, _ in timeouts}
    assert min(t for _, t in timeouts) > admission.DEADLINE


def test_a_failing_rule_fails_closed_with_the_traceback_at_error_level(caplog, monkeypatch):
    from dvp_webhooks.domain import snapshots

    def boom(req):
        raise TypeError(f"leaked {TOKEN}")
    monkeypatch.setattr(snapshots, "validate_snapshot", boom)
    raw = body("VolumeSnapshot", "CREATE", {"metadata": {"name": "s", "namespace": "n"}}, namespace="n")
    out = run("/validate-volumesnapshot", raw)
    assert out == denied('VolumeSnapshot.snapshot.storage.k8s.io "n/s": internal error (TypeError)', code=500)
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info and TOKEN not in json.dumps(out)
