# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every HTTP answer maps onto its exception, with a one-line message naming the object."""

from __future__ import annotations

import pytest
from dvp_common.kube import (
    NO_RETRY,
    AdmissionDenied,
    AlreadyExists,
    ApiError,
    BadRequest,
    Conflict,
    Forbidden,
    Gone,
    Invalid,
    KubeClient,
    NotFound,
    QuotaExceeded,
    RBACDenied,
    Transient,
    Unauthorized,
)
from dvp_common.kube.resources import SECRET
from dvpc_kit import TOKEN

# The two 403 shapes of kube-apiserver: the authorizer's and an admission webhook's (DVP's validators).
RBAC_MESSAGE = ('virtualmachineoperations.virtualization.deckhouse.io is forbidden: User '
                '"system:serviceaccount:proj:provider" cannot list resource "virtualmachineoperations" in API group '
                '"virtualization.deckhouse.io" in the namespace "proj"')
WEBHOOK_MESSAGE = ('admission webhook "vm.virtualization-controller.validate.d8-virtualization" denied the request: '
                   'virtual machine memory 3Gi does not fit the sizing policy of class generic')
CASES = [
    (400, "BadRequest", "bad body", BadRequest),
    (401, "Unauthorized", "Unauthorized", Unauthorized),
    (403, "Forbidden", 'unable to create new content in namespace ns1 because it is being terminated', Forbidden),
    (403, "Forbidden", RBAC_MESSAGE, RBACDenied),
    (403, "Forbidden", WEBHOOK_MESSAGE, AdmissionDenied),
    (403, "Forbidden", "secrets is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no",
     AdmissionDenied),
    (403, "Forbidden", 'exceeded quota: q1, requested: requests.storage=10Gi', QuotaExceeded),
    (404, "NotFound", 'secrets "s" not found', NotFound),
    (409, "AlreadyExists", 'secrets "s" already exists', AlreadyExists),
    (409, "Conflict", "the object has been modified", Conflict),
    (410, "Expired", "too old resource version", Gone),
    (422, "Invalid", "spec.size: Invalid value", Invalid),
    (422, "Invalid", "admission webhook denied: Quota exceeded for project", QuotaExceeded),
    (429, "TooManyRequests", "slow down", Transient),
    (500, "InternalError", "etcd\nfailed", Transient),
    (503, "ServiceUnavailable", "unavailable", Transient),
    (405, "MethodNotAllowed", "nope", ApiError),
]


@pytest.mark.parametrize(("code", "reason", "message", "exc_type"), CASES)
def test_status_maps_to_exception(api, code, reason, message, exc_type):
    api.script("GET", "/secrets/s", code, {"kind": "Status", "code": code, "reason": reason, "message": message})
    client = KubeClient.from_url(api.url, token=TOKEN, retry=NO_RETRY)
    with pytest.raises(ApiError) as info:
        client.get(SECRET, "s", "ns1")
    err = info.value
    assert type(err) is exc_type
    assert (err.status, err.reason, err.kind, err.name, err.namespace, err.verb) == (
        code, reason, "Secret", "s", "ns1", "get")
    text = str(err)
    assert "\n" not in text
    assert text == f'get Secret "ns1/s": {code} {reason}: {" ".join(message.split())}'


def test_conflict_hierarchy():
    assert issubclass(AlreadyExists, Conflict)
    assert issubclass(RBACDenied, Forbidden) and issubclass(AdmissionDenied, Forbidden)


def test_rbac_denial_names_the_verb_and_resource():
    from dvp_common.kube.errors import error_for

    err = error_for(403, {"reason": "Forbidden", "message": RBAC_MESSAGE})
    assert (err.denied_verb, err.denied_resource) == ("list", "virtualmachineoperations.virtualization.deckhouse.io")
    core = error_for(403, {"reason": "Forbidden", "message": 'secrets "s" is forbidden: User "u" cannot get resource '
                                                             '"secrets" in API group "" in the namespace "p"'})
    assert (type(core), core.denied_verb, core.denied_resource) == (RBACDenied, "get", "secrets")


def test_non_json_error_body_is_kept_as_message(api):
    api.script("GET", "/secrets/s", 502, None)
    api.scripted[-1].body = "<html>bad gateway</html>"  # the fake sends it JSON-encoded: a string
    client = KubeClient.from_url(api.url, token=TOKEN, retry=NO_RETRY)
    with pytest.raises(Transient) as info:
        client.get(SECRET, "s", "ns1")
    assert info.value.status == 502
    assert "bad gateway" in str(info.value)


def test_connection_refused_is_transient_and_one_line():
    client = KubeClient.from_url("http://127.0.0.1:1", token=TOKEN, retry=NO_RETRY)
    with pytest.raises(Transient) as info:
        client.get(SECRET, "s", "ns1")
    assert info.value.status == 0 and info.value.reason == "ConnectionError"
    assert "\n" not in str(info.value) and TOKEN not in str(info.value)


def test_unauthorized_from_server_does_not_echo_token(api):
    client = KubeClient.from_url(api.url, token="wrong-" + TOKEN, retry=NO_RETRY)
    with pytest.raises(Unauthorized) as info:
        client.get(SECRET, "s", "ns1")
    assert TOKEN not in str(info.value) and TOKEN not in repr(info.value.__dict__)
