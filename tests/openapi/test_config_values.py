# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ModuleConfig settings and Helm values, validated as Deckhouse does (build/chart/openapi.py)."""

import copy
import re

import pytest
import yaml
from chart import openapi

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxZ0Z1a1fSFm0+8YQjvN0nSPgZwPp9GdXyO5tMqWnXk admin@example"
MINIMAL = {
    "provider": {"parameters": {"namespace": "my-cluster"}},
    "nodes": {"parameters": {"layout": "Standard", "sshPublicKey": KEY}},
}
IP_PATTERN = openapi.schemas().config["properties"]["nodes"]["properties"]["parameters"]["properties"][
    "ipAddresses"]["patternProperties"]["^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"]["items"]["pattern"]


def with_(path: str, value):
    """MINIMAL with the dotted `path` set to `value`."""
    out = copy.deepcopy(MINIMAL)
    *parents, leaf = path.split(".")
    node = out
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value
    return out


def test_minimal_settings_get_every_default():
    assert openapi.validate("config", MINIMAL) == {
        "provider": {"parameters": {"namespace": "my-cluster", "networkPolicy": "Isolated"}},
        # nodes/storage: neither `enabled` nor `disabled` has a default (unset is on; test_upstream_settings.py)
        "nodes": {"parameters": {"layout": "Standard", "sshPublicKey": KEY, "ingressPorts": [22]}},
        "storage": {"parameters": {"excludedStorageClasses": []}, "snapshots": {"disabled": False}},
        "ccm": {"disabled": False, "parameters": {"outOfServiceTaint": {"enabled": True, "gracePeriodSeconds": 90},
                                                  "internalNetwork": "Main"}},
        "logLevel": "Info",
    }


def test_values_schema_extends_config_with_internal_defaults():
    values = openapi.validate("values", MINIMAL)
    assert values["logLevel"] == "Info"
    assert values["internal"] == {
        "credentialSecrets": {},
        "storageClasses": [],
        "capdvpControllerManagerWebhookCert": {},
        "validationWebhookCert": {},
        "snapshotWebhookCert": {},
        "disableLoadBalancer": False,
        "migration": {"pending": False},
    }
    # internal is a Helm value only: the ModuleConfig may not set it
    with pytest.raises(openapi.ValuesInvalid) as err:
        openapi.validate("config", {**MINIMAL, "internal": {}})
    assert err.value.errors == ["cloudProviderDvp: unknown field(s): internal"]


def test_explicit_values_are_kept_over_defaults():
    settings = with_("nodes.parameters.ingressPorts", [])
    settings["storage"] = {"snapshots": {"disabled": True}}
    out = openapi.validate("config", settings)
    assert out["nodes"]["parameters"]["ingressPorts"] == []
    assert out["storage"] == {"snapshots": {"disabled": True},
                              "parameters": {"excludedStorageClasses": []}}


def test_high_availability_has_no_default():
    assert "highAvailability" not in openapi.validate("config", MINIMAL)
    assert openapi.validate("config", {**MINIMAL, "highAvailability": False})["highAvailability"] is False


@pytest.mark.parametrize("index", range(len(openapi.config_examples())))
def test_every_x_example_is_valid_config_and_values(index):
    example = openapi.config_examples()[index]
    assert openapi.validate("config", example)["provider"]["parameters"]["namespace"] == \
        example["provider"]["parameters"]["namespace"]
    openapi.validate("values", example)


def test_there_are_examples():
    assert len(openapi.config_examples()) >= 3


INVALID = [
    ("missing provider", {"nodes": MINIMAL["nodes"]},
     ["cloudProviderDvp: 'provider' is a required property"]),
    ("missing namespace", with_("provider.parameters", {}),
     ["cloudProviderDvp.provider.parameters: 'namespace' is a required property"]),
    ("namespace wrong type", with_("provider.parameters.namespace", 5),
     ["cloudProviderDvp.provider.parameters.namespace: 5 is not of type 'string'"]),
    ("namespace not a DNS label", with_("provider.parameters.namespace", "My_NS"),
     ["cloudProviderDvp.provider.parameters.namespace: 'My_NS' does not match pattern "
      "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'"]),
    # RE2, as Deckhouse evaluates patterns: `$` is the end of the text (Python's re also accepts a final newline)
    ("namespace with a final newline", with_("provider.parameters.namespace", "my-cluster\n"),
     ["cloudProviderDvp.provider.parameters.namespace: 'my-cluster\\n' does not match pattern "
      "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'"]),
    ("label value with a final newline", with_("nodes.parameters.additionalVMLabels", {"team": "a\n"}),
     ["cloudProviderDvp.nodes.parameters.additionalVMLabels.team: 'a\\n' does not match pattern "
      "'^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$'"]),
    ("label key with a final newline", with_("nodes.parameters.additionalVMLabels", {"team\n": "a"}),
     ["cloudProviderDvp.nodes.parameters.additionalVMLabels: unknown field(s): 'team\\n'"]),
    ("unknown root field", {**MINIMAL, "zones": ["a"]},
     ["cloudProviderDvp: unknown field(s): zones"]),
    ("unknown nested field", with_("provider.parameters.kubeconfigDataBase64", "eA=="),
     ["cloudProviderDvp.provider.parameters: unknown field(s): kubeconfigDataBase64"]),
    ("bad networkPolicy enum", with_("provider.parameters.networkPolicy", "isolated"),
     ["cloudProviderDvp.provider.parameters.networkPolicy: 'isolated' is not one of ['Isolated', 'None']"]),
    ("bad layout enum", with_("nodes.parameters.layout", "WithNAT"),
     ["cloudProviderDvp.nodes.parameters.layout: 'WithNAT' is not one of ['Standard']"]),
    ("bad logLevel enum", {**MINIMAL, "logLevel": "debug"},
     ["cloudProviderDvp.logLevel: 'debug' is not one of ['Debug', 'Info', 'Warn', 'Error']"]),
    ("highAvailability wrong type", {**MINIMAL, "highAvailability": "yes"},
     ["cloudProviderDvp.highAvailability: 'yes' is not of type 'boolean'"]),
    ("disabled wrong type", with_("storage.disabled", "true"),
     ["cloudProviderDvp.storage.disabled: 'true' is not of type 'boolean'"]),
    ("ssh key not OpenSSH", with_("nodes.parameters.sshPublicKey", "ssh-rsa PLACEHOLDER_REPLACE_ME"),
     ["cloudProviderDvp.nodes.parameters.sshPublicKey: 'ssh-rsa PLACEHOLDER_REPLACE_ME' does not match pattern "
      + repr(openapi.schemas().config["properties"]["nodes"]["properties"]["parameters"]["properties"][
          "sshPublicKey"]["pattern"])]),
    ("port 0", with_("nodes.parameters.ingressPorts", [0]),
     ["cloudProviderDvp.nodes.parameters.ingressPorts[0]: 0 is less than the minimum of 1"]),
    ("port 65536", with_("nodes.parameters.ingressPorts", [22, 65536]),
     ["cloudProviderDvp.nodes.parameters.ingressPorts[1]: 65536 is greater than the maximum of 65535"]),
    ("port as string", with_("nodes.parameters.ingressPorts", ["22"]),
     ["cloudProviderDvp.nodes.parameters.ingressPorts[0]: '22' is not of type 'integer'"]),
    ("duplicate ports", with_("nodes.parameters.ingressPorts", [22, 22]),
     ["cloudProviderDvp.nodes.parameters.ingressPorts: [22, 22] has non-unique elements"]),
    ("duplicate zones", with_("nodes.parameters.zones", ["zone-a", "zone-a"]),
     ["cloudProviderDvp.nodes.parameters.zones: ['zone-a', 'zone-a'] has non-unique elements"]),
    ("zone wrong type", with_("nodes.parameters.zones", ["a", 1]),
     ["cloudProviderDvp.nodes.parameters.zones[1]: 1 is not of type 'string'"]),
    ("ip octet 256", with_("nodes.parameters.ipAddresses", {"master": ["256.1.1.1"]}),
     [f"cloudProviderDvp.nodes.parameters.ipAddresses.master[0]: '256.1.1.1' does not match pattern {IP_PATTERN!r}"]),
    ("ip three octets", with_("nodes.parameters.ipAddresses", {"master": ["Auto", "1.2.3"]}),
     [f"cloudProviderDvp.nodes.parameters.ipAddresses.master[1]: '1.2.3' does not match pattern {IP_PATTERN!r}"]),
    ("ip leading zero", with_("nodes.parameters.ipAddresses", {"master": ["01.2.3.4"]}),
     [f"cloudProviderDvp.nodes.parameters.ipAddresses.master[0]: '01.2.3.4' does not match pattern {IP_PATTERN!r}"]),
    ("ip with mask", with_("nodes.parameters.ipAddresses", {"w": ["10.0.0.1/24"]}),
     [f"cloudProviderDvp.nodes.parameters.ipAddresses.w[0]: '10.0.0.1/24' does not match pattern {IP_PATTERN!r}"]),
    ("ip 'auto' lowercase", with_("nodes.parameters.ipAddresses", {"w": ["auto"]}),
     [f"cloudProviderDvp.nodes.parameters.ipAddresses.w[0]: 'auto' does not match pattern {IP_PATTERN!r}"]),
    ("ip group name invalid", with_("nodes.parameters.ipAddresses", {"Master": ["Auto"]}),
     ["cloudProviderDvp.nodes.parameters.ipAddresses: unknown field(s): Master"]),
    ("ip list not a list", with_("nodes.parameters.ipAddresses", {"master": "10.0.0.1"}),
     ["cloudProviderDvp.nodes.parameters.ipAddresses.master: '10.0.0.1' is not of type 'array'"]),
    ("reserved label cluster-uuid", with_("nodes.parameters.additionalVMLabels",
                                          {"dvp.deckhouse.io/cluster-uuid": "x"}),
     ["cloudProviderDvp.nodes.parameters.additionalVMLabels: reserved key(s) not allowed: "
      "dvp.deckhouse.io/cluster-uuid"]),
    ("reserved labels managed-by and hostname", with_("nodes.parameters.additionalVMLabels",
                                                      {"deckhouse.io/managed-by": "me",
                                                       "dvp.deckhouse.io/hostname": "n", "team": "a"}),
     ["cloudProviderDvp.nodes.parameters.additionalVMLabels: reserved key(s) not allowed: "
      "deckhouse.io/managed-by, dvp.deckhouse.io/hostname"]),
    ("label key invalid", with_("nodes.parameters.additionalVMLabels", {"bad key": "x"}),
     ["cloudProviderDvp.nodes.parameters.additionalVMLabels: unknown field(s): bad key"]),
    ("label value invalid", with_("nodes.parameters.additionalVMLabels", {"team": "a b"}),
     ["cloudProviderDvp.nodes.parameters.additionalVMLabels.team: 'a b' does not match pattern "
      "'^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$'"]),
    ("label value not a string", with_("nodes.parameters.additionalVMLabels", {"team": 1}),
     ["cloudProviderDvp.nodes.parameters.additionalVMLabels.team: 1 is not of type 'string'"]),
    ("excluded storage class empty", with_("storage.parameters", {"excludedStorageClasses": [""]}),
     ["cloudProviderDvp.storage.parameters.excludedStorageClasses[0]: '' should be non-empty"]),
    ("snapshots unknown field", with_("storage.snapshots", {"enabled": True}),
     ["cloudProviderDvp.storage.snapshots: unknown field(s): enabled"]),
]


@pytest.mark.parametrize(("case", "settings", "expected"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_settings_are_rejected_with_field_path(case, settings, expected):
    with pytest.raises(openapi.ValuesInvalid) as err:
        openapi.validate("config", settings)
    assert err.value.errors == expected
    for line in err.value.errors:
        assert "\n" not in line


@pytest.mark.parametrize("ip", ["0.0.0.0", "10.66.10.10", "255.255.255.255", "192.168.1.0", "Auto", "100.64.0.9"])  # noqa: S104
def test_real_ipv4_addresses_are_accepted(ip):
    for group in ("master", "front-1"):
        openapi.validate("config", with_("nodes.parameters.ipAddresses", {group: [ip]}))


@pytest.mark.parametrize("ip", ["256.0.0.1", "1.2.3", "01.2.3.4", "1.2.3.4.5", "1.2.3.04", "300.300.300.300",
                                " 1.2.3.4", "1.2.3.4 ", "a.b.c.d", "", "1..2.3", "::1"])
def test_malformed_ipv4_addresses_match_nothing(ip):
    assert re.search(IP_PATTERN, ip) is None


def test_several_problems_are_all_reported_in_path_order():
    settings = with_("nodes.parameters.ingressPorts", [70000])
    settings["logLevel"] = "Trace"
    with pytest.raises(openapi.ValuesInvalid) as err:
        openapi.validate("config", settings)
    assert err.value.errors == [
        "cloudProviderDvp.logLevel: 'Trace' is not one of ['Debug', 'Info', 'Warn', 'Error']",
        "cloudProviderDvp.nodes.parameters.ingressPorts[0]: 70000 is greater than the maximum of 65535",
    ]


def test_internal_values_are_checked_too():
    values = openapi.validate("values", MINIMAL)
    values["internal"]["storageClasses"] = [{"name": "fast"}]
    with pytest.raises(openapi.ValuesInvalid) as err:
        openapi.validate("values", values)
    assert err.value.errors == ["cloudProviderDvp.internal.storageClasses[0]: 'dvpStorageClass' is a required property"]


def test_errors_never_quote_sensitive_values():
    values = openapi.validate("values", MINIMAL)
    values["internal"]["credentialSecrets"] = {"d8-credentials": {"authScheme": "kubeconfig", "secret": ["s3cr3t"]}}
    values["internal"]["validationWebhookCert"] = {"crt": "x", "key": 42, "ca": "y"}
    with pytest.raises(openapi.ValuesInvalid) as err:
        openapi.validate("values", values)
    assert err.value.errors == [
        "cloudProviderDvp.internal.credentialSecrets.d8-credentials.secret: value (not shown) does not satisfy type: "
        "'string'",
        "cloudProviderDvp.internal.validationWebhookCert.key: value (not shown) does not satisfy type: 'string'",
    ]


def _described_paths(node, prefix=()):
    if not isinstance(node, dict):
        return set()
    out = {prefix} if "description" in node else set()
    for key in ("properties", "patternProperties"):
        for name, sub in node.get(key, {}).items():
            out |= _described_paths(sub, (*prefix, name))
    return out


def test_russian_descriptions_mirror_english_ones():
    en = yaml.safe_load((openapi.ROOT / "openapi/config-values.yaml").read_text())
    ru = yaml.safe_load((openapi.ROOT / "openapi/doc-ru-config-values.yaml").read_text())
    assert _described_paths(ru) == _described_paths(en)


def test_apply_defaults_fills_inside_maps_and_lists():
    schema = {"type": "object", "properties": {
        "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"x": {"default": 1}}}},
        "l": {"type": "array", "items": {"type": "object", "properties": {"y": {"default": "d"}}}},
        "o": {"type": "object", "default": {}, "properties": {"z": {"default": [1]}}},
    }}
    assert openapi.apply_defaults(schema, {"m": {"a": {}}, "l": [{}, {"y": "k"}]}) == {
        "m": {"a": {"x": 1}}, "l": [{"y": "d"}, {"y": "k"}], "o": {"z": [1]}}


def test_render_harness_example_values_are_valid_module_values():
    from chart import render

    values = render.example_values()[openapi.VALUES_KEY]
    assert openapi.validate("values", values)["provider"]["parameters"]["namespace"]
