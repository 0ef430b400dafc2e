# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A controller Context over two in-memory APIs (guest, DVP), with a fixed clock."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from dvp_ccm import indexes
from dvp_ccm.cloud import Cloud
from dvp_ccm.controllers.context import Context
from dvp_ccm.domain.lifecycle import LifecycleConfig
from dvp_ccm.events import EventRecorder
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import EVENT, NODE, SERVICE
from informed_api import UUID, InformedApi, dvp_api, dvp_connection, guest_api

NOW = dt.datetime(2026, 1, 1, 0, 10, tzinfo=dt.UTC)


@dataclass
class World:
    guest: InformedApi
    dvp: InformedApi
    ctx: Context

    def events(self) -> list[tuple[str, str, str]]:
        """(reason, involved object name, message) of every Event recorded."""
        # in the order they were recorded (the API's one resourceVersion counter), not by their random names
        recorded = sorted(self.guest.items(EVENT), key=lambda e: int(e["metadata"]["resourceVersion"]))
        return [(e["reason"], e["involvedObject"]["name"], e["message"]) for e in recorded]

    def guest_writes(self) -> list[tuple[str, ...]]:
        return [c for c in self.guest.writes() if c[1] != "Event"]


def world(lifecycle: LifecycleConfig | None = None, prober=None, prefixes: tuple[str, ...] = ()) -> World:
    guest, dvp = guest_api(), dvp_api()
    indexes.install(dvp.store(VIRTUAL_MACHINE), guest.store(NODE), guest.store(SERVICE), [dvp.store(SERVICE)])
    cloud = Cloud(dvp_connection(dvp), dvp.store(VIRTUAL_MACHINE), dvp.store(SERVICE))
    ctx = Context(guest=guest.client, cloud=cloud, nodes=guest.store(NODE), events=EventRecorder(guest.client),  # type: ignore
                  services=guest.store(SERVICE), lifecycle=lifecycle or LifecycleConfig(),
                  lb_annotation_prefixes=prefixes, prober=prober, now=lambda: NOW)
    return World(guest, dvp, ctx)


__all__ = ["NOW", "UUID", "World", "world"]
