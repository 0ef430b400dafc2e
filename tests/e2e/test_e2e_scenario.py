# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo's scenario as tests: the walk under DVP faults (against DVP API v1.0.0's spellings) and under SIGKILLs
of controllers; the clean walk's own tests are in test_clean_run.py, beside the others that read that walk.

Each test starts its own API servers, simulator and component processes (demo); the numbers asserted are
the ones `make demo` prints. Exactly these DVP objects are created, every one is deleted, nothing is left.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections import Counter

from demo.chaos import CONTROLLERS
from demo.environment import Settings
from demo.faulty import INJECTED_PREFIX

from .conftest import run

# 2 VMs (one per zone of the NodeGroup) with a root disk, a cloud-init Secret and an address each; 2 CSI volumes
# (one restored from the snapshot), each attached for its Pod; 1 snapshot; 1 LoadBalancer Service.
EXPECTED = {"VirtualMachine": 2, "VirtualDisk": 4, "VirtualMachineBlockDeviceAttachment": 2,
            "VirtualDiskSnapshot": 1, "VirtualMachineIPAddress": 2, "VirtualMachineOperation": 2, "Secret": 2,
            "Service": 1}
LB_POOL = ipaddress.ip_network("127.77.0.0/24")
# The 10 beforeHelm hooks twice (install, then after discovery) and the 2 afterHelm hooks once.
HOOK_RUNS = 22


def assert_converged(result, log: str) -> None:
    assert result.unavailable == {}, log
    assert result.created == EXPECTED, log
    assert result.deleted == EXPECTED, log
    assert result.leftovers == {}, log
    assert result.nodes_initialized == 2, log
    assert ipaddress.ip_address(result.lb_address) in LB_POOL, log
    assert result.dvp_requests > 0
    assert result.admission == {"good": True, "bad": False}, log
    assert result.hook_runs == HOOK_RUNS, log


def test_scenario_converges_under_dvp_faults_against_dvp_v1_0_spellings(tmp_path):
    # Two things the clean run does not play, in one walk: DVP failing requests and dropping watches, and a parent
    # DVP of API v1.0.0, which spells renamed reasons the older way (dvp_common.dvp.conditions, `old`): every
    # component reads both, so the module's job comes out the same.
    faults = {"error_rate": 0.2, "conflict_rate": 0.1, "watch_drop_rate": 0.3, "seed": 7}
    sim = ("--error-rate", "patch=0.2", "--error-rate", "create=0.2", "--error-rate", "update=0.1",
           "--watch-drop-rate", "0.2", "--dvp-api-version", "v1.0.0")
    result, log = run(Settings(faults=faults, sim_args=sim), tmp_path)
    assert_converged(result, log)
    starts = [p.read_text().splitlines()[0] for p in tmp_path.rglob("dvp-sim.log")]
    assert len(starts) == 1 and re.fullmatch(r"dvp_sim: running \(namespace [a-z0-9-]+, DVP API v1\.0\.0\)",
                                             starts[0]), starts
    injected = injected_faults(tmp_path)
    for component in ("cloud-controller-manager", "capdvp-controller-manager", "csi-controller"):
        assert any(k.startswith("5xx:") for k in injected.get(component, {})), injected
    totals: dict[str, int] = {}  # "5xx" | "409" | "watch-drop" -> count over every component
    for counts in injected.values():
        for k, v in counts.items():
            bucket = k.split(":")[0]
            totals[bucket] = totals.get(bucket, 0) + v
    assert totals.get("409", 0) > 0 and totals.get("watch-drop", 0) > 0, injected


def injected_faults(work) -> dict[str, dict[str, int]]:
    """The counts demo.faulty printed at each component's exit (summed over restarts)."""
    out: dict[str, dict[str, int]] = {}
    for log in work.glob("*.log"):
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith(INJECTED_PREFIX):
                counts = out.setdefault(log.stem, {})
                for k, v in json.loads(line[len(INJECTED_PREFIX):]).items():
                    counts[k] = counts.get(k, 0) + v
    return out


def test_scenario_converges_when_controllers_are_sigkilled(tmp_path):
    # Slower DVP phases keep the controllers busy longer, so more kills land while they work.
    result, log = run(Settings(kills=10, seed=3, sim_latency=1.0), tmp_path)
    assert_converged(result, log)
    assert Counter(result.kills) == dict.fromkeys(CONTROLLERS, 10), log
    # Half of each controller's kills land on a DVP write it holds in flight (demo.chaos waits for the write,
    # not for a moment), the other half on idle controllers after teardown.
    assert result.kills_active == 15, log
    assert Counter(what.split(":")[0] for what in result.killed_in_flight) == dict.fromkeys(CONTROLLERS, 5), log
