# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the bundle holds and where dhctl looks for it (the image is unpacked into <download dir>/dvp); imagekit
builds images/terraform-manager from image_entries():

    layouts/, terraform-modules/, openapi/    candi/ of the tree (what never ships and versions.tf left out)
    cni-bootstrap.yml                          the CNI dhctl enables at bootstrap
    terraform-manager/terraform_versions.yml   the pinned OpenTofu and provider versions
    terraform-manager/plan_rules.yml           which planned change is a VM change (vmResource)
    terraform-manager/terraform-provider-kubernetes
    validator                                  `validator serve ...`, the dhctl validation service
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from imagekit.layer import Entry
from shipping import never_ships

ROOT = Path(__file__).resolve().parents[2]

TREE_DIRS = {"layouts": "layouts", "terraform-modules": "terraform-modules", "openapi": "openapi"}
TREE_FILES = {
    "cni-bootstrap.yml": "cni-bootstrap.yml",
    "terraform_versions.yml": "terraform-manager/terraform_versions.yml",
    "plan_rules.yml": "terraform-manager/plan_rules.yml",
}
PROVIDER = "terraform-manager/terraform-provider-kubernetes"
VALIDATOR = "validator"
# Besides what never ships (the modules' own tests, whatever a local tofu run left behind): versions.tf. dhctl
# links its own (from terraform_versions.yml) into every step and module directory and fails on one already there.
DHCTL_OWN = {"versions.tf"}


def _walk(top: Path, prefix: str, rel: str) -> Iterator[Entry]:
    """`top` (the tree's `rel`) as the image's `prefix`."""
    yield Entry(prefix)
    for p in sorted(top.iterdir()):
        directory = p.is_dir() and not p.is_symlink()
        if p.name in DHCTL_OWN or never_ships(f"{rel}/{p.name}" + ("/" if directory else "")):
            continue
        path = f"{prefix}/{p.name}"
        if p.is_symlink():
            yield Entry(path, link=str(p.readlink()))
        elif directory:
            yield from _walk(p, path, f"{rel}/{p.name}")
        else:
            yield Entry(path, source=p)


def entries(candi: Path, provider: Path, validator: Path) -> list[Entry]:
    """Every entry of the image, sorted by path (directories before what they hold)."""
    for binary in (provider, validator):
        if not binary.is_file():
            raise FileNotFoundError(f"{binary}: no such file (the bundle needs the provider and the validator)")
    out = [Entry("terraform-manager")]
    for src, dst in TREE_DIRS.items():
        out += _walk(candi / src, dst, f"candi/{src}")
    out += [Entry(dst, source=candi / src) for src, dst in TREE_FILES.items()]
    out += [Entry(PROVIDER, source=provider, mode=0o755), Entry(VALIDATOR, source=validator, mode=0o755)]
    return sorted(out, key=lambda e: e.path)


def image_entries() -> list[Entry]:
    """The image's entries from the tree: the provider from .bin, the validator built (or cached) first."""
    from . import validator_build

    return entries(ROOT / "candi", ROOT / ".bin" / "terraform-provider-kubernetes",
                   validator_build.build(log=lambda m: print(m, file=sys.stderr)))
