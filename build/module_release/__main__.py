# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m module_release [--registry HOST:PORT/PATH] [--images DIR] [--channels alpha,beta,...] [--verify]

Pushes the release (component images by digest, the module image, the release image and its channel tags) to
the registry repository given, or, without --registry, to a local `crane registry serve` (blobs under
.tmp/registry) started for the run and stopped after it. --verify then pulls and checks the release the way a
ModuleSource does (`python -m module_source verify --tree .`, into .tmp/release/verified). Prints one JSON summary."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from . import CHANNELS, ReleaseError, fileset, local_registry, publish

TMP = fileset.ROOT / ".tmp"
LOCAL_PATH = "deckhouse/modules"  # the repository path under a local registry


def _verify(repo: str, channel: str, dest: Path) -> int:
    shutil.rmtree(dest, ignore_errors=True)
    argv = [sys.executable, "-m", "module_source", "verify", "--repo", repo, "--channel", channel, "--dest", str(dest),
            "--tree", str(fileset.ROOT)]  # the pulled module must render exactly what this tree renders
    return subprocess.run(argv, check=False).returncode


def _run(repo: str, args) -> int:
    result = publish.release(repo, args.images, TMP / "release", tuple(args.channels))
    print(json.dumps(result.summary(), indent=2))
    if args.verify:
        channel = "stable" if "stable" in args.channels else args.channels[0]
        code = _verify(repo, channel, TMP / "release" / "verified")
        if code == 0:
            print(f"module_release: {result.version} verified from {repo} (channel {channel}, module "
                  f"{result.module_digest}; unpacked in .tmp/release/verified)", file=sys.stderr)
        return code
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m module_release", description=__doc__.splitlines()[0])
    parser.add_argument("--registry", help="HOST:PORT/PATH, the ModuleSource's spec.registry.repo (default: local)")
    parser.add_argument("--images", type=Path, default=TMP / "images", help="the built OCI layouts (make images)")
    parser.add_argument("--channels", type=lambda s: [c for c in s.split(",") if c], default=list(CHANNELS))
    parser.add_argument("--verify", action="store_true", help="pull and verify the release as a ModuleSource does")
    args = parser.parse_args(argv)
    try:
        if args.registry:
            return _run(args.registry, args)
        with local_registry.serve(TMP / "registry") as host:
            print(f"module_release: local registry {host} (blobs in .tmp/registry), stopped after this run",
                  file=sys.stderr)
            return _run(f"{host}/{LOCAL_PATH}", args)
    except ReleaseError as exc:
        print(f"module_release: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
