#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Discovery data -> internal.providerDiscoveryData.

Sources, first wins field by field: what cloud-data-discoverer publishes now, what dhctl stored at bootstrap
(the standalone Secret, then the legacy cluster configuration Secret), then the defaults. dhctl leaves the
standalone Secret in the module's namespace, older dhctl releases in kube-system: both are read, the module's
namespace first."""

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
BOOTSTRAP_NAMESPACES = (v.NAMESPACE, "kube-system")  # in precedence order


def _bootstrap_binding() -> dict:
    b = bindings.kubernetes(SNAPSHOT_BOOTSTRAP, "Secret",
                            f'{{namespace: .metadata.namespace, data: .data["{BOOTSTRAP_KEY}"]}}',
                            names=[BOOTSTRAP_SECRET])
    b["namespace"] = {"nameSelector": {"matchNames": list(BOOTSTRAP_NAMESPACES)}}
    return b


config = bindings.render({
    "beforeHelm": 15,
    "kubernetes": [
        bindings.kubernetes(SNAPSHOT_DISCOVERER, "Secret", f'{{data: .data["{DISCOVERER_KEY}"]}}',
                            namespace="kube-system", names=[DISCOVERER_SECRET]),
        _bootstrap_binding(),
        legacy.binding(SNAPSHOT_LEGACY),
    ],
})


def _bootstrap_items(ctx) -> list[dict]:
    """The standalone bootstrap Secrets, the module's namespace first (the filter names each one's namespace)."""
    items = [i for i in results(ctx, SNAPSHOT_BOOTSTRAP) if i.get("namespace") in BOOTSTRAP_NAMESPACES]
    return sorted(items, key=lambda i: BOOTSTRAP_NAMESPACES.index(i["namespace"]))


def sources(ctx) -> list[tuple[dict, str, str]]:
    """(document, object, field) of every source present, in precedence order; an empty key is no source."""
    candidates = [("kube-system", DISCOVERER_SECRET, DISCOVERER_KEY, i.get("data"))
                  for i in results(ctx, SNAPSHOT_DISCOVERER)]
    candidates += [(i["namespace"], BOOTSTRAP_SECRET, BOOTSTRAP_KEY, i.get("data")) for i in _bootstrap_items(ctx)]
    candidates += [(legacy.NAMESPACE, legacy.NAME, legacy.DISCOVERY_KEY, i.get("discovery"))
                   for i in results(ctx, SNAPSHOT_LEGACY)]
    found = []
    for namespace, name, key, value in candidates:
        if value:
            obj, field = f"Secret {namespace}/{name}", f"data[{key}]"
            found.append((discovery.parse(value, obj, field), obj, field))
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
