# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The validation webhook's rules over AdmissionReview bodies of realistic objects with any field of any type
(credentials Secrets holding kubeconfigs with a planted token, NodeGroups, DVPInstanceClasses; lib/testing/hostile.py),
the handler called in-process: every body is answered with an AdmissionReview carrying its uid; a denial is
one line naming the object and field, with code 400 or 403 (never an internal error); no token in the answer
or the log."""

from __future__ import annotations

import json
import logging
import os

from dvp_common.admission.decider import decide
from dvp_webhooks.handlers import ROUTES
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lib.testing import hostile as h

from testkit.webhooks import UID, FakeLookups, body

PROPERTIES = settings(max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "60")), derandomize=True,
                      deadline=None, database=None,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TYPE = "cloud-provider.deckhouse.io/credentials"
SECRET = {"apiVersion": "v1", "kind": "Secret", "type": TYPE,
          "metadata": {"name": "d8-credentials", "namespace": "d8-cloud-provider-dvp", "labels": {"a": "b"}},
          "data": {"authScheme": h.b64("kubeconfig"), "secret": h.b64(h.b64(h.yaml_text(h.KUBECONFIG)))}}
NODE_GROUP = {"apiVersion": "deckhouse.io/v1", "kind": "NodeGroup", "metadata": {"name": "worker"},
              "spec": {"nodeType": "CloudEphemeral", "cloudInstances": {
                  "minPerZone": 1, "maxPerZone": 2, "zones": ["default"],
                  "classReference": {"kind": "DVPInstanceClass", "name": "worker"}}}}
INSTANCE_CLASS = {"apiVersion": "deckhouse.io/v1alpha1", "kind": "DVPInstanceClass", "metadata": {"name": "worker"},
                  "spec": {"virtualMachine": {"cpu": {"cores": 2, "coreFraction": "50%"},
                                              "memory": {"size": "4Gi"}, "virtualMachineClassName": "generic"},
                           "rootDisk": {"size": "20Gi", "image": {"kind": "ClusterVirtualImage", "name": "ubuntu"}},
                           "additionalDisks": [{"size": "1Gi", "storageClass": "fast"}]},
                  "status": {"nodeGroupConsumers": ["worker"]}}
OBJECTS = {"/validate--v1-secret": ("Secret", SECRET, "d8-cloud-provider-dvp"),
           "/validate-deckhouse-io-v1-nodegroup": ("NodeGroup", NODE_GROUP, ""),
           "/validate-deckhouse-io-v1alpha1-dvpinstanceclass": ("DVPInstanceClass", INSTANCE_CLASS, "")}
# Secret data: base64 of a (mutated) kubeconfig's base64, as the credentials contract carries it
kubeconfig_data = h.kubeconfig_b64().map(lambda k: h.b64(k) if isinstance(k, str) else k)


@st.composite
def reviews(draw):
    path = draw(st.sampled_from(sorted(OBJECTS)))
    kind, obj, namespace = OBJECTS[path]
    new = draw(h.mutated(obj, [("data", "secret"), ("stringData", "secret"), ("data", "identity")]))
    if kind == "Secret" and isinstance(new, dict) and draw(st.booleans()):
        new.setdefault("data", {})
        if isinstance(new["data"], dict):
            new["data"]["secret"] = draw(kubeconfig_data)
    old = draw(st.one_of(st.none(), h.mutated(obj)))
    op = draw(st.sampled_from(["CREATE", "UPDATE", "DELETE"]))
    if op == "DELETE":
        new, old = None, old if old is not None else obj
    named = new if isinstance(new, dict) and isinstance(new.get("metadata"), dict) else obj
    raw = json.loads(body(kind, op, {"metadata": {"name": "x"}}, None, namespace))
    raw["request"]["object"], raw["request"]["oldObject"] = new, old
    raw["request"]["name"] = named["metadata"].get("name") if isinstance(named["metadata"].get("name"), str) else ""
    return path, raw, draw(st.booleans())


def judge(path: str, review: dict, migrating: bool) -> dict:
    records: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage() + str(record.exc_info or ""))  # type: ignore
    log = logging.getLogger("dvp_webhooks")
    log.addHandler(handler)
    lookups = FakeLookups(migrating=migrating, instance_classes=[INSTANCE_CLASS], node_groups=[NODE_GROUP])
    try:
        out = decide(json.dumps(review).encode(), ROUTES["validation"][path], lookups)
    finally:
        log.removeHandler(handler)
    resp = out["response"]
    assert out["kind"] == "AdmissionReview" and resp["uid"] == UID and isinstance(resp["allowed"], bool)
    if not resp["allowed"]:
        message = resp["status"]["message"]
        assert resp["status"]["code"] in (400, 403), resp
        assert message and "\n" not in message, message
    assert not h.leaks(json.dumps(out) + "".join(records)), "a secret reached the answer or the log"
    return out


@PROPERTIES
@given(review=reviews())
@example(review=("/validate--v1-secret", json.loads(body("Secret", "CREATE", SECRET, None, "d8-cloud-provider-dvp")),
                 False))
# a DVPInstanceClass whose spec.virtualMachine is not a mapping: a rule crashed (500) instead of a denial
@example(review=("/validate-deckhouse-io-v1alpha1-dvpinstanceclass", json.loads(body(
    "DVPInstanceClass", "CREATE", INSTANCE_CLASS | {"spec": INSTANCE_CLASS["spec"] | {"virtualMachine": 10 ** 30}})),
    False))
def test_validation_reviews(review):
    judge(*review)


def test_the_objects_drawn_from_are_admitted():
    for path, (kind, obj, namespace) in OBJECTS.items():
        out = judge(path, json.loads(body(kind, "CREATE", obj, None, namespace)), False)
        assert out["response"]["allowed"] is True, out
