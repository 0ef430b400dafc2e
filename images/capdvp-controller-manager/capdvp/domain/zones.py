# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Failure domains: the cluster's zones as Cluster API publishes them, and the zone a machine's VM runs in.

A zone is a value of the DVP nodes' `topology.kubernetes.io/zone` label; DVP places a VM in it through the VM's
`spec.nodeSelector` (as for a pod). The zones come from DeckhouseCluster `spec.zones` (node-manager renders it from
`nodes.parameters.zones`); without zones nothing is placed. A Machine naming a failure domain (node-manager's
per-zone MachineDeployments, a KubeadmControlPlane) gets it; a Machine naming none is spread over the zones among
the machines of its MachineDeployment (or MachineSet): the least used zone, machines still undecided taking turns
in name order, so concurrent reconciles of sibling machines decide the same. Once the VM exists its nodeSelector is
the truth.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

ZONE_LABEL = "topology.kubernetes.io/zone"


@dataclass(frozen=True)
class Decision:
    zone: str = ""  # "" = no placement
    error: str = ""  # the requested failure domain is not one of the cluster's zones


def of_cluster(dc: Mapping | None) -> list[str]:
    """DeckhouseCluster spec.zones (the CRD keeps them distinct label values)."""
    return [str(z) for z in ((dc or {}).get("spec") or {}).get("zones") or [] if z]


def failure_domains(zones: Sequence[str]) -> list[dict]:
    """Cluster API v1beta2 InfraCluster status.failureDomains: a list keyed by name; control planes may use any."""
    return [{"name": z, "controlPlane": True} for z in zones]


def vm_zone(vm: Mapping) -> str:
    return str(((vm.get("spec") or {}).get("nodeSelector") or {}).get(ZONE_LABEL) or "")


def decide(me: str, requested: str, zones: Sequence[str], decided: Mapping[str, str],
           undecided: Sequence[str]) -> Decision:
    """The zone for machine `me`; `decided`: its siblings' zones (machine -> zone), `undecided`: those with none."""
    if not zones:
        return Decision()
    if requested:
        if requested not in zones:
            return Decision(error=f"failure domain {requested!r} is not one of the cluster's zones "
                                  f"({', '.join(zones)}); fix Machine spec.failureDomain or nodes.parameters.zones")
        return Decision(requested)
    used = Counter({z: 0 for z in zones})
    used.update(z for m, z in decided.items() if z in used and m != me)
    for machine in sorted(set(undecided) | {me}):
        zone = min(zones, key=lambda z: (used[z], zones.index(z)))
        if machine == me:
            return Decision(zone)
        used[zone] += 1
    raise AssertionError("unreachable: `me` is among the machines")
