# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The whole `make demo` scenario (demo): wall time against the simulator's latency floor, DVP requests.

The simulator holds each object in a phase for LATENCY_S. The scenario's serial chain of phases it must wait
through is FLOOR_PHASES long: a machine's disk Provisioning and VM Starting (machines in parallel); the volume's
Provisioning, Resizing, the snapshot's InProgress, the restored volume's Provisioning and the detach's
Terminating; a VM's Stopping at teardown. floor = FLOOR_PHASES x LATENCY_S; the cloud steps (nodes, volumes,
LoadBalancer, teardown) should take at most floor + 10 s. Set-up steps (API servers, hooks, component starts)
are reported apart: they are the harness, not the module.
"""

from __future__ import annotations

import io

from bench.measure import figure

LATENCY_S = 0.5
FLOOR_PHASES = 8
CLOUD_STEPS = ("NodeGroup", "Nodes registered", "a PVC", "a LoadBalancer", "scale down")


def run(latency: float = LATENCY_S):
    from demo.environment import Demo, Settings, StepFailed
    from demo.progress import Progress
    from demo.walk import walk

    out = io.StringIO()
    demo = Demo(Progress(out=out), Settings(sim_latency=latency))
    try:
        return walk(demo)
    except StepFailed as exc:
        raise RuntimeError(f"e2e scenario failed: {exc}\n{out.getvalue()}") from None
    finally:
        demo.stop()


def figures():
    result = run()
    cloud = sum(s for name, s in result.step_times.items() if name.startswith(CLOUD_STEPS))
    floor = FLOOR_PHASES * LATENCY_S
    yield figure(f"e2e: cloud steps (nodes, volume+snapshot, LoadBalancer, teardown), phase latency {LATENCY_S:g} s",
                 round(cloud, 2), "s", f"<= {floor + 10:g} (simulator floor {floor:g} s + 10 s)")
    yield figure("e2e: simulator latency floor of the cloud steps", floor, "s")
    yield figure("e2e: whole scenario wall time (API servers, hooks, components, cloud steps)",
                 round(result.wall, 2), "s")
    yield figure("e2e: DVP API requests for the whole scenario (every client, simulator included)",
                 result.dvp_requests, "requests")
    yield figure("e2e: hook runs", result.hook_runs, "runs")
