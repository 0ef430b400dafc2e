#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Parent StorageClasses (internal.providerDiscoveryData) -> internal.storageClasses and
internal.defaultStorageClass; a metric when the cluster default was changed by hand (we do not revert it)."""

from lib import bindings
from lib import storage_classes as sc
from lib import values as v
from lib.errors import InvalidInput
from lib.hookrun import run
from lib.snapshots import results

SNAPSHOT = "storage_classes"
VALUE = v.internal("storageClasses")
DEFAULT_VALUE = v.internal("defaultStorageClass")
METRIC = "d8_cloud_provider_dvp_default_storage_class_drifted"
METRIC_GROUP = "d8_cloud_provider_dvp_default_storage_class"
DEFAULT_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
BETA_DEFAULT_ANNOTATION = "storageclass.beta.kubernetes.io/is-default-class"
# Either annotation marks a default, "true" in any case, as Deckhouse's module reads a class it keeps.
_IS_DEFAULT = " or ".join(f'((.metadata.annotations["{a}"] // "") | ascii_downcase == "true")'
                          for a in (DEFAULT_ANNOTATION, BETA_DEFAULT_ANNOTATION))

config = bindings.render({
    "beforeHelm": 20,
    "kubernetes": [
        bindings.kubernetes(
            SNAPSHOT, "StorageClass",
            "{name: .metadata.name, ours: (.provisioner == \"" + sc.PROVISIONER + "\" and"
            " .metadata.labels.module == \"cloud-provider-dvp\"),"
            f" isDefault: ({_IS_DEFAULT}),"
            " dvpStorageClass: .parameters.dvpStorageClass, volumeBindingMode, reclaimPolicy, allowVolumeExpansion}",
            api_version="storage.k8s.io/v1",
        ),
    ],
})


def main(ctx) -> None:
    if v.get(ctx.values, v.module("provider")) is None:
        # Before the settings are there (a Synchronization run at start, ahead of the hook that projects a
        # legacy configuration) any values patch fails validation: wait for the run in which they are.
        return
    # metadata.name is a string in every object the API serves; anything else is no StorageClass of anyone's
    cluster = [c for c in results(ctx, SNAPSHOT) if isinstance(c.get("name"), str)]
    plan = sc.plan(
        discovered=v.get(ctx.values, v.internal("providerDiscoveryData.storageClasses")) or [],
        patterns=v.get(ctx.values, v.module("storage.parameters.excludedStorageClasses")),
        existing=[c for c in cluster if c.get("ours")],
    )
    v.set_(ctx.values, VALUE, plan.classes)
    if plan.default:
        v.set_(ctx.values, DEFAULT_VALUE, plan.default)
    else:
        v.delete(ctx.values, DEFAULT_VALUE)
    for name in plan.recreate:
        ctx.kubernetes.delete("StorageClass", "", name, apiVersion="storage.k8s.io/v1")

    # An explicit cluster-wide choice (global.defaultClusterStorageClass) is what the default should be.
    expected = v.get(ctx.values, "global.defaultClusterStorageClass") or plan.default
    if not isinstance(expected, str | None):
        raise InvalidInput("values", "global.defaultClusterStorageClass", "must be a string")
    ctx.metrics.expire(METRIC_GROUP)
    labels = sc.drift(expected, [c["name"] for c in cluster if c.get("isDefault")], [c["name"] for c in cluster])
    if labels:
        ctx.metrics.collect({"name": METRIC, "group": METRIC_GROUP, "action": "set", "value": 1, "labels": labels})


if __name__ == "__main__":
    run(main, config)
