# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Our own implementation of the DMT (deckhouse/dmt) lint rules that apply to files and rendered objects.

DMT itself cannot be obtained here (not served by the Go module proxy, not on PyPI/npm), so its file and
rendered-object rules are re-implemented from DMT's rule descriptions. Rule ids, linter names and the `.dmtlint.yaml`
exclusion format are DMT's, so the real tool can take over without touching the configuration.

Not re-implemented: `keys` (needs DMT's banned-names configuration), `httproute-rules` (the module ships no
Ingress), `markdownlint`, `package-yaml`/`module-package-consistency` (no package.yaml), promtool checks inside
`prometheus-rules`, and CEL compilation inside `deckhouse-validations` (only the block shape is checked).
"""

from .findings import ERROR, WARNING, Exclusions, Finding, Rendered
from .runner import lint, render_cases, render_for_lint

__all__ = ["ERROR", "WARNING", "Exclusions", "Finding", "Rendered", "lint", "render_cases", "render_for_lint"]
