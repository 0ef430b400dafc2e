# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Volume capabilities the driver supports: one node at a time, block or mount (ext4/xfs)."""

from __future__ import annotations

from typing import Any

from dvp_csi.generated import csi_pb2

from .errors import invalid

AccessMode = csi_pb2.VolumeCapability.AccessMode
SUPPORTED_MODES = frozenset({AccessMode.SINGLE_NODE_WRITER, AccessMode.SINGLE_NODE_READER_ONLY})
SUPPORTED_FS = ("ext4", "xfs")
DEFAULT_FS = "ext4"


def unsupported_reason(cap: Any) -> str | None:
    """Why one VolumeCapability cannot be served, or None."""
    if cap.access_mode.mode not in SUPPORTED_MODES:
        name = AccessMode.Mode.Name(cap.access_mode.mode)
        return f"access mode {name} is not supported (only SINGLE_NODE_WRITER, SINGLE_NODE_READER_ONLY)"
    kind = cap.WhichOneof("access_type")
    if kind is None:
        return "access_type (block or mount) is required"
    if kind == "mount" and cap.mount.fs_type and cap.mount.fs_type not in SUPPORTED_FS:
        return f"fs_type {cap.mount.fs_type!r} is not supported (ext4, xfs)"
    return None


def require_supported(caps: Any, field: str = "volume_capabilities") -> None:
    if not caps:
        raise invalid(f"{field} is required")
    for cap in caps:
        reason = unsupported_reason(cap)
        if reason:
            raise invalid(f"{field}: {reason}")


def fs_type(cap: Any) -> str:
    return cap.mount.fs_type or DEFAULT_FS
