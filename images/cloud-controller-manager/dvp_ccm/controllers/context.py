# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What every controller is given: the guest client, the DVP side, the caches, the event recorder, a clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from dvp_common.kube import KubeClient

from dvp_ccm.cloud import Cloud, Prober, Store
from dvp_ccm.domain.lifecycle import LifecycleConfig
from dvp_ccm.domain.loadbalancer import Healthchecks
from dvp_ccm.events import EventRecorder


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass
class Context:
    guest: KubeClient
    cloud: Cloud
    nodes: Store
    events: EventRecorder
    services: Store | None = None
    slices: Store | None = None
    lifecycle: LifecycleConfig = field(default_factory=LifecycleConfig)
    default_region: str = ""
    default_zone: str = ""
    internal_network: str = "Main"  # the VM network whose addresses are the Node's InternalIPs
    lb_annotation_prefixes: tuple[str, ...] = ()
    prober: Prober | None = None
    # whether LoadBalancers use ServiceWithHealthchecks now (lbkinds.KindChooser.healthchecks), and its probes
    use_healthchecks: Callable[[], bool] = lambda: False
    healthchecks: Healthchecks = field(default_factory=Healthchecks)
    kind_not_served: Callable[[], None] = lambda: None  # a 404 from a kind discovery called served
    now: Callable[[], dt.datetime] = utcnow
    adopted: Callable[[str], None] = lambda kind: None  # counts an adoption (dvp_ccm_adoptions_total{kind})
