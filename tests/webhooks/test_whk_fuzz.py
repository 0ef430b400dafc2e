# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""AdmissionReview shapes from hypothesis against every route: each body gets a well-formed answer (the uid
when it was readable), never an internal error, and no secret planted in the Secret's data reaches the answer
or the log."""

from __future__ import annotations

import base64
import json
import logging

import pytest
from dvp_common.admission.decider import Decider
from dvp_webhooks.handlers import ROUTES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from testkit.webhooks import FakeLookups

SECRET = "fuzz-S3CRET-4b1d9c"  # noqa: S105 - planted in Secret data; must never come back
KINDS = {"Secret": "", "NodeGroup": "deckhouse.io", "DVPInstanceClass": "deckhouse.io",
         "VolumeSnapshot": "snapshot.storage.k8s.io", "VolumeSnapshotContent": "snapshot.storage.k8s.io",
         "VolumeSnapshotClass": "snapshot.storage.k8s.io"}
ROUTE_LIST = [(path, route) for routes in ROUTES.values() for path, route in routes.items()]

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12),
                    st.sampled_from(["", "kubeconfig", "CloudPermanent", "DVPInstanceClass", "master", "true",
                                     "cloud-provider.deckhouse.io/credentials", "data", "../x", "a?b"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                      max_leaves=12)
planted = st.sampled_from([SECRET, base64.b64encode(SECRET.encode()).decode(),
                           base64.b64encode(f"users: [{{name: u, user: {{token: {SECRET}}}}}]".encode()).decode()])
KEYS = {"metadata": ["name", "namespace", "labels", "annotations"], "spec": [
    "source", "nodeType", "cloudInstances", "volumeSnapshotClassName", "volumeSnapshotRef", "sourceVolumeMode",
    "etcdDisk"], "": ["type", "driver", "status"]}


@st.composite
def k8s_objects(draw):
    """Objects shaped like the kinds we admit, with any value in any field, and secrets in Secret data."""
    obj = {}
    for section, keys in KEYS.items():
        fields = {k: draw(values) for k in draw(st.lists(st.sampled_from(keys), unique=True, max_size=len(keys)))}
        if section:
            obj[section] = fields if draw(st.booleans()) else draw(values)
        else:
            obj.update(fields)
    if draw(st.booleans()):
        obj["data"] = draw(st.dictionaries(st.sampled_from(["authScheme", "secret", "identity", "x"]),
                                           st.one_of(planted, values), max_size=3))
    if draw(st.booleans()):
        obj["stringData"] = draw(st.dictionaries(st.sampled_from(["authScheme", "secret", "identity"]),
                                                 st.one_of(planted, values), max_size=3))
    return obj


@st.composite
def reviews(draw):
    kind = draw(st.sampled_from(sorted(KINDS)))
    req = {"uid": draw(st.one_of(st.just("u-1"), values)), "operation": draw(st.one_of(
        st.sampled_from(["CREATE", "UPDATE", "DELETE", "CONNECT"]), values)),
        "kind": draw(st.one_of(st.just({"group": KINDS[kind], "version": "v1", "kind": kind}), values)),
        "object": draw(st.one_of(k8s_objects(), values)), "oldObject": draw(st.one_of(k8s_objects(), st.none())),
        "name": draw(st.one_of(st.none(), st.text(max_size=10), values)),
        "namespace": draw(st.one_of(st.none(), st.just("d8-cloud-provider-dvp"), values)),
        "userInfo": draw(st.one_of(st.just({"username": "system:serviceaccount:d8-system:deckhouse"}), values))}
    return {"apiVersion": draw(st.sampled_from(["admission.k8s.io/v1", "admission.k8s.io/v1beta1"])),
            "kind": "AdmissionReview", "request": req}


@pytest.fixture(scope="module")
def decider():
    d = Decider(workers=2, logger=logging.getLogger("dvp_webhooks"))
    yield d
    d.close()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(review=reviews(), which=st.integers(min_value=0, max_value=len(ROUTE_LIST) - 1))
def test_every_review_gets_a_well_formed_answer_without_secrets(decider, review, which):
    path, route = ROUTE_LIST[which]
    handler = logging.Handler()
    seen: list[str] = []
    handler.emit = lambda record: seen.append(record.getMessage() + str(record.exc_info or ""))  # type: ignore
    log = logging.getLogger("dvp_webhooks")
    log.addHandler(handler)
    try:
        status, out = decider.decide(json.dumps(review).encode(), route, FakeLookups(migrating=True))
    finally:
        log.removeHandler(handler)
    resp = out["response"]
    assert out["kind"] == "AdmissionReview" and out["apiVersion"] in ("admission.k8s.io/v1",
                                                                      "admission.k8s.io/v1beta1")
    assert isinstance(resp["allowed"], bool)
    uid = review["request"]["uid"]
    if status == 200:
        assert resp["uid"] == uid and isinstance(uid, str)
    else:
        assert status == 400 and resp["uid"] == ""
    if not resp["allowed"]:
        assert resp["status"]["code"] in (400, 403), (path, resp)  # never an internal error
    text = json.dumps(out) + "".join(seen)
    assert SECRET not in text and base64.b64encode(SECRET.encode()).decode() not in text


@settings(max_examples=100, deadline=None)
@given(raw=st.one_of(st.binary(max_size=64), st.text(max_size=64).map(str.encode),
                     values.map(lambda v: json.dumps(v).encode())))
def test_any_bytes_get_an_answer(decider, raw):
    status, out = decider.decide(raw, ROUTES["validation"]["/validate--v1-secret"], FakeLookups())
    assert status in (200, 400) and out["response"]["allowed"] is False
    assert out["response"]["status"]["code"] == 400
