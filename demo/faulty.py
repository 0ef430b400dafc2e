# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m demo.faulty <module> [args]: run a component's entry point with faults on its DVP requests.

$DEMO_FAULTS is JSON {"host": DVP URL, "error_rate": f, "conflict_rate": f, "watch_drop_rate": f, "seed": n,
"hold": {"dir": path, "name": component}} (hold: the chaos's in-flight announcements, demo.inflight).
Every KubeClient the component builds for that host gets dvp_common's transport fault hook (SimFaults): 5xx on
any verb (random), 409 on every n-th update/patch (n = 1/conflict_rate), broken watches (random). Clients of
the guest API are left alone.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import sys
import threading
from pathlib import Path

from dvp_common.kube import client as kube_client
from dvp_common.kube.faults import Fault, RequestInfo

from demo.inflight import hold_hook
from sim.faults import SimFaults

WRITES = ("create", "update", "patch", "delete")
VERBS = ("get", "list", *WRITES)
# A real 409 Conflict answers a stale resourceVersion on update/patch; a 409 on create is AlreadyExists, a
# different fact (the object is there), so conflicts are injected where the API can send them.
CONFLICT_VERBS = ("update", "patch")


INJECTED_PREFIX = "demo.faulty: injected "


class EveryNth:
    """409 on every n-th update/patch, starting with the first: the rate exactly, and at least one conflict in
    any process that writes at all (a random 10 % of a few dozen writes is too often none)."""

    def __init__(self, rate: float) -> None:
        self.n = round(1 / rate) if rate > 0 else 0
        self.seen = 0
        self.injected: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, req: RequestInfo) -> Fault | None:
        if not self.n or req.verb not in CONFLICT_VERBS:
            return None
        with self._lock:
            self.seen += 1
            if (self.seen - 1) % self.n:
                return None
            self.injected[req.verb] = self.injected.get(req.verb, 0) + 1
        return Fault(status=409, reason="Conflict", message="injected by demo.faulty: the object has been modified")


def fault_hook(spec: dict):
    errors = SimFaults(error_rate=dict.fromkeys(VERBS, spec.get("error_rate", 0.0)),
                       watch_drop_rate=spec.get("watch_drop_rate", 0.0), seed=spec.get("seed"))
    conflicts = EveryNth(spec.get("conflict_rate", 0.0))

    def hook(req: RequestInfo) -> Fault | None:
        return conflicts(req) or errors(req)

    def report() -> None:  # on exit: what was injected, so a test can tell faults really happened
        counts = {k if k == "watch-drop" else f"5xx:{k}": v for k, v in errors.injected.items()}
        counts.update({f"409:{k}": v for k, v in conflicts.injected.items()})
        print(INJECTED_PREFIX + json.dumps(counts, sort_keys=True), file=sys.stderr, flush=True)

    atexit.register(report)
    return hook


def install(spec: dict) -> None:
    original = kube_client.KubeClient.from_credentials.__func__
    faults = fault_hook(spec)
    hook = faults
    if spec.get("hold"):  # the chaos kills this controller on a DVP write it holds in flight (demo.inflight)
        held = hold_hook(Path(spec["hold"]["dir"]), spec["hold"]["name"])

        def hook(req: RequestInfo) -> Fault | None:
            return held(req) or faults(req)

    def from_credentials(cls, creds, **kwargs):
        if creds.host.rstrip("/") == spec["host"].rstrip("/"):
            kwargs["faults"] = hook
        return original(cls, creds, **kwargs)

    kube_client.KubeClient.from_credentials = classmethod(from_credentials)


def main() -> None:
    install(json.loads(os.environ["DEMO_FAULTS"]))
    module, sys.argv = sys.argv[1], [sys.argv[1], *sys.argv[2:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
