# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every operating-system call of the node plugin, behind one small class so node logic is testable."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from dataclasses import dataclass

COMMAND_TIMEOUT = 120.0  # mkfs of a large disk is the slowest call
SYS_DEV_BLOCK = "/sys/dev/block"


class OsError(Exception):
    """A command or system call failed; one line, naming the path."""


@dataclass(frozen=True)
class Usage:
    total: int
    available: int
    used: int
    inodes: int
    inodes_free: int
    inodes_used: int


def _unescape(field: str) -> str:
    # /proc/self/mountinfo escapes space, tab, newline and backslash as octal
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


class OsOps:
    def run(self, *args: str) -> str:
        try:
            res = subprocess.run(list(args), capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise OsError(f"{args[0]}: {exc}") from exc
        if res.returncode != 0:
            msg = " ".join((res.stderr or res.stdout).split())
            raise OsError(f"{' '.join(args)}: exit {res.returncode}: {msg}")
        return res.stdout

    def exists(self, path: str) -> bool:
        return os.path.lexists(path)

    def wait_for(self, path: str, timeout: float) -> bool:
        deadline, delay = time.monotonic() + timeout, 0.05
        while not os.path.exists(path):
            if time.monotonic() >= deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
        return True

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def is_block_device(self, path: str) -> bool:
        try:
            return stat.S_ISBLK(os.stat(path).st_mode)
        except OSError:
            return False

    def mounts(self) -> dict[str, str]:
        """Mount point -> source, from mountinfo (the last mount on a path wins)."""
        out: dict[str, str] = {}
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields, rfields = left.split(), right.split()
                if len(fields) >= 5 and len(rfields) >= 2:
                    root, point = _unescape(fields[3]), _unescape(fields[4])
                    source = rfields[1] if root == "/" else f"{rfields[1]}[{root}]"
                    out[point] = source
        return out

    def is_mountpoint(self, path: str) -> bool:
        return os.path.realpath(path) in self.mounts()

    def mount_source(self, path: str) -> str | None:
        return self.mounts().get(os.path.realpath(path))

    def fs_type(self, device: str) -> str:
        """The filesystem on a device, "" when blkid finds none (exit 2)."""
        res = subprocess.run(["blkid", "-p", "-s", "TYPE", "-o", "value", device], capture_output=True, text=True,
                             timeout=COMMAND_TIMEOUT, check=False)
        if res.returncode == 2:
            return ""
        if res.returncode != 0:
            raise OsError(f"blkid {device}: exit {res.returncode}: {' '.join(res.stderr.split())}")
        return res.stdout.strip()

    def mkfs(self, device: str, fs: str) -> None:
        if fs == "xfs":
            self.run("mkfs.xfs", "-f", device)
        else:
            self.run(f"mkfs.{fs}", "-F", "-m0", device)

    def mount(self, source: str, target: str, fs: str, options: list[str]) -> None:
        args = ["mount", "-t", fs]
        if options:
            args += ["-o", ",".join(options)]
        self.run(*args, source, target)

    def bind_mount(self, source: str, target: str, readonly: bool) -> None:
        self.run("mount", "--bind", source, target)
        if readonly:
            # a bind mount is read-only only after a remount
            self.run("mount", "-o", "remount,bind,ro", target)

    def umount(self, target: str) -> None:
        self.run("umount", target)

    def makedirs(self, path: str) -> None:
        os.makedirs(path, exist_ok=True)

    def make_file(self, path: str) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.lexists(path):
            with open(path, "a"):
                pass

    def remove(self, path: str) -> None:
        if os.path.isdir(path) and not os.path.islink(path):
            os.rmdir(path)
        elif os.path.lexists(path):
            os.unlink(path)

    def usage(self, path: str) -> Usage:
        st = os.statvfs(path)
        total, free, avail = st.f_blocks * st.f_frsize, st.f_bfree * st.f_frsize, st.f_bavail * st.f_frsize
        return Usage(total=total, available=avail, used=total - free, inodes=st.f_files, inodes_free=st.f_ffree,
                     inodes_used=st.f_files - st.f_ffree)

    def device_present(self, path: str) -> bool:
        """Whether the kernel still has the block device behind `path` (a block device file, or a filesystem
        mounted from one): a hot-unplugged disk leaves its device numbers in the mount, not in /sys/dev/block."""
        st = os.stat(path)
        dev = st.st_rdev if stat.S_ISBLK(st.st_mode) else st.st_dev
        return os.path.exists(f"{SYS_DEV_BLOCK}/{os.major(dev)}:{os.minor(dev)}")

    def block_size(self, device: str) -> int:
        return int(self.run("blockdev", "--getsize64", device).strip())

    def resize_fs(self, device: str, fs: str, mount_path: str) -> None:
        if fs == "xfs":
            self.run("xfs_growfs", mount_path)
        elif fs.startswith("ext"):
            self.run("resize2fs", device)
        else:
            raise OsError(f"{device}: cannot grow filesystem {fs!r} (ext4 or xfs only)")
