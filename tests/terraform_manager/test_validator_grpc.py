# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The validator process over gRPC as dhctl calls it (endpoint from its announcement line, the request encoded
with the documented field numbers): answers, statuses (fail closed) and shutdown on SIGTERM. The frozen
executable of the bundle is exercised in test_bundle.py; here the same entry point runs from the tree."""

from __future__ import annotations

import sys

import grpc
import pytest
from terraform_manager import dhctl
from terraform_manager.inputs import BAD_MASTER_VIOLATION, bad_master_class_kind, payload


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory):
    """`validator serve ...` as `python -m dvp_validator serve ...`: the entry point the frozen executable runs."""
    script = tmp_path_factory.mktemp("validator") / "validator"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -m dvp_validator \"$@\"\n")
    script.chmod(0o755)
    validator = dhctl.spawn_validator(script)
    yield validator.endpoint
    assert validator.stop() == 0


def test_valid_bootstrap_input_has_no_violations(endpoint):
    assert dhctl.validate(endpoint, payload("bootstrap")) == {"errors": [], "warnings": []}


def test_a_bad_node_group_is_refused_with_its_path(endpoint):
    assert dhctl.validate(endpoint, bad_master_class_kind(payload("converge"))) == {
        "errors": [BAD_MASTER_VIOLATION], "warnings": []}


def test_legacy_configuration_is_a_warning_not_an_error(endpoint):
    p = payload("converge")
    del p["vars"]["secrets"]["d8-credentials"]
    p["providerClusterConfiguration"] = {
        "apiVersion": "deckhouse.io/v1", "kind": "DVPClusterConfiguration", "layout": "Standard",
        "provider": {"kubeconfigDataBase64": "eA==", "namespace": "candi-1"}, "sshPublicKey": "ssh-ed25519 AAAA",
        "masterNodeGroup": {"replicas": 1, "instanceClass": {
            "virtualMachine": {"cpu": {"cores": 2}, "memory": {"size": "4Gi"}, "virtualMachineClassName": "generic"},
            "rootDisk": {"size": "20Gi", "image": {"kind": "ClusterVirtualImage", "name": "ubuntu"}},
            "etcdDisk": {"size": "10Gi"}}}}
    answer = dhctl.validate(endpoint, p)
    assert answer["errors"] == [], answer
    assert [w["code"] for w in answer["warnings"]] == ["provider_cluster_configuration_in_use"]


def test_an_undecodable_payload_is_invalid_argument(endpoint):
    with pytest.raises(grpc.RpcError) as exc:
        dhctl.validate(endpoint, {"operation": "upgrade"})
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert exc.value.details() == "input_json: operation must be one of bootstrap, converge, destroy, got 'upgrade'"


def test_a_rule_that_breaks_is_internal_never_ok(endpoint):
    p = payload("bootstrap")
    p["vars"]["nodeGroups"]["master"]["spec"] = "not an object"
    with pytest.raises(grpc.RpcError) as exc:
        dhctl.validate(endpoint, p)
    assert exc.value.code() == grpc.StatusCode.INTERNAL
    assert exc.value.details().startswith("validator failed: AttributeError at ")
