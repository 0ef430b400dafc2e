# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ModuleConfig v1 -> v2 (openapi/conversions/v2.yaml), run by gojq as Deckhouse runs it, then validated."""

import json

import pytest
from harness import openapi
from harness.conversions import convert

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxZ0Z1a1fSFm0+8YQjvN0nSPgZwPp9GdXyO5tMqWnXk admin@example"
V1 = {"provider": {"kubeconfigDataBase64": "YXBpVmVyc2lvbjogdjEK", "namespace": "team-k8s"}, "zones": ["a", "b"]}


def test_v1_settings_move_to_their_v2_places_and_the_kubeconfig_is_dropped():
    assert convert(V1, from_version=1) == {
        "provider": {"parameters": {"namespace": "team-k8s"}},
        "nodes": {"parameters": {"zones": ["a", "b"], "layout": "Standard"}},
    }


def test_converted_v1_names_the_one_missing_setting_then_validates():
    converted = convert(V1, from_version=1)
    with pytest.raises(openapi.ValuesInvalid) as err:
        openapi.validate("config", converted)
    assert err.value.errors == ["cloudProviderDvp.nodes.parameters: 'sshPublicKey' is a required property"]
    converted["nodes"]["parameters"]["sshPublicKey"] = KEY
    assert openapi.validate("config", converted)["nodes"]["parameters"]["zones"] == ["a", "b"]


def test_oldest_storage_class_settings():
    settings = {"provider": {"namespace": "ns"}, "storageClass": {"exclude": ["slow-.*"], "default": "fast"}}
    assert convert(settings, from_version=1) == {
        "provider": {"parameters": {"namespace": "ns"}},
        "nodes": {"parameters": {"layout": "Standard"}},
        "storage": {"parameters": {"excludedStorageClasses": ["slow-.*"]}},
    }


def test_no_namespace_is_invented():
    converted = convert({"provider": {"kubeconfigDataBase64": "eA=="}}, from_version=1)
    assert converted == {"provider": {}, "nodes": {"parameters": {"layout": "Standard"}}}
    assert "eA==" not in json.dumps(converted)
    with pytest.raises(openapi.ValuesInvalid) as err:
        openapi.validate("config", converted)
    assert err.value.errors == ["cloudProviderDvp.nodes.parameters: 'sshPublicKey' is a required property",
                                "cloudProviderDvp.provider: 'parameters' is a required property"]


def test_empty_v1_settings():
    assert convert({}, from_version=1) == {"nodes": {"parameters": {"layout": "Standard"}}}


def test_v2_settings_are_not_converted():
    example = openapi.config_examples()[1]
    assert convert(example, from_version=2) == example


def test_the_schema_version_is_the_newest_conversion():
    from harness.conversions import conversions

    assert openapi.schemas().config["x-config-version"] == max(conversions()) == 2
