#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The switch ConfigMap d8-cloud-provider-dvp/dvp-cloud-controller-manager-disable-lb -> internal.disableLoadBalancer.

Its presence alone turns the CCM's service-lb-controller off (for clusters whose LoadBalancers come from
elsewhere, e.g. MetalLB); the data is not read."""

from lib import bindings
from lib import values as v
from lib.hookrun import run
from lib.snapshots import results

SNAPSHOT = "disable_lb_configmap"
CONFIGMAP = "dvp-cloud-controller-manager-disable-lb"
VALUE = v.internal("disableLoadBalancer")

config = bindings.render({
    "beforeHelm": 10,
    "kubernetes": [
        bindings.kubernetes(SNAPSHOT, "ConfigMap", "{name: .metadata.name}", namespace=v.NAMESPACE, names=[CONFIGMAP]),
    ],
})


def main(ctx) -> None:
    v.set_(ctx.values, VALUE, bool(results(ctx, SNAPSHOT)))


if __name__ == "__main__":
    run(main, config)
