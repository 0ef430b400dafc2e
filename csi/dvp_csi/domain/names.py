# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Names of DVP objects derived from CSI names, and the device path of a disk."""

from __future__ import annotations

import hashlib
import re

from dvp_common.dvp import labels

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
DEVICE_PREFIX = "scsi-0QEMU_QEMU_HARDDISK_"
SERIAL_KEY = "serial"  # the publish_context key (the VolumeAttachment's attachmentMetadata) of the disk serial


def object_name(csi_name: str, prefix: str) -> str:
    """The CSI name itself when it is a valid DNS label (pvc-<uuid>, snapshot-<uuid>), else a stable hash of it."""
    if _DNS_LABEL.match(csi_name):
        return csi_name
    return f"{prefix}-{hashlib.sha256(csi_name.encode()).hexdigest()[:40]}"


def is_valid_object_name(name: str) -> bool:
    return bool(_DNS_LABEL.match(name))


def vmbda_name(disk: str, vm: str) -> str:
    return labels.vmbda_name(disk, vm)


def clone_snapshot_name(target: str) -> str:
    return object_name(f"clone-{target}", "clone")


def disk_serial(uid: str) -> str:
    """DVP sets a disk's serial to the md5 of the VirtualDisk uid."""
    return hashlib.md5(uid.encode(), usedforsecurity=False).hexdigest()


def device_link(device_dir: str, serial: str) -> str:
    return f"{device_dir.rstrip('/')}/{DEVICE_PREFIX}{serial}"


def volume_attachment_name(handle: str, driver: str, node: str) -> str:
    """The VolumeAttachment kube-controller-manager makes for a volume on a node (and kubelet reads)."""
    return "csi-" + hashlib.sha256(f"{handle}{driver}{node}".encode()).hexdigest()
