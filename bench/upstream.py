# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What `make upstream` (in every `make setup`) costs now that it also copies DVP's API constants and generates the
CRDs of the kinds DVP generates with the pinned controller-gen: a run over files already in place (the warm setup)
and a run into an empty folder (every file copied, the CRDs generated anew). Goal for both: under 10 s."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench.measure import figure, median_ms

ROOT = Path(__file__).resolve().parents[1]
FETCH = ROOT / "tools" / "fetch-upstream"


def _fetch(out: Path | None = None) -> None:
    env = dict(os.environ)
    if out is not None:
        env["CPDVP_UPSTREAM_DIR"] = str(out)
    subprocess.run([str(FETCH)], cwd=ROOT, env=env, check=True, capture_output=True, timeout=600)


def _fresh() -> None:
    out = Path(tempfile.mkdtemp(prefix="cpdvp-upstream-"))
    try:
        _fetch(out)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def figures():
    yield figure("upstream: make upstream over files in place (warm setup)", median_ms(_fetch, runs=3), "ms", 10000)
    yield figure("upstream: into an empty folder, DVP's CRDs generated anew", median_ms(_fresh, runs=3), "ms",
                 10000)
