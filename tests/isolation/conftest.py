# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Tenant isolation across components: the CSI and CCM test kits (tests/csi, tests/ccm) drive the real components."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
# The kits' csi_*/ccm_*/capdvp_* helpers are imported as top-level modules, as in their own tests.
for kit in ("csi", "ccm", "capdvp"):
    if str(TESTS / kit) not in sys.path:
        sys.path.insert(0, str(TESTS / kit))
