# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the module image holds: the one declaration of the module's file set, and the walk that applies it.

Deckhouse reads module.yaml, Chart.yaml, the chart (templates, charts), openapi/, crds/, hooks/ (every executable
file a hook), docs/ and images_digests.json from the unpacked image; dhctl's provider files are in candi/. The hooks
that call an API import dvp_common from images/dvp-common/dvp_common (hooks/lib/dvp.py), so that library ships at
the same path. What the templates read through `.Files` (capi/ for node-manager's CAPI templates, the Grafana
dashboards of monitoring/) is not declared but derived from the templates (chart_scan): a folder a template reads
cannot be left out of the image. What never ships (tests, test support, caches) is shipping.never_ships."""

from __future__ import annotations

from pathlib import Path

from shipping import never_ships

from . import ReleaseError, chart_scan

ROOT = Path(__file__).resolve().parents[2]

FILES = ("module.yaml", "Chart.yaml", ".helmignore", "oss.yaml")  # from the tree's root, to the image's root
TREES = ("hooks", "images/dvp-common/dvp_common", "templates", "openapi", "crds", "charts", "candi", "docs")
GENERATED = ("images_digests.json",)  # written by the release, not taken from the tree

# Bytecode shipped beside these trees' sources (every hook run is a new process; Deckhouse sets no cache dir).
BYTECODE_TREES = ("hooks", "images/dvp-common/dvp_common")


def chart_reads(root: Path = ROOT) -> dict[str, str]:
    """Each file or folder the chart's templates read through `.Files` -> the first template line reading it."""
    out: dict[str, str] = {}
    for read in chart_scan.reads(root):
        for pattern in read.patterns:
            path = chart_scan.folder(read.method, pattern)
            if not path or "" in path.split("/") or ".." in pattern.split("/"):  # the root, "/x", "a//b", ".."
                raise ReleaseError(f"{read.where}: .Files.{read.method} {pattern!r} reads no folder of the chart: "
                                   f"name one")
            if not (root / path).exists():
                raise ReleaseError(f"{read.where}: .Files.{read.method} {pattern!r}: {path} is missing from {root}")
            out.setdefault(path, read.where)
    return out


def trees(root: Path = ROOT) -> tuple[str, ...]:
    """The declared trees and what the templates read, a path inside a declared tree once."""
    read = [p for p in chart_reads(root) if not any(p == t or p.startswith(t + "/") for t in TREES)]
    return TREES + tuple(sorted(read))


def shipped(rel: str, trees: tuple[str, ...] = TREES) -> bool:
    """Whether a tree file (path relative to the root, "/"-separated) belongs in the module image, given the trees
    that ship (`trees(root)`)."""
    if rel in FILES:
        return True
    return any(rel == tree or rel.startswith(tree + "/") for tree in trees) and not never_ships(rel)


def tree_files(root: Path = ROOT) -> list[str]:
    """The tree's files that ship, sorted; a missing declared file or tree is an error of the declaration, a
    template read the scan cannot resolve one of the template (ReleaseError naming its file and line)."""
    out = []
    for name in FILES:
        if not (root / name).is_file():
            raise FileNotFoundError(f"module file {name} is missing from {root}")
        out.append(name)
    shipping = trees(root)
    for tree in shipping:
        top = root / tree
        if tree in TREES and not top.is_dir():
            raise FileNotFoundError(f"module tree {tree}/ is missing from {root}")
        found = top.rglob("*") if top.is_dir() else [top]
        out += [p.relative_to(root).as_posix() for p in found
                if (p.is_file() or p.is_symlink()) and shipped(p.relative_to(root).as_posix(), shipping)]
    return sorted(set(out))
