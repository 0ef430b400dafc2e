# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo's shell-operator stand-in on the real guest API: binding selectors, jqFilter snapshots, operations."""

from __future__ import annotations

import base64

import pytest
from dvp_common.kube import NotFound
from dvp_common.kube.resources import SECRET

from demo.hook_runner import HookFailed, HookRunner, _selector, binding_objects
from demo.kube import Kinds, NotServed


def secret(ns: str, name: str, type_: str = "Opaque") -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "type": type_, "metadata": {"name": name, "namespace": ns},
            "data": {"k": base64.b64encode(b"v").decode()}}


def test_selectors_as_the_api_takes_them():
    assert _selector(None) is None
    assert _selector({"matchLabels": {"a": "b"}, "matchExpressions": [
        {"key": "c", "operator": "In", "values": ["x", "y"]}, {"key": "d", "operator": "DoesNotExist"}]}) == \
        "a=b,c in (x,y),!d"
    assert _selector({"matchExpressions": [{"field": "type", "operator": "Equals", "value": "t"}]}) == "type=t"


def test_binding_lists_by_namespace_name_and_field(guest_api):
    client = guest_api.client()
    ns = guest_api.create_namespace("hr")
    client.create(SECRET, secret(ns, "wanted", "cloud-provider.deckhouse.io/credentials"), ns)
    client.create(SECRET, secret(ns, "other-type"), ns)
    client.create(SECRET, secret(ns, "other-name", "cloud-provider.deckhouse.io/credentials"), ns)
    binding = {"apiVersion": "v1", "kind": "Secret", "namespace": {"nameSelector": {"matchNames": [ns]}},
               "nameSelector": {"matchNames": ["wanted", "other-type"]},
               "fieldSelector": {"matchExpressions": [
                   {"field": "type", "operator": "Equals", "value": "cloud-provider.deckhouse.io/credentials"}]}}
    objects = binding_objects(client, Kinds(client), binding)
    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [("Secret", "wanted")]
    with pytest.raises(NotServed, match="NodeGroup.deckhouse.io/v1 is not served"):
        Kinds(client).resource("deckhouse.io/v1", "NodeGroup")


def test_operations_are_idempotent(guest_api):
    client = guest_api.client()
    ns = guest_api.create_namespace("hr")
    runner = HookRunner.__new__(HookRunner)  # only the operation path: no hook configs needed
    runner.client, runner.kinds, runner.operations_applied = client, Kinds(client), 0
    obj = secret(ns, "made")
    runner.apply_operation({"operation": "CreateOrUpdate", "object": obj})
    obj["data"]["k"] = base64.b64encode(b"w").decode()
    runner.apply_operation({"operation": "CreateOrUpdate", "object": obj})
    assert client.get(SECRET, "made", ns)["data"]["k"] == obj["data"]["k"]
    runner.apply_operation({"operation": "CreateIfNotExists", "object": secret(ns, "made")})
    assert client.get(SECRET, "made", ns)["data"]["k"] == obj["data"]["k"]
    runner.apply_operation({"operation": "MergePatch", "apiVersion": "v1", "kind": "Secret", "namespace": ns,
                            "name": "made", "mergePatch": {"metadata": {"labels": {"x": "y"}}}})
    assert client.get(SECRET, "made", ns)["metadata"]["labels"] == {"x": "y"}
    for _ in range(2):
        runner.apply_operation({"operation": "Delete", "apiVersion": "v1", "kind": "Secret", "namespace": ns,
                                "name": "made"})
    with pytest.raises(NotFound):
        client.get(SECRET, "made", ns)
    assert runner.operations_applied == 5  # CreateIfNotExists found the Secret: nothing applied
    with pytest.raises(HookFailed, match="unsupported Kubernetes operation Evict"):
        runner.apply_operation({"operation": "Evict", "apiVersion": "v1", "kind": "Secret", "namespace": ns,
                                "name": "made"})
