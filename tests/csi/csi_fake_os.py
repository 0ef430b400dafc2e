# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A fake OS layer for node logic: devices, filesystems and mounts in memory, every call recorded."""

from __future__ import annotations

from dvp_csi.os_ops import OsOps, Usage


class FakeOs(OsOps):
    def __init__(self) -> None:
        self.links: dict[str, str] = {}  # by-id link -> device
        self.fs: dict[str, str] = {}  # device -> filesystem ("" = empty)
        self.sizes: dict[str, int] = {}
        self.mount_table: dict[str, str] = {}  # target -> source
        self.paths: set[str] = set()
        self.calls: list[tuple] = []
        self.unplugged: set[str] = set()  # devices the kernel no longer has (their mounts stay)

    def add_disk(self, link: str, device: str, fs: str = "", size: int = 1 << 30) -> None:
        self.links[link], self.fs[device], self.sizes[device] = device, fs, size
        self.paths.update({link, device})

    def exists(self, path):
        return path in self.paths or path in self.mount_table

    def wait_for(self, path, timeout):
        return path in self.links

    def realpath(self, path):
        return self.links.get(path, path)

    def is_block_device(self, path):
        return path in self.sizes or self.mount_table.get(path) in self.sizes and path not in self._fs_mounts()

    def _fs_mounts(self):
        return {t for t, s in self.mount_table.items() if s in self.fs and self.fs[s] and not t.endswith("/block")}

    def mounts(self):
        return dict(self.mount_table)

    def fs_type(self, device):
        self.calls.append(("fs_type", device))
        return self.fs[device]

    def mkfs(self, device, fs):
        self.calls.append(("mkfs", device, fs))
        self.fs[device] = fs

    def mount(self, source, target, fs, options):
        self.calls.append(("mount", source, target, fs, tuple(options)))
        self.mount_table[target] = source

    def bind_mount(self, source, target, readonly):
        self.calls.append(("bind_mount", source, target, readonly))
        self.mount_table[target] = self.mount_table.get(source, source)

    def umount(self, target):
        self.calls.append(("umount", target))
        del self.mount_table[target]

    def makedirs(self, path):
        self.paths.add(path)

    def make_file(self, path):
        self.paths.add(path)

    def remove(self, path):
        self.calls.append(("remove", path))
        self.paths.discard(path)

    def usage(self, path):
        return Usage(total=100, available=60, used=40, inodes=10, inodes_free=7, inodes_used=3)

    def device_present(self, path):
        return self.mount_table.get(path, path) not in self.unplugged

    def block_size(self, device):
        return self.sizes[self.links.get(device, self.mount_table.get(device, device))]

    def resize_fs(self, device, fs, mount_path):
        self.calls.append(("resize_fs", device, fs, mount_path))
