# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Bad AdmissionReview bodies: a clear denial (code 400), never a crash; a crashing rule: a 500 denial."""

from __future__ import annotations

import json

import pytest
from dvp_common.admission.decider import decide
from dvp_webhooks.handlers import Route

from testkit.webhooks import UID, body, denied, run

SNAP = "/validate-volumesnapshot"


def review(**req) -> bytes:
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req}).encode()


KIND = {"group": "snapshot.storage.k8s.io", "version": "v1", "kind": "VolumeSnapshot"}


@pytest.mark.parametrize("raw,message,uid", [
    (b"", "AdmissionReview: body is not JSON (JSONDecodeError)", ""),
    (b'{"a":"\x80"}', "AdmissionReview: body is not JSON (UnicodeDecodeError)", ""),
    (b"[]", "AdmissionReview: body is not a JSON object", ""),
    (b'{"apiVersion":"admission.k8s.io/v2","kind":"AdmissionReview"}',
     "AdmissionReview: expected apiVersion admission.k8s.io/v1 or admission.k8s.io/v1beta1 kind AdmissionReview",
     ""),
    (b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}', "AdmissionReview: request is missing", ""),
    (review(operation="CREATE"), "AdmissionReview: request.uid is missing", ""),
    (review(uid=UID, operation="PATCH", kind=KIND),
     "AdmissionReview: request.operation is not one of CREATE, UPDATE, DELETE, CONNECT", UID),
    (review(uid=UID, operation="CREATE"), "AdmissionReview: request.kind.kind is missing", UID),
    (review(uid=UID, operation="CREATE", kind=KIND), "AdmissionReview: request.object is missing for CREATE", UID),
    (review(uid=UID, operation="CREATE", kind=KIND, object="x"), "AdmissionReview: request.object is not an object",
     UID),
    (review(uid=UID, operation="UPDATE", kind=KIND, object={"metadata": {"name": "a"}}),
     "AdmissionReview: request.oldObject is missing for UPDATE", UID),
])
def test_bad_bodies(raw, message, uid):
    assert run(SNAP, raw) == denied(message, code=400, uid=uid)


def test_wrong_kind_for_the_path():
    raw = body("VolumeSnapshotClass", "CREATE", {"metadata": {"name": "c"}, "driver": "d"})
    assert run(SNAP, raw) == denied(
        "this webhook admits VolumeSnapshot.snapshot.storage.k8s.io only, got VolumeSnapshotClass."
        "snapshot.storage.k8s.io", code=400)


def test_malformed_object_fields_are_a_denial_naming_the_field():
    raw = body("VolumeSnapshot", "CREATE", {"metadata": {"name": "s", "namespace": "n"}, "spec": "oops"},
               namespace="n")
    assert run(SNAP, raw) == denied('VolumeSnapshot.snapshot.storage.k8s.io "n/s": object.spec must be an object')


def test_crashing_rule_is_a_500_denial():
    def boom(req, lookups):
        raise RuntimeError("secret detail")
    raw = body("VolumeSnapshot", "CREATE", {"metadata": {"name": "s", "namespace": "n"}}, namespace="n")
    out = decide(raw, Route("VolumeSnapshot", "snapshot.storage.k8s.io", boom), None)
    assert out == denied('VolumeSnapshot.snapshot.storage.k8s.io "n/s": internal error (RuntimeError)', code=500)
