# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Reads what the zone rule (domain/zones.py) needs: the cluster's zones and the zones of the machine's siblings,
all from the informers' caches."""

from __future__ import annotations

from capdvp import resources as r
from capdvp.controllers import guest
from capdvp.controllers.context import Context
from capdvp.domain import zones

# Labels Cluster API puts on the Machines of one MachineDeployment / MachineSet: the group a zone spreads over.
GROUP_LABELS = ("cluster.x-k8s.io/deployment-name", "cluster.x-k8s.io/set-name")


def decide(ctx: Context, dm: dict, machine: dict, cluster: dict) -> zones.Decision:
    ns, me = dm["metadata"].get("namespace"), dm["metadata"]["name"]
    ref = (cluster.get("spec") or {}).get("infrastructureRef") or {}
    dc = guest.get_or_none(ctx.guest, r.DECKHOUSE_CLUSTER, ref["name"], ns) if ref.get("name") else None
    cluster_zones = zones.of_cluster(dc)
    requested = str((machine.get("spec") or {}).get("failureDomain") or "")
    if not cluster_zones or requested:
        return zones.decide(me, requested, cluster_zones, {}, ())
    labels = machine["metadata"].get("labels") or {}
    key = next((k for k in GROUP_LABELS if labels.get(k)), None)
    decided: dict[str, str] = {}
    undecided: list[str] = []
    for peer in ctx.guest.list(r.MACHINE, ns, label_selector={key: labels[key]}).items if key else []:
        name = ((peer.get("spec") or {}).get("infrastructureRef") or {}).get("name")
        if not name or name == me or peer["metadata"].get("deletionTimestamp"):
            continue
        zone = str((peer.get("spec") or {}).get("failureDomain") or "")
        if not zone:
            sibling = guest.get_or_none(ctx.guest, r.DECKHOUSE_MACHINE, name, ns)
            zone = str(((sibling or {}).get("status") or {}).get("failureDomain") or "")
        if zone:
            decided[name] = zone
        else:
            undecided.append(name)
    return zones.decide(me, "", cluster_zones, decided, undecided)
