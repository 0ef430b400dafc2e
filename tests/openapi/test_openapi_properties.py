# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Random documents through the module's schemas (openapi/config-values.yaml, values.yaml; build/chart/openapi.py):
each validates, or is refused with errors of one line each naming the field path; never another exception, and
a token planted in a secret-holding value never appears in an error."""

import copy
import os

from chart import openapi
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lib.testing import hostile as h

PROPERTIES = settings(max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "60")), derandomize=True,
                      deadline=None, database=None,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxZ0Z1a1fSFm0+8YQjvN0nSPgZwPp9GdXyO5tMqWnXk admin@example"
SETTINGS = {
    "provider": {"parameters": {"namespace": "my-cluster", "networkPolicy": "Isolated"}},
    "nodes": {"disabled": False, "parameters": {
        "layout": "Standard", "sshPublicKey": KEY, "ingressPorts": [22, 443], "zones": ["z1"],
        "ipAddresses": {"master": ["10.0.0.5"]}, "additionalVMLabels": {"team": "a"},
        "sshCAKeys": [KEY], "additionalUsers": ["ops"]}},
    "storage": {"parameters": {"excludedStorageClasses": ["local-.*"]}, "snapshots": {"disabled": False}},
    "ccm": {"disabled": False},
    "logLevel": "Info",
}
INTERNAL = {
    "credentialSecrets": {"d8-credentials": {"authScheme": "kubeconfig", "secret": ""}},
    "providerDiscoveryData": {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["default"],
                              "storageClasses": [{"name": "replicated", "isDefault": True}]},
    "storageClasses": [{"name": "replicated", "dvpStorageClass": "replicated", "isDefault": True}],
    "validationWebhookCert": {"crt": "c", "key": "", "ca": "a"},
    "migration": {"pending": False},
}
ROOT = openapi.VALUES_KEY
# Only in values whose field names say they hold secrets (the drawn values may carry h.TOKEN anywhere else,
# where the error may show it: it is then not a secret's value).
SECRET = "planted-S3CRET-0a7c"  # noqa: S105
INTERNAL["credentialSecrets"]["d8-credentials"]["secret"] = h.b64(SECRET)
INTERNAL["validationWebhookCert"]["key"] = SECRET


def test_the_documents_drawn_from_are_valid():
    openapi.validate("config", SETTINGS)
    openapi.validate("values", SETTINGS | {"internal": INTERNAL})


def judge(kind: str, doc) -> None:
    try:
        openapi.validate(kind, doc)
    except openapi.ValuesInvalid as exc:
        assert exc.errors
        for line in exc.errors:
            assert "\n" not in line and line.startswith(ROOT), line
            path, _, reason = line.partition(": ")
            assert reason and (path == ROOT or path[len(ROOT)] in ".["), line
            assert SECRET not in line and h.b64(SECRET) not in line, line


@PROPERTIES
@given(doc=st.one_of(h.mutated(SETTINGS), h.anything))
@example(doc=None)
@example(doc={"nodes": {"parameters": {"ipAddresses": {"master": [{"a": 1}]}}}})
@example(doc={"storage": {"parameters": {"excludedStorageClasses": ["(?=x)", "\ud800"]}}})
@example(doc={"provider": {"parameters": {"namespace": "a" * 100_000 + "\n"}}})
def test_settings_documents(doc):
    judge("config", doc)


@PROPERTIES
@given(doc=h.mutated(SETTINGS | {"internal": INTERNAL}))
@example(doc=SETTINGS | {"internal": {"credentialSecrets": {"d8-credentials": {"secret": [SECRET]}}}})
@example(doc=SETTINGS | {"internal": {"validationWebhookCert": {"key": [SECRET], "crt": SECRET}}})
def test_values_documents(doc):
    judge("values", copy.deepcopy(doc))
