# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Real block devices for node tests: when the (simulated) DVP hot-plugs a disk, back it with a loop device and
create the udev-style link /dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_<md5(uid)> in a test directory."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from dvp_common.dvp import disk_state
from dvp_csi.domain import names

REQUIRED = ("losetup", "mkfs.ext4", "blkid", "blockdev", "resize2fs", "mount", "umount")


def missing_tools() -> list[str]:
    return [t for t in REQUIRED if shutil.which(t) is None]


def check_environment() -> None:
    """Fail (never skip) with a clear message when the machine cannot give us loop devices."""
    missing = missing_tools()
    assert not missing, f"node tests need {', '.join(missing)} on PATH"
    assert os.geteuid() == 0, "node tests need root (loop devices and mounts)"
    assert os.path.exists("/dev/loop-control"), "node tests need /dev/loop-control (loop devices)"


class LoopDevices:
    def __init__(self, device_dir: Path, image_dir: Path) -> None:
        self.device_dir = device_dir
        self.image_dir = image_dir
        self.loops: dict[str, str] = {}  # disk uid -> /dev/loopN
        device_dir.mkdir(parents=True, exist_ok=True)
        image_dir.mkdir(parents=True, exist_ok=True)

    def _link(self, uid: str) -> Path:
        return Path(names.device_link(str(self.device_dir), names.disk_serial(uid)))

    def attach(self, disk: dict, vm: dict) -> None:
        uid = disk["metadata"]["uid"]
        if uid in self.loops:
            return
        image = self.image_dir / f"{uid}.img"
        if not image.exists():
            with open(image, "wb") as f:
                f.truncate(disk_state.capacity_bytes(disk))
        loop = subprocess.run(["losetup", "-f", "--show", str(image)], capture_output=True, text=True,
                              check=True).stdout.strip()
        self.loops[uid] = loop
        link = self._link(uid)
        if link.is_symlink():
            link.unlink()
        link.symlink_to(loop)

    def detach(self, disk: dict, vm: dict) -> None:
        uid = disk["metadata"]["uid"]
        loop = self.loops.pop(uid, None)
        link = self._link(uid)
        if link.is_symlink():
            link.unlink()
        if loop:
            subprocess.run(["losetup", "-d", loop], capture_output=True, check=False)

    def resize(self, disk: dict) -> None:
        uid = disk["metadata"]["uid"]
        image = self.image_dir / f"{uid}.img"
        if image.exists():
            with open(image, "r+b") as f:
                f.truncate(disk_state.capacity_bytes(disk))
        if uid in self.loops:
            subprocess.run(["losetup", "-c", self.loops[uid]], capture_output=True, check=True)

    def hook(self, dvp) -> LoopDevices:
        dvp.on_attach, dvp.on_detach, dvp.on_resize = self.attach, self.detach, self.resize
        return self

    def close(self) -> None:
        for loop in list(self.loops.values()):
            subprocess.run(["losetup", "-d", loop], capture_output=True, check=False)
        self.loops.clear()
