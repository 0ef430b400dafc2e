# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One layer's tar applied to a root directory, safe whatever the tar says and independent of the interpreter's
tarfile filters (on CPython 3.13.0 a chain of symlinks longer than PATH_MAX walks past the `data` filter; the fix
came in 3.13.4). Nothing here follows a link:

- every operation is relative to a directory descriptor opened component by component from the root with
  O_NOFOLLOW, so a path through a symlink, `..`, or an absolute path cannot leave the root (absolute names are
  taken relative to it, as runtimes do); the check comes before anything is removed or written;
- whiteouts (`.wh.<name>`) and opaque whiteouts (`.wh..wh..opq`) are entries like any other: their directory is
  reached the same way, and `<name>` must be a plain name (not `.` or `..`);
- regular files, directories, symlinks and hardlinks to a regular file already inside the root are made; device
  nodes, fifos, sparse files and a second entry for one path in a layer are refused; modes keep only the
  executable bits (0o755 or 0o644), never setuid, setgid, sticky or write bits for others;
- once every layer is applied, `check_links` resolves every symlink inside the root the way the kernel would
  (at most 40 links, nothing above the root, no absolute target): readers of the tree (Helm, the hooks) follow
  links, so a link out of it is refused before anyone reads through it.

A refusal is one SourceError `<what>: entry <name>: <why>`."""

from __future__ import annotations

import errno
import io
import os
import stat
import tarfile
from pathlib import Path

from . import SourceError, deadline, limits
from .shapes import describe

WHITEOUT, OPAQUE = ".wh.", ".wh..wh..opq"
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
COPY = 1 << 16


class Budget:
    """What one image's layers may still hold: entries and bytes, counted across its layers."""

    def __init__(self) -> None:
        self.entries, self.size = limits.IMAGE_ENTRIES, limits.LAYER_EXPANDED_BYTES

    def entry(self, what: str) -> None:
        self.entries -= 1
        if self.entries < 0:
            raise SourceError(f"{what}: more than {limits.IMAGE_ENTRIES} entries in the image")


class Refused(SourceError):
    pass


def parts_of(name: str, what: str) -> list[str]:
    """The components of an entry's path inside the root; `..`, NUL or an oversized path is refused."""
    if len(name.encode()) > limits.PATH_BYTES or "\0" in name:
        raise Refused(f"{what}: entry {describe(name)}: path too long or not text")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise Refused(f"{what}: entry {describe(name)}: `..` in the path")
    if len(parts) > limits.PATH_DEPTH or any(len(p.encode()) > 255 for p in parts):
        raise Refused(f"{what}: entry {describe(name)}: path deeper than {limits.PATH_DEPTH} or a name over 255 "
                      f"bytes")
    return parts


def _lstat(dirfd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dirfd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _open_dir(root_fd: int, parts: list[str], create: bool, what: str, name: str) -> int | None:
    """A descriptor of the directory `parts` below the root, reached without following any link; missing
    directories are made when `create`, else None. The caller closes it."""
    fd = os.dup(root_fd)
    try:
        for i, part in enumerate(parts):
            try:
                nfd = os.open(part, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    os.close(fd)
                    return None
                os.mkdir(part, 0o755, dir_fd=fd)
                nfd = os.open(part, DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                raise Refused(f"{what}: entry {describe(name)}: {'/'.join(parts[:i + 1])} is a link or not a "
                              f"directory") from None
            os.close(fd)
            fd = nfd
        return fd
    except BaseException:
        os.close(fd)
        raise


def _remove(dirfd: int, name: str) -> None:
    """Removes `name` in `dirfd` whatever it is, a directory with everything under it (links never followed)."""
    st = _lstat(dirfd, name)
    if st is None:
        return
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=dirfd)
        return
    fd = os.open(name, DIR_FLAGS, dir_fd=dirfd)
    try:
        for child in os.listdir(fd):
            _remove(fd, child)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dirfd)


def _copy(src: io.BufferedReader, fd: int, budget: Budget, what: str) -> None:
    while chunk := src.read(COPY):
        budget.size -= len(chunk)
        if budget.size < 0:
            raise SourceError(f"{what}: the image expands to more than {limits.LAYER_EXPANDED_BYTES} bytes")
        os.write(fd, chunk)
        deadline.check()


class _Layer:
    def __init__(self, tar: tarfile.TarFile, root_fd: int, what: str, budget: Budget) -> None:
        self.tar, self.root_fd, self.what, self.budget = tar, root_fd, what, budget
        self.written: set[str] = set()

    def apply(self, member: tarfile.TarInfo) -> None:
        name = member.name
        parts = parts_of(name, self.what)
        if not parts:
            return  # the root itself ("./")
        key = "/".join(parts)
        if key in self.written:
            raise Refused(f"{self.what}: entry {describe(name)}: a second entry for this path in one layer")
        self.written.add(key)
        base = parts[-1]
        if base == OPAQUE:
            self._opaque(parts[:-1], name)
        elif base.startswith(WHITEOUT):
            self._whiteout(parts[:-1], base[len(WHITEOUT):], name)
        else:
            self._make(member, parts, name)

    def _opaque(self, parent: list[str], name: str) -> None:
        fd = _open_dir(self.root_fd, parent, False, self.what, name)
        if fd is None:
            return
        try:
            prefix = "/".join(parent)
            for child in os.listdir(fd):
                if f"{prefix}/{child}".lstrip("/") not in self.written:  # this layer's own entries stay
                    _remove(fd, child)
        finally:
            os.close(fd)

    def _whiteout(self, parent: list[str], target: str, name: str) -> None:
        if target in ("", ".", "..") or target.startswith(WHITEOUT):
            raise Refused(f"{self.what}: entry {describe(name)}: a whiteout must name a plain entry")
        fd = _open_dir(self.root_fd, parent, False, self.what, name)
        if fd is None:
            return
        try:
            _remove(fd, target)
        finally:
            os.close(fd)

    def _make(self, member: tarfile.TarInfo, parts: list[str], name: str) -> None:
        kind = _kind(member)
        if kind is None:
            raise Refused(f"{self.what}: entry {describe(name)}: {_type_name(member)} entries are refused")
        fd = _open_dir(self.root_fd, parts[:-1], True, self.what, name)
        try:
            self._make_in(fd, parts[-1], member, kind, name)
        finally:
            os.close(fd)

    def _make_in(self, fd: int, base: str, member: tarfile.TarInfo, kind: str, name: str) -> None:
        existing = _lstat(fd, base)
        if kind == "dir":
            if existing is not None and not stat.S_ISDIR(existing.st_mode):
                _remove(fd, base)
            if existing is None or not stat.S_ISDIR(existing.st_mode):
                os.mkdir(base, 0o755, dir_fd=fd)
            dfd = os.open(base, DIR_FLAGS, dir_fd=fd)
            try:
                os.fchmod(dfd, 0o755)  # noqa: S103 - a module's directories are world-readable, never writable
            finally:
                os.close(dfd)
            return
        if existing is not None:
            _remove(fd, base)
        if kind == "symlink":
            if len(member.linkname.encode()) > limits.PATH_BYTES or "\0" in member.linkname:
                raise Refused(f"{self.what}: entry {describe(name)}: link target too long or not text")
            os.symlink(member.linkname, base, dir_fd=fd)
        elif kind == "hardlink":
            self._hardlink(fd, base, member.linkname, name)
        else:
            out = os.open(base, FILE_FLAGS, 0o755 if member.mode & 0o111 else 0o644, dir_fd=fd)
            try:
                src = self.tar.extractfile(member)
                _copy(src, out, self.budget, self.what)
            finally:
                os.close(out)

    def _hardlink(self, fd: int, base: str, linkname: str, name: str) -> None:
        outside = Refused(f"{self.what}: entry {describe(name)}: hardlink to {describe(linkname)}, which is not a "
                          f"file inside the image")
        try:
            target = parts_of(linkname, self.what)
        except Refused:
            raise outside from None
        tfd = _open_dir(self.root_fd, target[:-1], False, self.what, name) if target else None
        if tfd is None:
            raise outside
        try:
            st = _lstat(tfd, target[-1])
            if st is None or not stat.S_ISREG(st.st_mode):
                raise outside
            os.link(target[-1], base, src_dir_fd=tfd, dst_dir_fd=fd, follow_symlinks=False)
        finally:
            os.close(tfd)


def _kind(member: tarfile.TarInfo) -> str | None:
    if member.issparse():
        return None
    if member.isreg():
        return "file"
    if member.isdir():
        return "dir"
    if member.issym():
        return "symlink"
    if member.islnk():
        return "hardlink"
    return None


def _type_name(member: tarfile.TarInfo) -> str:
    if member.issparse():
        return "sparse file"
    return {tarfile.CHRTYPE: "character device", tarfile.BLKTYPE: "block device", tarfile.FIFOTYPE: "fifo"}.get(
        member.type, f"type {describe(member.type.decode('latin-1'))}")


def layer(stream: io.BufferedReader, root: Path, what: str, budget: Budget) -> None:
    """Applies the (uncompressed) tar read from `stream` to `root`, entry by entry, in one forward pass."""
    root_fd = os.open(root, DIR_FLAGS)
    try:
        with tarfile.open(fileobj=stream, mode="r|") as tar:
            state = _Layer(tar, root_fd, what, budget)
            for member in tar:
                budget.entry(what)
                state.apply(member)
                deadline.check()
    except (tarfile.TarError, EOFError) as exc:
        raise SourceError(f"{what}: cannot unpack: {describe(str(exc))}") from None
    except OSError as exc:
        raise SourceError(f"{what}: cannot unpack: {exc.strerror or type(exc).__name__}") from None
    finally:
        os.close(root_fd)


def resolve(root: Path, rel: str) -> list[str]:
    """The components `rel` reaches below `root` when every link on the way is followed, as the kernel would;
    a path that leaves the root, takes more than 40 links, or meets an absolute target raises ValueError."""
    todo = [p for p in rel.split("/") if p not in ("", ".")]
    done: list[str] = []
    hops = 0
    while todo:
        part = todo.pop(0)
        if part == "..":
            if not done:
                raise ValueError("leads above the root")
            done.pop()
            continue
        try:
            st = os.lstat(os.path.join(root, *done, part))
        except FileNotFoundError:
            done.append(part)
            continue
        except OSError as exc:
            raise ValueError(f"cannot be resolved ({exc.strerror})") from None
        if not stat.S_ISLNK(st.st_mode):
            done.append(part)
            continue
        hops += 1
        if hops > limits.SYMLINK_HOPS:
            raise ValueError(f"takes more than {limits.SYMLINK_HOPS} links")
        target = os.readlink(os.path.join(root, *done, part))
        if target.startswith("/"):
            raise ValueError("has an absolute target")
        todo = [p for p in target.split("/") if p not in ("", ".")] + todo
    return done


def check_links(root: Path, what: str) -> None:
    """Every symlink under `root` resolves inside it."""
    for top, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(dirs + files):
            path = os.path.join(top, name)
            if os.path.islink(path):
                rel = os.path.relpath(path, root)
                try:
                    resolve(root, rel)
                except ValueError as exc:
                    raise Refused(f"{what}: entry {describe(rel)}: a symlink that {exc}") from None
