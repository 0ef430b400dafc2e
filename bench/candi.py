# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""candi: what dhctl waits for when it runs our layouts.

The real OpenTofu and hashicorp/kubernetes provider against a real kube-apiserver with sim playing DVP
(disks provision in DISK_S, VMs start in BOOT_S): wall time of `tofu apply` of one master and of DVP bringing
its VM to Running (from nothing to the VM Running with outputs), of a no-change converge plan, and of
`tofu destroy`. The simulator's floor for the apply is the chain address -> disks -> VM (an Auto address, as here,
binds before the VM is made; a static one would not wait); what is above it is OpenTofu's and the provider's own
cost.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench.measure import figure

DISK_S = 1.0
BOOT_S = 2.0
DEFAULT_S = 0.05


def _timed(fn) -> float:
    start = time.monotonic()
    fn()
    return round(time.monotonic() - start, 2)


def run_real() -> dict:
    from dvp_common.dvp import resources as R

    from sim import SimConfig, Simulator
    from testkit.candi.layout_inputs import POOL, seed_parent, variables
    from testkit.candi.tofu_runner import prepare
    from testkit.harness.apiserver import ControlPlane, dvp_crd_files

    latency = {"VirtualDisk.Provisioning": DISK_S, "VirtualMachine.Starting": BOOT_S}
    with tempfile.TemporaryDirectory() as tmp, ControlPlane() as plane:
        plane.start({"dvp": ("AlwaysAllow", dvp_crd_files())})
        api = plane.servers["dvp"]
        client = api.client()
        seed_parent(client)
        ns = api.create_namespace("bench-candi")
        sim = Simulator(api.client(), SimConfig(namespace=ns, latency=latency, default_latency=DEFAULT_S,
                                                ip_pool=POOL, watch_timeout=1)).start()
        try:
            tofu = prepare(Path(tmp))
            cwd = tofu.step(Path(tmp) / "work", "master-node", variables(api.kubeconfig(ns), ns))

            def ok(*args):
                res = tofu.run(cwd, *args, "-input=false", "-no-color", timeout=900)
                if res.rc != 0:
                    raise RuntimeError(f"tofu {args[0]} failed:\n{res.out}")

            def up():
                # The layouts do not wait for Running (dhctl waits for the node): the figure does.
                ok("apply", "-auto-approve")
                client.wait_for(R.VIRTUAL_MACHINE, "candi-master-0",
                                lambda o: o and o.get("status", {}).get("phase") == "Running", 900, ns)

            return {
                "apply_s": _timed(up),
                "plan_s": _timed(lambda: ok("plan", "-detailed-exitcode")),
                "destroy_s": _timed(lambda: ok("destroy", "-auto-approve")),
                # address binds (one step), disks Pending -> Provisioning -> Ready, VM Pending -> Starting -> Running
                "floor_s": round(DEFAULT_S + DISK_S + 2 * DEFAULT_S + BOOT_S, 2),
            }
        finally:
            sim.stop()
            sim.client.close()
            client.close()


def figures():
    real = run_real()
    yield figure("candi master-node (real API + dvp_sim): tofu apply, nothing to VM Running with outputs",
                 real["apply_s"], "s", f"<= {real['floor_s'] + 15:g} (simulator floor {real['floor_s']:g} s + 15 s)")
    yield figure("candi master-node (real API + dvp_sim): tofu plan of a converge with no change",
                 real["plan_s"], "s", "<= 10")
    yield figure("candi master-node (real API + dvp_sim): tofu destroy, until every object is gone",
                 real["destroy_s"], "s", "<= 30")
