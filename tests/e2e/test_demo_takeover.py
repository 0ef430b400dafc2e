# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""demo.takeover: an upstream-built cluster in the demo's DVP and guest API servers (no module installed, no DVP
controllers), another cluster's objects beside it, and the pre-switch report on them, row by row."""

from __future__ import annotations

import io
import json

from takeover import takeover_expect as X

from demo import takeover
from demo.progress import Progress


def test_the_demo_prints_the_report_over_an_upstream_built_cluster():
    log = io.StringIO()
    outcome = takeover.run(Progress(out=log), as_json=True)
    assert (outcome.code, outcome.error) == (0, ""), log.getvalue()
    got = json.loads(outcome.report)
    assert [(o["outcome"], o["side"], o["kind"], o["name"], o["component"], o["reason"]) for o in got["objects"]] \
        == X.ordered(X.ours(outcome.ours, outcome.vm_uids.__getitem__) + X.theirs(outcome.theirs))
    assert (got["clusterUUID"], got["namespace"], got["blocks"]) == (takeover.CLUSTER_UUID, outcome.project, False)
    steps = [line.split("== ", 1)[1] for line in log.getvalue().splitlines() if "== " in line]
    assert steps == ["start the DVP and guest API servers (no module installed)",
                     "build a cluster as Deckhouse's module leaves it (testkit.upstream), and another cluster's "
                     "objects beside it",
                     "the pre-switch report: python3 -m dvp_common.takeover (GET requests only)"]
