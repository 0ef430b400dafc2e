# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Is a body we build accepted by the DVP API as written? Shared by the matrices of the components' objects
(tests/dvp_sim/test_component_objects.py) and of the layouts' objects (tests/candi/test_layout_objects.py).

The API is the harness's DVP server (our CRDs and the simulator's admission webhooks), or, with CPDVP_DVP_CRDS
naming a directory of DVP's real CustomResourceDefinitions, a kube-apiserver of its own loaded with those (schema
only: DVP's webhooks are not part of a CRD). Accepted means created and stored as sent: a structural schema drops
unknown fields without an error, so every field we wrote must come back with its value."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

REAL_CRDS = "CPDVP_DVP_CRDS"


def schema_server(control_plane, dvp_api, seed=None):
    """The API server judging the bodies; `seed(client)` prepares ours (e.g. the VirtualMachineClass that
    the sizing-policy webhook reads)."""
    real = os.environ.get(REAL_CRDS)
    if not real:
        if seed is not None:
            client = dvp_api.client()
            try:
                seed(client)
            finally:
                client.close()
        return dvp_api
    files = sorted(Path(real).glob("*.yaml"))
    assert files, f"{REAL_CRDS}={real}: no CRD files"
    return control_plane.add_server("dvp-real", "AlwaysAllow", files)


def contains(made: Any, built: Any) -> bool:
    """`made` (what the API stored) holds everything of `built`, quantities as written."""
    if isinstance(built, dict):
        return isinstance(made, dict) and all(k in made and contains(made[k], v) for k, v in built.items())
    if isinstance(built, list):
        return isinstance(made, list) and len(made) == len(built) and all(map(contains, made, built))
    return made == built


def create_as_written(client, res, ns: str, body: dict) -> dict:
    """Create `body` in `ns`; the API must store its spec, data, type and labels as written."""
    made = client.create(res, body, ns)
    name = f"{body['kind']} {body['metadata']['name']}"
    for part in ("spec", "data", "type"):
        if part in body:
            assert contains(made[part], body[part]), f"{name}: {part} changed: sent {body[part]!r}, stored " \
                                                     f"{made.get(part)!r}"
    assert made["metadata"].get("labels") == body["metadata"].get("labels"), f"{name}: labels changed"
    assert made["metadata"].get("annotations", {}) | (body["metadata"].get("annotations") or {}) == \
        made["metadata"].get("annotations", {}), f"{name}: annotations changed"
    return made
