# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The pre-switch report alone over a cluster Deckhouse's (Go) module built, as testkit.upstream's `upstream_world`
makes it (so its rows are known exactly: tests/e2e/test_demo_takeover.py); `python -m demo --takeover` runs the
report inside the whole switch (demo.switch).

The demo's DVP and guest API servers, without our module and without DVP's controllers (the simulator would add
the addresses DVP makes for running VMs while the report reads, so the rows would depend on timing; demo.switch
runs the report beside it): testkit.upstream puts an
upstream-built cluster (a dhctl master, a capdvp worker, a CSI volume attached to it, a LoadBalancer) in the
project, with another cluster's objects beside it; then `python3 -m dvp_common.takeover` reads both APIs with two
kubeconfigs, as an operator runs it before the switch. Nothing of the module is installed or started.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from dvp_common.dvp import resources as r
from dvp_common.takeover.__main__ import main as report_main

from demo.environment import Demo, Settings
from demo.progress import Progress
from testkit.upstream import KubeSink, UpstreamWorld, another_cluster, upstream_world

CLUSTER_UUID = "6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e5f"


@dataclass
class Outcome:
    code: int  # the report's exit code
    report: str  # what it printed (JSON with `as_json`)
    error: str
    ours: UpstreamWorld
    theirs: UpstreamWorld
    project: str
    vm_uids: dict[str, str]  # VM name -> uid, as the project held them when the report ran


def run(progress: Progress, *, as_json: bool = False) -> Outcome:
    d = Demo(progress, Settings())
    try:
        with progress.step("start the DVP and guest API servers (no module installed)"):
            d.start_apis()
            d.seed_dvp()
        with progress.step("build a cluster as Deckhouse's module leaves it (testkit.upstream), and another "
                           "cluster's objects beside it"):
            sink = KubeSink(d.dvp, d.guest)
            ours = upstream_world(sink, uuid=CLUSTER_UUID, prefix="demo", namespace=d.project)
            theirs = another_cluster(sink, prefix="neighbour", namespace=d.project)
            vm_uids = {vm["metadata"]["name"]: vm["metadata"]["uid"]
                       for vm in d.dvp.list_all(r.VIRTUAL_MACHINE, d.project).items}
            progress.line(f"   ours: master VM {ours.masters[0]}, machine {ours.machines[0]}, volume "
                          f"{ours.volumes[0]}, load balancer {ours.load_balancers[0]}; theirs: cluster {theirs.uuid}")
        with progress.step("the pre-switch report: python3 -m dvp_common.takeover (GET requests only)"):
            out, err = io.StringIO(), io.StringIO()
            code = report_main(["--guest-kubeconfig", str(d.work / "guest.kubeconfig"),
                                "--parent-kubeconfig", str(d.work / "dvp.kubeconfig"), "--namespace", d.project,
                                "--cluster-uuid", CLUSTER_UUID, *(["--json"] if as_json else [])],
                               out=out, err=err)
            progress.line(f"   exit code {code} ({'nothing blocks' if code == 0 else 'blocked or bad input'})")
        return Outcome(code, out.getvalue(), err.getvalue(), ours, theirs, d.project, vm_uids)
    finally:
        d.stop()
