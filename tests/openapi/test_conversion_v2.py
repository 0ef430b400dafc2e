# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ModuleConfig v1 -> v2 (openapi/conversions/v2.yaml), run by gojq as Deckhouse runs it, then validated."""

import json

import pytest
from chart import openapi

from testkit.harness.conversions import convert

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxZ0Z1a1fSFm0+8YQjvN0nSPgZwPp9GdXyO5tMqWnXk admin@example"
V1 = {"provider": {"kubeconfigDataBase64": "YXBpVmVyc2lvbjogdjEK", "namespace": "team-k8s"}, "zones": ["a", "b"]}


PLACEHOLDER = "ssh-rsa PLACEHOLDER REPLACE_ME"


def test_v1_settings_move_to_their_v2_places_and_the_kubeconfig_is_dropped():
    assert convert(V1, from_version=1) == {
        "provider": {"parameters": {"namespace": "team-k8s"}},
        "nodes": {"parameters": {"zones": ["a", "b"], "layout": "Standard", "sshPublicKey": PLACEHOLDER}},
    }


@pytest.mark.parametrize("v1", [
    V1,
    {"provider": {"kubeconfigDataBase64": "eA=="}},
    {"provider": {}},
    {},
    {"zones": ["z"]},
    {"provider": {"namespace": "ns"}, "storageClass": {"exclude": ["slow-.*"], "default": "fast"}},
    {"storageClass": {"default": "fast"}},
], ids=["full", "kubeconfig-only", "empty-provider", "empty", "zones-only", "storage-classes", "default-class-only"])
def test_every_v1_config_converts_to_valid_v2_settings(v1):
    # A migrating cluster's module must keep running: the converted settings validate as they are.
    converted = convert(v1, from_version=1)
    valid = openapi.validate("config", converted)
    assert valid["provider"]["parameters"]["namespace"] == (v1.get("provider") or {}).get("namespace", "default")
    assert valid["nodes"]["parameters"]["sshPublicKey"] == PLACEHOLDER
    assert "eA==" not in json.dumps(converted) and "kubeconfigDataBase64" not in json.dumps(converted)


def test_a_real_key_in_the_settings_is_kept():
    converted = convert({"provider": {"namespace": "ns"}, "nodes": {"parameters": {"sshPublicKey": KEY}}}, 1)
    assert openapi.validate("config", converted)["nodes"]["parameters"]["sshPublicKey"] == KEY


def test_oldest_storage_class_settings():
    settings = {"provider": {"namespace": "ns"}, "storageClass": {"exclude": ["slow-.*"], "default": "fast"}}
    assert convert(settings, from_version=1) == {
        "provider": {"parameters": {"namespace": "ns"}},
        "nodes": {"parameters": {"layout": "Standard", "sshPublicKey": PLACEHOLDER}},
        "storage": {"parameters": {"excludedStorageClasses": ["slow-.*"]}},
    }


def test_v2_settings_are_not_converted():
    example = openapi.config_examples()[1]
    assert convert(example, from_version=2) == example


def test_the_schema_version_is_the_newest_conversion():
    from testkit.harness.conversions import conversions

    assert openapi.schemas().config["x-config-version"] == max(conversions()) == 2
