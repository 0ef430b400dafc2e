#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Applies the module's CRDs (crds/: DeckhouseCluster, DeckhouseMachine, DeckhouseMachineTemplate,
DVPInstanceClass) before Helm renders objects of those kinds; unchanged CRDs are not written."""

from lib import bindings, crds
from lib.hookrun import run
from lib.snapshots import results

SNAPSHOT = "crds"
SHIPPED = crds.shipped()

config = bindings.render({
    "beforeHelm": 1,
    "kubernetes": [
        bindings.kubernetes(
            SNAPSHOT, "CustomResourceDefinition",
            f'{{name: .metadata.name, checksum: .metadata.annotations["{crds.CHECKSUM_ANNOTATION}"]}}',
            api_version="apiextensions.k8s.io/v1", names=[c.name for c in SHIPPED],
        ),
    ],
})


def main(ctx) -> None:
    for crd in crds.to_apply(SHIPPED, results(ctx, SNAPSHOT)):
        ctx.kubernetes.create_or_update(crd.manifest())


if __name__ == "__main__":
    run(main, config)
