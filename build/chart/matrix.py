# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The values matrix the templates are checked against: each case is the full Helm values Deckhouse would pass.

The module part goes through the module's own openapi (chart.openapi: defaults applied, schema checked), so a case
cannot hold a value the real configuration would refuse.
"""

from __future__ import annotations

import copy
from typing import Any

from chart import openapi
from chart.render import MODULE_KEY, deep_merge, example_values

# Internal values the hooks always write before Helm runs (x-required-for-helm in Deckhouse terms).
_REQUIRED_INTERNAL = ("credentialSecrets", "capdvpControllerManagerWebhookCert", "validationWebhookCert",
                      "snapshotWebhookCert")


def _module(config: dict[str, Any], internal: dict[str, Any]) -> dict[str, Any]:
    return openapi.validate("values", {**copy.deepcopy(config), "internal": copy.deepcopy(internal)})


def build(config_overrides: dict[str, Any] | None = None, global_overrides: dict[str, Any] | None = None,
          internal_overrides: dict[str, Any] | None = None, *, minimal: bool = False) -> dict[str, Any]:
    base = example_values()
    config = {k: v for k, v in base[MODULE_KEY].items() if k != "internal"}
    internal = base[MODULE_KEY]["internal"]
    glob = base["global"]
    if minimal:
        config = openapi.config_examples()[0]
        internal = {k: internal[k] for k in _REQUIRED_INTERNAL}
        glob = {
            "modulesImages": glob["modulesImages"],
            "discovery": {"clusterUUID": glob["discovery"]["clusterUUID"]},
            "internal": glob["internal"],
        }
    if config_overrides:
        config = deep_merge(config, config_overrides)
    if internal_overrides:
        internal = deep_merge(internal, internal_overrides)
    if global_overrides:
        glob = deep_merge(glob, global_overrides)
    return {"global": glob, MODULE_KEY: _module(config, internal)}


_NO_DISCOVERY = {"providerDiscoveryData": None, "storageClasses": None, "defaultStorageClass": None}


def _maximal() -> dict[str, Any]:
    config = deep_merge(openapi.config_examples()[1], {"storage": {"snapshots": {"disabled": False}}})
    enabled = [*example_values()["global"]["enabledModules"], "prometheus-crd"]  # dashboards rendered
    return build(config_overrides=config, global_overrides={
        "enabledModules": enabled,
        "modules": {"placement": {"customTolerationKeys": ["dedicated.example.com"]}},
        "discovery": {"clusterMasterCount": 3, "d8SpecificNodeCountByRole": {"system": 3, "cloudProviderDvp": 2}},
    })


CASES: dict[str, Any] = {
    "defaults": lambda: build(),
    "storage-off": lambda: build({"storage": {"disabled": True}}),
    "nodes-off": lambda: build({"nodes": {"disabled": True}}),
    "ccm-off": lambda: build({"ccm": {"disabled": True}}),
    "lb-disabled": lambda: build(internal_overrides={"disableLoadBalancer": True}),
    "snapshots-off": lambda: build({"storage": {"snapshots": {"disabled": True}}}),
    "ha-on": lambda: build({"highAvailability": True}),
    "ha-off": lambda: build({"highAvailability": False}, {"highAvailability": True}),
    "minimal": lambda: build(minimal=True),
    "maximal": _maximal,
    # The states a real cluster passes through: the module enabled before d8-credentials exists, before the
    # discoverer published anything, while a legacy configuration is migrated, and after.
    "no-credentials": lambda: build(internal_overrides={"credentialSecrets": None}),
    "no-discovery-data": lambda: build(internal_overrides=_NO_DISCOVERY),
    "fresh-install": lambda: build(internal_overrides={"credentialSecrets": None, **_NO_DISCOVERY}),
    "migration-pending": lambda: build(internal_overrides={"migration": {
        "pending": True, "fingerprint": "0" * 64, "projected": ["provider.parameters.namespace"]}}),
    "migration-done": lambda: build(internal_overrides={"migration": {
        "pending": False, "fingerprint": "1" * 64, "projected": ["provider.parameters.namespace"]}}),
}


def case(name: str) -> dict[str, Any]:
    return CASES[name]()
