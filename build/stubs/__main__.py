# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m stubs [csi] [validator] [--proto P] [--out DIR]

Generates the gRPC stubs of the targets named (default: all) into their git-ignored `generated/` packages.
--proto and --out take one target."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import TARGETS, GenerateError, generate


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m stubs", description=__doc__.splitlines()[2])
    p.add_argument("targets", nargs="*", metavar="TARGET", help=f"{' or '.join(TARGETS)} (default: all)")
    p.add_argument("--proto", type=Path, help="the proto to use (default: the target's; csi: .cache/upstream, "
                                              "else tools/upstream)")
    p.add_argument("--out", type=Path, help="package directory to write (default: the target's generated/)")
    args = p.parse_args(argv)
    names = args.targets or list(TARGETS)
    unknown = [n for n in names if n not in TARGETS]
    if unknown:
        p.error(f"unknown target {unknown[0]!r} (targets: {', '.join(TARGETS)})")
    if (args.proto or args.out) and len(names) != 1:
        p.error("--proto and --out take exactly one target")
    try:
        for name in names:
            out = generate(TARGETS[name], args.out, args.proto)
            print(f"stubs: {name} stubs written to {out}")
    except GenerateError as exc:
        print(f"stubs: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
