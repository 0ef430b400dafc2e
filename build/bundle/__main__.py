# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m bundle --out DIR [--provider P] [--validator V] [--push REF]

Assembles the bundle as an OCI image layout in DIR/terraform-manager with the module's image builder (the same
path as `make images`; the validator is built first when not given, see validator_build) and, with --push,
pushes it with .bin/crane (module_release.crane). Prints the manifest digest."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from imagekit import build
from imagekit.errors import ImageError
from module_release import ReleaseError, crane

from . import contents, validator_build

ROOT = contents.ROOT
PROVIDER = ROOT / ".bin" / "terraform-provider-kubernetes"


def assemble(out: Path, provider: Path = PROVIDER, validator: Path | None = None) -> build.Built:
    validator = validator or validator_build.build(log=lambda m: print(m, file=sys.stderr))
    return build.image_from_entries("terraform-manager", contents.entries(ROOT / "candi", provider, validator), out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bundle", description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True, help="directory for the OCI image layout (replaced)")
    p.add_argument("--provider", type=Path, default=PROVIDER)
    p.add_argument("--validator", type=Path, help="validator executable (default: built and cached)")
    p.add_argument("--push", metavar="REF", help="push the image to this reference with crane")
    args = p.parse_args(argv)
    try:
        image = assemble(args.out, args.provider, args.validator)
        if args.push:
            crane.push(image.layout, args.push)
    except (FileNotFoundError, ReleaseError, validator_build.BuildError, ImageError) as exc:
        print(f"bundle: {exc}", file=sys.stderr)
        return 1
    print(image.digest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
