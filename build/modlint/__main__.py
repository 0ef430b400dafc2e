# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`python -m modlint [MODULE_DIR]`: print every finding, exit 1 on any error (warnings do not fail)."""

from __future__ import annotations

import argparse
import pathlib
import sys

from .findings import ERROR, Finding
from .runner import ROOT, lint, render_cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m modlint", description=__doc__)
    parser.add_argument("module_dir", nargs="?", type=pathlib.Path, default=ROOT)
    parser.add_argument("--files-only", action="store_true", help="skip the rendered-object rules")
    args = parser.parse_args(argv)
    findings: list[Finding] = lint(args.module_dir)
    cases = 0
    if not args.files_only:
        for name, render in render_cases():
            try:
                objects, registries = render()
            except Exception as exc:  # any render failure is DMT's helm-render finding, not a crash
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                findings.append(Finding("templates", "helm-render", f"{name}: the module does not render: {first}"))
                continue
            cases += 1
            findings += lint(args.module_dir, objects, registries, files=False, complete=name == "all-on")
    findings = list(dict.fromkeys(findings))  # a finding seen in several configurations is reported once
    for finding in findings:
        print(finding.line())
    errors = sum(f.level == ERROR for f in findings)
    rendered = f"{cases} rendered configuration(s)" if cases else "rendered-object rules not run"
    print(f"modlint: {errors} error(s), {len(findings) - errors} warning(s) ({rendered})", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
