# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`Components.keep_up` restarts a component each time it exits, as the kubelet restarts a container (the CSI
sidecars exit when the driver they call goes away), and leaves a running one alone."""

from __future__ import annotations

import sys

from demo.components import Components

WAIT = 30.0


def test_keep_up_restarts_an_exiting_component_and_not_a_running_one(tmp_path):
    comps = Components(tmp_path)
    quits = comps.add("quits", ["-c", "print('up')"], {})
    stays = comps.add("stays", ["-c", "import time; time.sleep(600)"], {}, program=sys.executable)
    quits.spawn()
    stays.spawn()
    try:
        comps.keep_up(["quits", "stays"])
        assert comps.wait_restarts("quits", 3, WAIT), comps.restarts
        assert quits.starts == comps.restarts["quits"] + 1
        assert "stays" not in comps.restarts and stays.running and stays.starts == 1
    finally:
        comps.stop_all()
    # every start ran (the last one may have been stopped before it printed), all into one log
    assert (tmp_path / "quits.log").read_text().count("up") in (quits.starts - 1, quits.starts)
    assert not stays.running
