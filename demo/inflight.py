# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A controller's DVP writes, announced to the chaos (demo.chaos) while they are in flight.

Runs inside the controller process (installed by demo.faulty). When the chaos has armed this component (file
`<dir>/<name>.armed`), the next DVP write (create/update/patch/delete) is held at dvp_common's transport fault
point: its pid, verb and resource are published as `<dir>/<name>.inflight`, and the request waits until the
chaos either SIGKILLs the process (the kill lands with that write issued and unanswered) or releases it by
removing the file. The hold is bounded, so a chaos that went away never stalls the controller.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from dvp_common.kube.faults import Fault, RequestInfo

WRITES = frozenset({"create", "update", "patch", "delete"})
HOLD = 15.0  # seconds a write waits for the chaos at most
RELEASE_POLL = 0.02


def armed_file(directory: Path, name: str) -> Path:
    return directory / f"{name}.armed"


def inflight_file(directory: Path, name: str) -> Path:
    return directory / f"{name}.inflight"


def hold_hook(directory: Path, name: str):
    armed, inflight = armed_file(directory, name), inflight_file(directory, name)

    def hook(req: RequestInfo) -> Fault | None:
        if req.verb not in WRITES or not armed.exists():
            return None
        draft = directory / f"{name}.{os.getpid()}.{threading.get_ident()}.draft"
        draft.write_text(f"{os.getpid()} {req.verb} {req.resource}\n")
        try:
            os.link(draft, inflight)  # atomic: the chaos never reads a half-written announcement
        except FileExistsError:
            return None  # another worker's write is already held
        finally:
            draft.unlink(missing_ok=True)
        deadline = time.monotonic() + HOLD
        while inflight.exists() and time.monotonic() < deadline:
            time.sleep(RELEASE_POLL)  # the request is held until the chaos decides
        inflight.unlink(missing_ok=True)
        return None

    return hook
