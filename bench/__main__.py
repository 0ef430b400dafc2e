# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`python -m bench [AREA ...]`: run every benchmark module (or the named ones), one JSON line per figure.

A module that fails to import or to measure gets one line on stderr naming it; the others still run and the
exit code is 1.
"""

from __future__ import annotations

import importlib
import json
import pathlib
import sys
from collections.abc import Iterable

HERE = pathlib.Path(__file__).resolve().parent
NOT_BENCHMARKS = {"__init__", "__main__", "measure"}
KEYS = ("figure", "value", "unit", "goal")


def areas(folder: pathlib.Path = HERE) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.py") if p.stem not in NOT_BENCHMARKS and not p.stem.startswith("_"))


def _checked(area: str, item: object) -> dict:
    if not isinstance(item, dict) or set(item) != set(KEYS):
        raise ValueError(f"a figure must be a dict with exactly {', '.join(KEYS)}: got {item!r}")
    if not isinstance(item["value"], int | float):
        raise ValueError(f"figure {item['figure']!r}: value {item['value']!r} is not a number")
    return {k: item[k] for k in KEYS}


def run(names: Iterable[str], package: str = "bench", out=sys.stdout, err=sys.stderr) -> int:
    failed = 0
    for area in names:
        try:
            module = importlib.import_module(f"{package}.{area}")
            if not callable(getattr(module, "figures", None)):
                raise AttributeError("no figures() function")
            for item in module.figures():
                print(json.dumps(_checked(area, item)), file=out, flush=True)
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            failed += 1
            message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            print(f"bench: {package}.{area} failed: {type(exc).__name__}: {message}", file=err, flush=True)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    wanted = list(sys.argv[1:] if argv is None else argv)
    known = areas()
    unknown = [a for a in wanted if a not in known]
    if unknown:
        print(f"bench: unknown area(s) {', '.join(unknown)}; known: {', '.join(known) or 'none'}", file=sys.stderr)
        return 2
    if not known:
        print("bench: no benchmark modules in bench/", file=sys.stderr)
        return 1
    return run(wanted or known)


if __name__ == "__main__":
    raise SystemExit(main())
