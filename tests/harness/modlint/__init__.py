# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Our own implementation of the DMT (deckhouse/dmt) lint rules that apply to files and rendered objects.

DMT itself cannot be obtained here (not served by the Go module proxy, not on PyPI/npm), so the rules of
aesthetics.md §1.2 are re-implemented from their descriptions. Rule ids, linter names and the `.dmtlint.yaml`
exclusion format are DMT's, so the real tool can take over without touching the configuration.
"""

from .findings import ERROR, WARNING, Exclusions, Finding, Rendered
from .runner import lint, render_for_lint

__all__ = ["ERROR", "WARNING", "Exclusions", "Finding", "Rendered", "lint", "render_for_lint"]
