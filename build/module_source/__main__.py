# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m module_source verify --repo HOST:PORT/PATH --channel stable --dest DIR [--scheme http|https] [--tree DIR]

Pulls the release on the channel the way a Deckhouse ModuleSource does and verifies it (module_source.verify);
DIR receives the unpacked module only when every check passed. Prints a JSON report; on bad input one line
`module_source: <what>` on stderr, exit 1, and DIR as it was. --tree: the source tree the release was made
from; the unpacked module must render exactly as it does."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from . import SourceError, verify


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m module_source", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify", help="pull and verify a release channel")
    v.add_argument("--repo", required=True, help="the ModuleSource's spec.registry.repo, HOST[:PORT]/PATH")
    v.add_argument("--channel", default="stable")
    v.add_argument("--dest", type=Path, required=True, help="where the module is unpacked (absent or empty)")
    v.add_argument("--scheme", choices=("http", "https"), help="default: http for loopback hosts, else https")
    v.add_argument("--tree", type=Path, help="the source tree the release was made from (render parity)")
    args = parser.parse_args(argv)
    try:
        report = verify.verify(args.repo, args.channel, args.dest, scheme=args.scheme, tree=args.tree)
    except SourceError as exc:
        print(f"module_source: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(dataclasses.asdict(report), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
