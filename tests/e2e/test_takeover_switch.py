# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The switch (`python -m demo --takeover`, demo.switch): this module installed over a cluster Deckhouse's own
(Go) module built, another cluster's upstream-made objects beside it in the same project. Its components adopt
what is this cluster's, leave the rest alone, and do the cluster's everyday work on it: machines linked, the master
Node tainted while its VM is stopped, the LoadBalancer's address kept, the volume moved, grown and snapshotted, and
every delete and scale-down cleaning up, with no uid changed on the way."""

from __future__ import annotations

import io

from demo.environment import Demo, Settings, StepFailed
from demo.progress import Progress
from demo.switch import switch


def test_the_module_takes_over_an_upstream_built_cluster(tmp_path):
    out = io.StringIO()
    demo = Demo(Progress(out=out), Settings(), tmp_path)
    try:
        result = switch(demo)
    except StepFailed as exc:
        raise AssertionError(f"{exc}\n{out.getvalue()}") from None
    finally:
        demo.stop()
    log = out.getvalue()
    assert result.report_code == 0, log  # nothing blocks the switch
    # after the deletes: exactly what was there before, minus this cluster's objects the deletes removed, each
    # with its uid (dhctl's master, its disks, address, Secret and NetworkPolicy; the other cluster's objects)
    assert result.after == {k: uid for k, uid in result.before.items() if k not in result.removed}, log
    assert result.removed <= set(result.before), log
    assert result.theirs and result.theirs_after == result.theirs, log  # not even a label of theirs changed
    assert result.foreign == [], log
    assert result.lb_address and result.lb_address == result.parent_lb_address, log
    assert len(set(result.volume_nodes)) == 2, log  # the upstream volume ran on both workers in turn
    # the LoadBalancer's backends: the two adopted workers and the two the grown NodeGroup added
    adopted = {name for kind, name in result.removed if kind == "VirtualMachine"}
    assert len(result.lb_backends) == 4 and adopted < set(result.lb_backends), log
    for line in ("labels dvp.deckhouse.io/component=capdvp", "and node.cloudprovider.kubernetes.io/shutdown (CCM)",
                 "PVC data resized -> 2Gi; VolumeSnapshot data-snap ready"):
        assert line in log, log
