# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""cloud-data-discoverer: one round against real kube-apiservers (testkit/harness), DVP holding 200 StorageClasses
and 300 VirtualDisks of our cluster (100 of them orphaned), the guest 200 PVs. Figures: time of a first round
(Secret written), of a steady round (nothing changed: nothing written), and the API requests of each: the goal
is a constant handful (one LIST per kind, one GET + at most one write per guest object), never per object."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from bench.measure import figure

ROOT = Path(__file__).resolve().parents[1]
CLASSES, DISKS, ORPHANS = 200, 300, 100


def run() -> dict:
    from cloud_data_discoverer.discoverer import Discoverer
    from cloud_data_discoverer.guest import Guest
    from cloud_data_discoverer.metrics import Metrics
    from dvp_common.dvp import DVPConnection, Inventory
    from dvp_common.dvp import labels as L
    from dvp_common.dvp.resources import VIRTUAL_DISK
    from dvp_common.kube import RequestMetrics
    from dvp_common.kube.resources import PERSISTENT_VOLUME, STORAGE_CLASS
    from dvp_sim.builders import disk
    from harness.apiserver import ControlPlane, dvp_crd_files, guest_crd_files

    out: dict = {}
    with ControlPlane() as plane:
        plane.start({"dvp": ("AlwaysAllow", dvp_crd_files()), "guest": ("AlwaysAllow", guest_crd_files())})
        dvp_api, guest_api = plane.servers["dvp"], plane.servers["guest"]
        dvp, guest = dvp_api.client(), guest_api.client()
        ns, cluster = dvp_api.create_namespace("bench"), str(uuid.uuid4())
        gns = guest_api.create_namespace("bench")
        for i in range(CLASSES):
            dvp.create(STORAGE_CLASS, {"metadata": {"name": f"sc-{i:03d}"}, "provisioner": "x"})
        for i in range(DISKS):
            body = disk(f"d-{i:03d}")
            body["metadata"]["labels"] = {L.CLUSTER_UUID: cluster, L.COMPONENT: L.CSI}
            dvp.create(VIRTUAL_DISK, body, ns)
            if i >= ORPHANS:
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
            result = disc.run_once()
            out[f"{label}_ms"] = (time.perf_counter() - started) * 1000
            out[f"{label}_dvp"], out[f"{label}_guest"] = dvp_metrics.total() - d0, guest_metrics.total() - g0
            out[f"{label}_written"] = result.discovery_written
            if len(result.orphans) != ORPHANS or result.dvp_error or result.write_error:
                raise RuntimeError(f"discoverer bench: unexpected round {result}")
    return out


def figures():
    res = run()
    for label in ("first", "steady"):
        what = "Secret written" if res[f"{label}_written"] else "nothing written"
        yield figure(f"cloud-data-discoverer: {label} round, {CLASSES} DVP classes, {DISKS} disks ({what})",
                     round(res[f"{label}_ms"], 1), "ms")
        yield figure(f"cloud-data-discoverer: DVP requests of a {label} round", res[f"{label}_dvp"], "calls", "6")
        # first: 3 GETs (last data, installer data, Secret) + create, PV LIST, ConfigMap GET + create
        yield figure(f"cloud-data-discoverer: guest requests of a {label} round", res[f"{label}_guest"], "calls",
                     "7" if label == "first" else "4")
