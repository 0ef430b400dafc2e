# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The shared layers: the Python base (Debian packages of the lock's `python` set, what their maintainer scripts
would have added, the standard library's bytecode, the users, the mount points of the upper layers), the static
base (users and /tmp only), and an image's own Debian packages. Each is staged once per key, under the cache."""

from __future__ import annotations

from pathlib import Path

from . import cache, debian, declarations, staging
from .layer import Entry, Layer

LOCK = declarations.IMAGES / "debian.lock"
SOURCES = [Path(__file__), Path(debian.__file__), Path(staging.__file__), declarations.IMAGES / "base.yaml"]


def _users(uid: int, name: str) -> list[Entry]:
    passwd = f"root:x:0:0:root:/root:/usr/sbin/nologin\n{name}:x:{uid}:{uid}:{name}:/tmp:/usr/sbin/nologin\n"
    group = f"root:x:0:\n{name}:x:{uid}:\n"
    return [Entry("etc/passwd", data=passwd.encode()), Entry("etc/group", data=group.encode()),
            Entry("tmp", mode=0o1777), Entry("proc"), Entry("dev")]


def _write_users(tree: Path, uid: int, name: str) -> None:
    for entry in _users(uid, name):
        path = tree / entry.path
        if entry.data is None:
            path.mkdir(parents=True, exist_ok=True)
            path.chmod(entry.mode if entry.mode is not None else 0o755)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(entry.data)


def _packages(set_name: str) -> list[debian.Package]:
    _, sets, packages = debian.read_lock(LOCK)
    if set_name not in sets:
        raise debian.DebianError(f"images/debian.lock has no set {set_name!r}: run `make images-lock`")
    return [packages[n] for n in sets[set_name]]


def _status(pkg: debian.Package) -> bytes:
    # What scanners read in a distroless image to know its Debian packages (dpkg's status.d convention).
    return (f"Package: {pkg.name}\nStatus: install ok installed\nVersion: {pkg.version}\n"
            f"Architecture: {debian.ARCH}\n").encode()


def _unpack_packages(tree: Path, pkgs: list[debian.Package]) -> None:
    for pkg in pkgs:
        debian.unpack_into(debian.fetch(pkg), tree)
        status = tree / "var/lib/dpkg/status.d" / pkg.name
        status.parent.mkdir(parents=True, exist_ok=True)
        status.write_bytes(_status(pkg))


def python_base() -> tuple[Layer, Path]:
    settings = declarations.base_settings()
    pkgs = _packages("python")
    key = cache.key(cache.files_key(SOURCES, declarations.ROOT), *(p.sha256 for p in pkgs))

    def make(tree: Path) -> None:
        _unpack_packages(tree, pkgs)
        for link in debian.MERGED_USR:
            (tree / link).symlink_to(f"usr/{link}")
        (tree / "usr/bin/python3").symlink_to(Path(settings["python"]["interpreter"]).name)
        _write_users(tree, settings["user"]["uid"], settings["user"]["name"])
        for mount_point in ("app/lib", "app/src"):  # the upper layers' trees are bound there while compiling
            (tree / mount_point).mkdir(parents=True)
        stdlib = f"/usr/lib/{Path(settings['python']['interpreter']).name}"
        staging.compile_bytecode(tree, [stdlib], interpreter=settings["python"]["interpreter"], writable=True)

    return staging.tree_layer("python-base", key, make)


def static_base() -> Layer:
    settings = declarations.base_settings()
    key = cache.key(cache.files_key(SOURCES, declarations.ROOT))
    layer, _ = staging.tree_layer("static-base", key, lambda tree: _write_users(tree, settings["user"]["uid"],
                                                                    settings["user"]["name"]))
    return layer


def extra_packages(image: str) -> tuple[Layer, list[debian.Package]]:
    pkgs = _packages(image)
    key = cache.key(cache.files_key(SOURCES, declarations.ROOT), *(p.sha256 for p in pkgs))
    layer, _ = staging.tree_layer(f"debian-{image}", key, lambda tree: _unpack_packages(tree, pkgs))
    return layer, pkgs


def python_packages() -> list[debian.Package]:
    return _packages("python")
