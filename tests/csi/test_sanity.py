# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""csi-sanity against the driver on a unix socket; node specs on real loop devices and mounts.

Backed by the in-memory DVP here; test_sanity_real_api.py runs the same suite against the DVP simulator on a real
kube-apiserver.
"""

from __future__ import annotations

import pytest
from csi_env import CLUSTER, NODE, make_settings, serve
from csi_loopdev import LoopDevices, check_environment
from csi_sanity import UNADVERTISED, run
from dvp_csi.dvp.memory import MemoryDvp

MIB = 1 << 20


@pytest.mark.tools
def test_csi_sanity_every_spec_passes(tmp_path):
    check_environment()
    dvp = MemoryDvp()
    dvp.add_vm("vm-worker-0", NODE, CLUSTER, static_disks=2)
    loops = LoopDevices(tmp_path / "by-id", tmp_path / "images").hook(dvp)
    try:
        for r in serve(make_settings(tmp_path), dvp):
            res = run(r.endpoint, tmp_path / "sanity", {"dvpStorageClass": "fast"}, size=64 * MIB,
                      expand_size=128 * MIB)
    finally:
        loops.close()
    assert res.failed == [], res.output
    unexpected = {name: msg for name, msg in res.skipped.items() if msg not in UNADVERTISED}
    assert unexpected == {}
    areas = {area: [n for n in res.passed if area in n] for area in (
        "Identity Service", "Controller Service", "Node Service", "CreateSnapshot", "ListSnapshots",
        "DeleteSnapshot", "ExpandVolume", "ListVolumes", "ControllerPublishVolume")}
    assert all(areas.values()), {a: len(v) for a, v in areas.items()}
    print(f"csi-sanity: {len(res.passed)} passed, {len(res.skipped)} skipped (unadvertised capabilities)")
    assert len(res.passed) == 78  # of 103 specs (1 pending upstream, 24 skipped as unadvertised)
    assert loops.loops == {}  # every attached loop device was detached again
