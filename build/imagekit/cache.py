# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Where the builder keeps what it fetched and made, outside the tree (as tools/build does for the Go tools):
`$CPDVP_CACHE/images/` (default ~/.cache/cloud-provider-dvp/images): .debs by sha256, wheels by the lock, layer
blobs by digest, each layer's descriptor by the key of its inputs, and the staged root filesystems."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path


def root() -> Path:
    base = os.environ.get("CPDVP_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") \
        / "cloud-provider-dvp"
    out = Path(base) / "images"
    out.mkdir(parents=True, exist_ok=True)
    return out


def blobs() -> Path:
    out = root() / "blobs"
    out.mkdir(exist_ok=True)
    return out


def key(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()[:24]


def files_key(paths: list[Path], top: Path) -> str:
    """A key of files by their path under `top` and content."""
    return key(*(f"{p.relative_to(top)}\0".encode() + p.read_bytes() for p in sorted(paths)))


def load(kind: str, name: str) -> dict | None:
    path = root() / kind / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def store(kind: str, name: str, doc: dict) -> None:
    path = root() / kind / f"{name}.json"
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, sort_keys=True))
    tmp.replace(path)


def known_layer(name: str):
    """The layer made before under `name` (kind-key), if its blob is still there."""
    from .layer import Layer

    known = load("layers", name)
    if known and (blobs() / known["digest"].partition(":")[2]).is_file():
        return Layer(**known)
    return None


def keep_layer(name: str, layer) -> None:
    store("layers", name, layer.__dict__)
