# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""cloud-data-discoverer: one round against real kube-apiservers (testkit/harness), for each n of the growth curve
(bench.measure.sizes): DVP holding n/10 StorageClasses and n VirtualDisks of our cluster (a third of them orphaned),
the guest a PV for each other disk. Figures: time of a first round (Secret written), of a steady round (nothing
changed: nothing written), the API requests of each: the goal is a constant handful whatever n (one LIST per kind,
one GET + at most one write per guest object), never per object; and the Python memory a first round allocates at
its peak (tracemalloc: the round runs in the bench's process)."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from bench.measure import figure, growth, sizes, traced_peak_mib

ROOT = Path(__file__).resolve().parents[1]


def run(disks: int) -> dict:
    from cloud_data_discoverer.discoverer import Discoverer
    from cloud_data_discoverer.guest import Guest
    from cloud_data_discoverer.metrics import Metrics
    from dvp_common.dvp import DVPConnection, Inventory
    from dvp_common.dvp import labels as L
    from dvp_common.dvp.resources import VIRTUAL_DISK
    from dvp_common.kube import RequestMetrics
    from dvp_common.kube.resources import PERSISTENT_VOLUME, STORAGE_CLASS

    from sim.builders import disk
    from testkit.harness.apiserver import ControlPlane, dvp_crd_files, guest_crd_files

    classes, orphans = max(1, disks // 10), disks // 3
    out: dict = {"disks": disks, "classes": classes}
    with ControlPlane() as plane:
        plane.start({"dvp": ("AlwaysAllow", dvp_crd_files()), "guest": ("AlwaysAllow", guest_crd_files())})
        dvp_api, guest_api = plane.servers["dvp"], plane.servers["guest"]
        dvp, guest = dvp_api.client(), guest_api.client()
        ns, cluster = dvp_api.create_namespace("bench"), str(uuid.uuid4())
        gns = guest_api.create_namespace("bench")
        for i in range(classes):
            dvp.create(STORAGE_CLASS, {"metadata": {"name": f"sc-{i:03d}"}, "provisioner": "x"})
        for i in range(disks):
            body = disk(f"d-{i:03d}")
            body["metadata"]["labels"] = {L.CLUSTER_UUID: cluster, L.COMPONENT: L.CSI}
            dvp.create(VIRTUAL_DISK, body, ns)
            if i >= orphans:
                guest.create(PERSISTENT_VOLUME, {"metadata": {"name": f"pv-{i:03d}"}, "spec": {
                    "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                    "csi": {"driver": "csi.dvp.deckhouse.io", "volumeHandle": f"d-{i:03d}"}}})
        dvp_metrics, guest_metrics = RequestMetrics(), RequestMetrics()
        conn = DVPConnection(dvp_api.client(metrics=dvp_metrics), ns, cluster)
        disc = Discoverer(Inventory(conn), Guest(guest_api.client(metrics=guest_metrics), namespace=gns), Metrics(),
                          cluster, orphan_min_age=0)
        for label in ("first", "steady"):
            d0, g0 = dvp_metrics.total(), guest_metrics.total()
            started = time.perf_counter()
            result, out[f"{label}_peak_mib"] = traced_peak_mib(disc.run_once)
            out[f"{label}_ms"] = (time.perf_counter() - started) * 1000
            out[f"{label}_dvp"], out[f"{label}_guest"] = dvp_metrics.total() - d0, guest_metrics.total() - g0
            out[f"{label}_written"] = result.discovery_written
            if len(result.orphans) != orphans or result.dvp_error or result.write_error:
                raise RuntimeError(f"discoverer bench: unexpected round {result}")
    return out


def figures():
    runs = {n: run(n) for n in sizes()}
    for label in ("first", "steady"):
        for n, res in runs.items():
            what = "Secret written" if res[f"{label}_written"] else "nothing written"
            yield figure(f"cloud-data-discoverer n={n}: {label} round, {res['classes']} DVP classes, {n} disks "
                         f"({what})", round(res[f"{label}_ms"], 1), "ms")
            yield figure(f"cloud-data-discoverer n={n}: DVP requests of a {label} round", res[f"{label}_dvp"], "calls",
                         "6, whatever n")
            # first: InstanceTypesCatalog GET + discovery + create, 3 GETs (last data, installer data, Secret) +
            # create, PV LIST, ConfigMap GET + create; steady: the five GETs and the PV LIST, no write
            yield figure(f"cloud-data-discoverer n={n}: guest requests of a {label} round", res[f"{label}_guest"],
                         "calls", "10 whatever n" if label == "first" else "6 whatever n")
        yield figure(f"cloud-data-discoverer: DVP requests of a {label} round, n={max(runs)} over n={min(runs)}",
                     growth({n: r[f"{label}_dvp"] for n, r in runs.items()}), "ratio", "1.0 (constant in n)")
    for n, res in runs.items():
        yield figure(f"cloud-data-discoverer n={n}: Python memory peak of a first round (tracemalloc)",
                     res["first_peak_mib"], "MiB")
