# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The registry side of a release, through `.bin/crane` (go-containerregistry, pinned in tools/crane): push a
layout, read a tag's digest, tag. No container engine; credentials, if any, come from crane's docker config."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from . import ReleaseError, fileset

CRANE = fileset.ROOT / ".bin" / "crane"
NOT_FOUND = re.compile(r"MANIFEST_UNKNOWN|NAME_UNKNOWN|404 Not Found")


def binary() -> Path:
    if not os.access(CRANE, os.X_OK):
        raise ReleaseError(f"{CRANE.relative_to(fileset.ROOT)} is missing: build it with `tools/build crane`")
    return CRANE


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary()), *args], capture_output=True, text=True, check=False, timeout=600)


def _last_line(res: subprocess.CompletedProcess) -> str:
    lines = res.stderr.strip().splitlines()
    return lines[-1] if lines else f"exit {res.returncode}"


def push(layout: Path, ref: str) -> str:
    """Pushes the layout's one image to `ref` (a tag or a digest); the digest the registry now holds."""
    res = _run("push", str(layout), ref)
    if res.returncode != 0:
        raise ReleaseError(f"crane push {ref}: {_last_line(res)}")
    pushed = res.stdout.strip().rpartition("@")[2]
    if not re.fullmatch(r"sha256:[0-9a-f]{64}", pushed):
        raise ReleaseError(f"crane push {ref}: no digest in its output {res.stdout.strip()!r}")
    return pushed


def digest(ref: str) -> str | None:
    """The digest `ref` names in the registry, None when there is no such tag."""
    res = _run("digest", ref)
    if res.returncode == 0:
        return res.stdout.strip()
    if NOT_FOUND.search(res.stderr):
        return None
    raise ReleaseError(f"crane digest {ref}: {_last_line(res)}")


def tag(ref: str, new_tag: str) -> None:
    res = _run("tag", ref, new_tag)
    if res.returncode != 0:
        raise ReleaseError(f"crane tag {ref} {new_tag}: {_last_line(res)}")
