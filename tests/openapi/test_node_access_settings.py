# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""nodes.parameters.additionalUsers and sshCAKeys, validated as Deckhouse validates ModuleConfig settings."""

import pytest
from chart import openapi

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxZ0Z1a1fSFm0+8YQjvN0nSPgZwPp9GdXyO5tMqWnXk admin@example"
CA = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 ops-ca@example"


def settings(**parameters) -> dict:
    return {"provider": {"parameters": {"namespace": "my-cluster"}},
            "nodes": {"parameters": {"layout": "Standard", "sshPublicKey": KEY, **parameters}}}


def test_users_and_ca_keys_are_accepted_and_get_no_default():
    out = openapi.validate("config", settings(additionalUsers=["ops", "s.bob", "_svc-1", "a" * 32], sshCAKeys=[CA]))
    assert out["nodes"]["parameters"]["additionalUsers"] == ["ops", "s.bob", "_svc-1", "a" * 32]
    assert out["nodes"]["parameters"]["sshCAKeys"] == [CA]
    assert "additionalUsers" not in openapi.validate("config", settings())["nodes"]["parameters"]


@pytest.mark.parametrize("name", ["default", "Root", "1ops", "ops;reboot", "o ps", "a" * 33, "", "$(id)"])
def test_user_names_outside_the_linux_rule_are_refused(name):
    with pytest.raises(openapi.ValuesInvalid) as err:
        openapi.validate("config", settings(additionalUsers=[name]))
    assert len(err.value.errors) == 1
    assert err.value.errors[0].startswith("cloudProviderDvp.nodes.parameters.additionalUsers[0]: ")


@pytest.mark.parametrize("key", ["not-a-key AAAA", "ssh-rsa", CA + "\nEOF", "ssh-rsa AAAA\rx", "ssh-rsa AA!A"])
def test_ca_keys_that_are_not_one_openssh_key_line_are_refused(key):
    with pytest.raises(openapi.ValuesInvalid) as err:
        openapi.validate("config", settings(sshCAKeys=[key]))
    assert len(err.value.errors) == 1
    assert err.value.errors[0].startswith("cloudProviderDvp.nodes.parameters.sshCAKeys[0]: ")


def test_duplicates_are_refused():
    with pytest.raises(openapi.ValuesInvalid):
        openapi.validate("config", settings(additionalUsers=["ops", "ops"]))
    with pytest.raises(openapi.ValuesInvalid):
        openapi.validate("config", settings(sshCAKeys=[CA, CA]))
