#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Discovery data -> internal.providerDiscoveryData.

Sources, first wins field by field: what cloud-data-discoverer publishes now, what dhctl stored at bootstrap
(the standalone Secret, then the legacy cluster configuration Secret), then the defaults."""

from lib import bindings, discovery, legacy
from lib import values as v
from lib.hookrun import run
from lib.snapshots import results

SNAPSHOT_DISCOVERER = "discoverer"
SNAPSHOT_BOOTSTRAP = "bootstrap_discovery_data"
SNAPSHOT_LEGACY = "legacy_cluster_configuration"
VALUE = v.internal("providerDiscoveryData")

DISCOVERER_SECRET, DISCOVERER_KEY = "d8-cloud-provider-discovery-data", "discovery-data.json"
BOOTSTRAP_SECRET, BOOTSTRAP_KEY = "d8-candi-cloud-provider-discovery-data", "cloud-provider-discovery-data.json"

config = bindings.render({
    "beforeHelm": 15,
    "kubernetes": [
        bindings.kubernetes(SNAPSHOT_DISCOVERER, "Secret", f'{{data: .data["{DISCOVERER_KEY}"]}}',
                            namespace="kube-system", names=[DISCOVERER_SECRET]),
        bindings.kubernetes(SNAPSHOT_BOOTSTRAP, "Secret", f'{{data: .data["{BOOTSTRAP_KEY}"]}}',
                            namespace="kube-system", names=[BOOTSTRAP_SECRET]),
        legacy.binding(SNAPSHOT_LEGACY),
    ],
})


def sources(ctx) -> list[tuple[dict, str, str]]:
    """(document, object, field) of every source present, in precedence order."""
    found = []
    for snap, name, key, item_key in (
        (SNAPSHOT_DISCOVERER, DISCOVERER_SECRET, DISCOVERER_KEY, "data"),
        (SNAPSHOT_BOOTSTRAP, BOOTSTRAP_SECRET, BOOTSTRAP_KEY, "data"),
        (SNAPSHOT_LEGACY, legacy.NAME, legacy.DISCOVERY_KEY, "discovery"),
    ):
        for item in results(ctx, snap):
            if item.get(item_key):
                obj, field = f"Secret kube-system/{name}", f"data[{key}]"
                found.append((discovery.parse(item[item_key], obj, field), obj, field))
    return found


def main(ctx) -> None:
    found = sources(ctx)
    merged = discovery.merge([doc for doc, _, _ in found])
    # Values hold only validated results: an unchanged result needs no schema (and no YAML import).
    if merged != v.get(ctx.values, VALUE):
        for part, (_, obj, field) in zip(discovery.contributions([doc for doc, _, _ in found]), found, strict=True):
            discovery.validate(part, obj, field)
    v.set_(ctx.values, VALUE, merged)


if __name__ == "__main__":
    run(main, config)
