# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module image `<repo>/cloud-provider-dvp:vX.Y.Z`: one layer of the module's files (fileset.py), Chart.yaml
stamped with the version, images_digests.json from the pushed digests and the hooks' bytecode, as a deterministic
OCI layout (imagekit): the same tree and digests give the same manifest digest."""

from __future__ import annotations

import importlib.util
import json
import py_compile
import re
import sys
import tempfile
from pathlib import Path

from imagekit import layer, oci

from . import MODULE, ReleaseError, fileset

VERSION_LINE = re.compile(r"^version:.*$", re.MULTILINE)


def chart_yaml(text: str, version: str) -> bytes:
    """Chart.yaml with its top-level `version:` set to the module version (comments and order kept)."""
    stamped, count = VERSION_LINE.subn(f"version: {version}", text, count=1)
    if count != 1:
        raise ReleaseError("Chart.yaml: no top-level `version:` line to stamp with the module version")
    return stamped.encode()


def digests_json(digests: dict[str, str]) -> bytes:
    for key, digest in digests.items():
        if not re.fullmatch(r"sha256:[0-9a-f]{64}", digest):
            raise ReleaseError(f"images_digests.json: {key}: {digest!r} is not a sha256 digest")
    return (json.dumps(dict(sorted(digests.items())), indent=2) + "\n").encode()


def _bytecode(src: Path, rel: str) -> bytes:
    """The checked-hash .pyc of a source (no mtime inside: reproducible; stale bytecode is never used)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.pyc"
        py_compile.compile(str(src), cfile=str(out), dfile=rel, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
        return out.read_bytes()


def _pyc_path(rel: str) -> str:
    return importlib.util.cache_from_source(rel)  # <dir>/__pycache__/<name>.cpython-3XY.pyc


def entries(digests: dict[str, str], version: str, root: Path = fileset.ROOT) -> list[layer.Entry]:
    out = []
    for rel in fileset.tree_files(root):
        src = root / rel
        if src.is_symlink():
            out.append(layer.Entry(rel, link=str(src.readlink())))
        elif rel == "Chart.yaml":
            out.append(layer.Entry(rel, data=chart_yaml(src.read_text(), version)))
        else:
            out.append(layer.Entry(rel, source=src, mode=0o755 if src.stat().st_mode & 0o111 else 0o644))
            if rel.endswith(".py") and any(rel.startswith(t + "/") for t in fileset.BYTECODE_TREES):
                out.append(layer.Entry(_pyc_path(rel), data=_bytecode(src, rel)))
    out.append(layer.Entry("images_digests.json", data=digests_json(digests)))
    return out


def write(out: Path, blobs: Path, digests: dict[str, str], version: str, created: str) -> oci.Image:
    """The module image's layout in `out` (its layer blob kept in the store `blobs`)."""
    image_layer = layer.write_layer(entries(digests, version), blobs)
    config = {"Labels": {"org.opencontainers.image.title": MODULE,
                         "org.opencontainers.image.version": f"v{version}",
                         "org.opencontainers.image.licenses": "Apache-2.0",
                         "io.deckhouse.module.python": f"{sys.version_info.major}.{sys.version_info.minor}"}}
    return oci.write_layout([image_layer], config, out, created=created, blobs=blobs, tag=f"v{version}",
                            history="module_release: module image")

