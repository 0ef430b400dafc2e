# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m imagekit build [--out DIR] [NAME ...] | lock

build: every image (or the NAMEs) as OCI image layouts in DIR/<name> (default .tmp/images); prints
{imageKey: digest} as JSON. lock: records images/debian.lock from the Debian suite's current index."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import declarations, lock
from .errors import ImageError

DEFAULT_OUT = declarations.ROOT / ".tmp" / "images"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m imagekit", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build images")
    b.add_argument("--out", type=Path, default=DEFAULT_OUT)
    b.add_argument("names", nargs="*")
    sub.add_parser("lock", help="record images/debian.lock")
    args = parser.parse_args(argv)
    if args.command == "lock":
        try:
            for name, pkgs in lock.record().items():
                print(f"{name}: {len(pkgs)} packages", file=sys.stderr)
        except ImageError as exc:
            print(f"imagekit: {exc}", file=sys.stderr)
            return 1
        return 0
    from . import build

    try:
        built = build.build(args.names or None, args.out, log=lambda m: print(m, file=sys.stderr))
    except ImageError as exc:
        print(f"imagekit: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({b.key: b.digest for b in built.values()}, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
