# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ModuleConfig settings shaped as upstream's module (deckhouse/deckhouse modules/030-cloud-provider-dvp) takes them,
judged by our schema (build/chart/openapi.py, as Deckhouse validates): accepted with the same meaning, or refused
with one line naming the field.

Upstream files read (facts only, nothing copied), all in deckhouse/deckhouse under
modules/030-cloud-provider-dvp/openapi/:
- NEWEST: read in config-values.yaml@0a1f9d68f159a37462a299fc355385453aaf8d59 (x-config-version 2:
  nodes.enabled and storage.enabled, booleans defaulting to true; provider.parameters {namespace,
  networkPolicy: Isolated|None}; nodes.parameters {ipAddresses, layout: Standard, region, sshPublicKey, zones};
  storage.parameters.excludedStorageClasses)
- CASES: read in openapi-case-tests.yaml@12033112d3f89b4f7508cddf0a729cc86edcd423 (upstream's own positive and
  negative configValues)
- V1: read in config-values.yaml@7e6a764b2ab33acf07be8d2cc4c6f9779ac71867 (version 1:
  storageClass.{exclude,default}; converted by openapi/conversions/v2.yaml, tests/openapi/test_conversion_v2.py)

The render side (`enabled: false` renders what `disabled: true` renders) is tests/templates/test_upstream_switches.py.
"""

from __future__ import annotations

import copy

import pytest
from chart import openapi

NEWEST = "config-values.yaml@0a1f9d68"
CASES = "openapi-case-tests.yaml@12033112"

KEY = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ test@deckhouse"  # the key of upstream's CASES
MINIMAL = {  # CASES positive configValues[0]
    "storage": {"parameters": {}},
    "nodes": {"parameters": {"layout": "Standard", "sshPublicKey": KEY}},
    "provider": {"parameters": {"namespace": "default"}},
}
CONTRADICT = "enabled and disabled contradict: set only one of them (enabled: false is disabled: true)"
IPV4_OR_AUTO = ("'^(Auto|((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\\\.){3}"
                "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9]))$'")
LABEL_VALUE = "'^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$'"
DNS_LABEL = "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'"


def with_(*pairs) -> dict:
    """MINIMAL with each dotted path set to its value."""
    out = copy.deepcopy(MINIMAL)
    for path, value in zip(pairs[::2], pairs[1::2], strict=True):
        *parents, leaf = path.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


# (id, source, settings): upstream's schema accepts them, ours too, with the same meaning.
ACCEPTED = [
    ("minimal", CASES, MINIMAL),
    ("every parameter", CASES, {
        "storage": {"parameters": {"excludedStorageClasses": ["slow-hdd"]}},
        "nodes": {"parameters": {"layout": "Standard", "sshPublicKey": KEY, "region": "ru-central1",
                                 "zones": ["zone-a", "zone-b"]}},
        "provider": {"parameters": {"namespace": "my-ns", "networkPolicy": "Isolated"}},
    }),
    ("networkPolicy None", NEWEST, with_("provider.parameters.networkPolicy", "None")),
    ("nodes.enabled false", NEWEST, with_("nodes.enabled", False)),
    ("nodes.enabled true", NEWEST, with_("nodes.enabled", True)),
    ("storage.enabled false", NEWEST, with_("storage.enabled", False)),
    ("storage.enabled true", NEWEST, with_("storage.enabled", True)),
    ("both enabled false", NEWEST, with_("nodes.enabled", False, "storage.enabled", False)),
    ("storage without parameters", NEWEST, {k: v for k, v in MINIMAL.items() if k != "storage"}),
    ("ipAddresses", NEWEST, with_("nodes.parameters.ipAddresses",
                                  {"master": ["10.66.10.10", "Auto", "10.66.10.12"], "front": ["Auto"]})),
    ("ipAddresses empty list", NEWEST, with_("nodes.parameters.ipAddresses", {"master": []})),
    ("zones empty", NEWEST, with_("nodes.parameters.zones", [])),
    ("excludedStorageClasses regex", NEWEST, with_("storage.parameters.excludedStorageClasses", ["nfs-.*"])),
    # Both spellings, agreeing: ours and upstream's at once.
    ("enabled false and disabled true", "ours", with_("nodes.enabled", False, "nodes.disabled", True,
                                                      "storage.enabled", False, "storage.disabled", True)),
    ("enabled true and disabled false", "ours", with_("nodes.enabled", True, "nodes.disabled", False)),
]

# (id, source, settings, errors): refused, each problem one line naming the field. Those from NEWEST are settings
# upstream's schema lets through that our module cannot honour (its patterns are looser: the address pattern
# `^(a.b.c.d)|(Auto)$` anchors only one side of each branch; names and labels are any string).
REFUSED = [
    ("nodes contradict", "ours", with_("nodes.enabled", True, "nodes.disabled", True),
     [f"cloudProviderDvp.nodes: {CONTRADICT}"]),
    ("storage contradict", "ours", with_("storage.enabled", False, "storage.disabled", False),
     [f"cloudProviderDvp.storage: {CONTRADICT}"]),
    ("enabled not boolean", NEWEST, with_("nodes.enabled", "false"),
     ["cloudProviderDvp.nodes.enabled: 'false' is not of type 'boolean'"]),
    ("address out of range", NEWEST, with_("nodes.parameters.ipAddresses", {"master": ["999.1.1.1"]}),
     [f"cloudProviderDvp.nodes.parameters.ipAddresses.master[0]: '999.1.1.1' does not match pattern {IPV4_OR_AUTO}"]),
    ("address with prefix", NEWEST, with_("nodes.parameters.ipAddresses", {"master": ["10.0.0.1/24"]}),
     [f"cloudProviderDvp.nodes.parameters.ipAddresses.master[0]: '10.0.0.1/24' does not match pattern "
      f"{IPV4_OR_AUTO}"]),
    ("address twice", NEWEST, with_("nodes.parameters.ipAddresses", {"master": ["10.0.0.1"], "front": ["10.0.0.1"]}),
     ["cloudProviderDvp.nodes.parameters.ipAddresses: each static address may be given once, across all node "
      "groups"]),
    ("address group not a NodeGroup name", NEWEST, with_("nodes.parameters.ipAddresses", {"Master": ["10.0.0.1"]}),
     ["cloudProviderDvp.nodes.parameters.ipAddresses: unknown field(s): Master"]),
    ("namespace not a DNS label", NEWEST, with_("provider.parameters.namespace", "My_NS"),
     [f"cloudProviderDvp.provider.parameters.namespace: 'My_NS' does not match pattern {DNS_LABEL}"]),
    ("zone not a label value", NEWEST, with_("nodes.parameters.zones", ["zone a"]),
     [f"cloudProviderDvp.nodes.parameters.zones[0]: 'zone a' does not match pattern {LABEL_VALUE}"]),
    ("region not a label value", NEWEST, with_("nodes.parameters.region", "ru central"),
     [f"cloudProviderDvp.nodes.parameters.region: 'ru central' does not match pattern {LABEL_VALUE}"]),
    # Upstream's own negative cases stay refused.
    ("unknown field", CASES, {"somethingInConfig": True},
     ["cloudProviderDvp: 'nodes' is a required property", "cloudProviderDvp: 'provider' is a required property",
      "cloudProviderDvp: unknown field(s): somethingInConfig"]),
    ("layout Unknown", CASES, with_("nodes.parameters.layout", "Unknown"),
     ["cloudProviderDvp.nodes.parameters.layout: 'Unknown' is not one of ['Standard']"]),
    ("networkPolicy Restricted", CASES, with_("provider.parameters.networkPolicy", "Restricted"),
     ["cloudProviderDvp.provider.parameters.networkPolicy: 'Restricted' is not one of ['Isolated', 'None']"]),
]


@pytest.mark.parametrize(("source", "settings"), [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_upstream_settings_are_accepted_as_given(source, settings):
    out = openapi.validate("config", copy.deepcopy(settings))
    # Nothing given is dropped or changed: only defaults are added.
    def given(value, kept):
        if isinstance(value, dict):
            for key, sub in value.items():
                given(sub, kept[key])
        else:
            assert kept == value
    given(settings, out)


@pytest.mark.parametrize(("source", "settings", "errors"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_settings_our_module_cannot_honour_are_refused_one_line_each(source, settings, errors):
    with pytest.raises(openapi.ValuesInvalid) as err:
        openapi.validate("config", copy.deepcopy(settings))
    assert err.value.errors == errors
    assert all("\n" not in e for e in err.value.errors)


def test_upstream_switches_have_no_default_here():
    # Upstream defaults `enabled` to true; a defaulted value could not be told from a given one, so the agreement
    # rule could not hold for `disabled: true` alone. Unset means on (templates/_helpers.tpl "dvp.switch_on").
    out = openapi.validate("config", copy.deepcopy(MINIMAL))
    for part in ("nodes", "storage"):
        assert "enabled" not in out[part] and "disabled" not in out[part]


def test_every_upstream_setting_has_a_place_here():
    # The setting paths of NEWEST (read there, listed here): each is a property of our schema.
    upstream = ["nodes.enabled", "nodes.parameters.ipAddresses", "nodes.parameters.layout", "nodes.parameters.region",
                "nodes.parameters.sshPublicKey", "nodes.parameters.zones", "provider.parameters.namespace",
                "provider.parameters.networkPolicy", "storage.enabled", "storage.parameters.excludedStorageClasses"]
    schema = openapi.schemas().config
    for path in upstream:
        node = schema
        for part in path.split("."):
            node = node["properties"][part]
        assert node, path
