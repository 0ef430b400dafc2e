# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The x-deckhouse-validations (CEL) rules of openapi/ evaluated, not only checked for shape: cel-python runs the
expressions Deckhouse runs with cel-go, through chart.openapi as part of values validation."""

import copy

import celpy
import pytest
import yaml
from chart import openapi
from hypothesis import given, settings
from hypothesis import strategies as st

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxZ0Z1a1fSFm0+8YQjvN0nSPgZwPp9GdXyO5tMqWnXk admin@example"
MINIMAL = {"provider": {"parameters": {"namespace": "my-cluster"}},
           "nodes": {"parameters": {"layout": "Standard", "sshPublicKey": KEY}}}
DUPLICATE = ("cloudProviderDvp.nodes.parameters.ipAddresses: each static address may be given once, across all node "
             "groups")


def rules(node, path=""):
    if isinstance(node, dict):
        for rule in node.get("x-deckhouse-validations") or []:
            yield path, rule
        for key, sub in node.items():
            if key != "x-deckhouse-validations":
                yield from rules(sub, f"{path}.{key}" if path else key)
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from rules(sub, f"{path}[{i}]")


ALL = [(f, p, r) for f in ("config-values.yaml", "values.yaml")
       for p, r in rules(yaml.safe_load((openapi.ROOT / "openapi" / f).read_text()))]


def test_there_are_rules():
    assert [p for _, p, _ in ALL] == ["properties.nodes",
                                      "properties.nodes.properties.parameters.properties.ipAddresses",
                                      "properties.storage"]


@pytest.mark.parametrize(("file", "path", "rule"), ALL, ids=[p for _, p, _ in ALL])
def test_every_rule_compiles_and_reads_only_self(file, path, rule):
    env = celpy.Environment()
    env.compile(rule["expression"])
    assert rule["message"] and "\n" not in rule["message"]
    # Deckhouse binds `self` only: a rule about anything else could never hold.
    assert "oldSelf" not in rule["expression"]


def with_ips(ips):
    out = copy.deepcopy(MINIMAL)
    out["nodes"]["parameters"]["ipAddresses"] = ips
    return out


@pytest.mark.parametrize(("ips", "valid"), [
    ({"master": ["10.0.0.1", "Auto", "10.0.0.3"], "front": ["10.0.0.2", "Auto"]}, True),
    ({"master": ["Auto", "Auto"], "front": ["Auto"]}, True),
    ({}, True),
    ({"master": []}, True),
    ({"master": ["10.0.0.1", "10.0.0.1"]}, False),
    ({"master": ["10.0.0.1"], "front": ["10.0.0.1"]}, False),
    ({"a": ["10.0.0.9"], "b": ["10.0.0.8"], "c": ["Auto", "10.0.0.9"]}, False),
])
def test_a_static_address_is_given_once(ips, valid):
    if valid:
        assert openapi.validate("config", with_ips(ips))["nodes"]["parameters"]["ipAddresses"] == ips
    else:
        with pytest.raises(openapi.ValuesInvalid) as err:
            openapi.validate("config", with_ips(ips))
        assert err.value.errors == [DUPLICATE]


def test_rules_are_judged_once_the_schema_holds():
    # A malformed address is the schema's error; the rule is not evaluated over values of the wrong type.
    with pytest.raises(openapi.ValuesInvalid) as err:
        openapi.validate("config", with_ips({"master": "10.0.0.1"}))
    assert err.value.errors == ["cloudProviderDvp.nodes.parameters.ipAddresses.master: '10.0.0.1' is not of type "
                                "'array'"]


ADDRESS = st.one_of(st.just("Auto"), st.integers(1, 4).map(lambda i: f"10.0.0.{i}"))
GROUP = st.sampled_from(["master", "front", "back", "w-1"])


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(GROUP, st.lists(ADDRESS, max_size=4), max_size=4))
def test_the_rule_agrees_with_its_meaning(ips):
    static = [ip for group in ips.values() for ip in group if ip != "Auto"]
    errors = openapi.errors(openapi.schemas().config, openapi.apply_defaults(openapi.schemas().config, with_ips(ips)))
    assert (errors == []) == (len(static) == len(set(static))), errors
