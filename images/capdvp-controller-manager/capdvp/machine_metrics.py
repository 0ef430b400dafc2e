# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp's own series besides the reconcile metrics: machines by VM phase (read from the VM informer's cache at
scrape time, so a scrape costs no DVP request) and how long a machine took from creation to provisioned."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily

from capdvp.domain.census import by_phase

# A VM boots in tens of seconds to minutes; DVP imports of a boot image can take far longer.
PROVISIONING_BUCKETS = (10, 20, 30, 60, 120, 180, 300, 600, 900, 1800, 3600)
ADOPTED_KINDS = ("VirtualMachine", "VirtualDisk", "Secret")  # what capdvp adopts (controllers/adoption.py)
SEEN_CAP = 10_000  # machines remembered as observed; far more than a cluster has


class _Phases:
    def __init__(self, vms: Callable[[], Iterable[dict]]) -> None:
        self.vms = vms

    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily("capdvp_machines", "Machines (our VirtualMachines) by DVP phase", labels=["phase"])
        for phase, n in by_phase((vm.get("status") or {}).get("phase") for vm in self.vms()).items():
            family.add_metric([phase], n)
        yield family


class MachineMetrics:
    def __init__(self, registry: CollectorRegistry, vms: Callable[[], Iterable[dict]]) -> None:
        self.provisioning = Histogram(
            "capdvp_machine_provisioning_duration_seconds",
            "From the DeckhouseMachine's creation to its VM running (observed once, when it is provisioned)",
            buckets=PROVISIONING_BUCKETS, registry=registry)
        self.adoptions = Counter(
            "capdvp_adoptions_total", "Objects the upstream capdvp made for a machine, adopted with proof (the "
            "DeckhouseMachine naming the VM; the adopted VM owning the disks and Secret), by kind",
            ["kind"], registry=registry)
        for kind in ADOPTED_KINDS:
            self.adoptions.labels(kind=kind)
        registry.register(_Phases(vms))
        # A pass that reads the machine from the cache before its own status write arrived sees it unprovisioned
        # again: the machines already observed are remembered (by uid, the newest SEEN_CAP of them).
        self._seen: dict[str, None] = {}

    def adopted(self, kind: str) -> None:
        self.adoptions.labels(kind=kind).inc()

    def provisioned(self, uid: str, seconds: float) -> None:
        if uid in self._seen:
            return
        self._seen[uid] = None
        if len(self._seen) > SEEN_CAP:
            del self._seen[next(iter(self._seen))]
        self.provisioning.observe(max(0.0, seconds))
