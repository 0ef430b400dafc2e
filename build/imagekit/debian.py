# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Debian packages from a recorded list (images/debian.lock): resolved once from the suite's index
(`python -m imagekit lock`), then fetched by the exact pool file and checked by sha256 at every build, so a build
never takes a package the lock does not name. The index is trusted only as the suite's InRelease signed by a key
of Debian's archive keyring says (`clearsigned`): the lock is recorded from it, and a .deb that is not cached yet
is fetched only once its lock entry is found in it (a mirror, or a lock edited by hand, cannot slip in another
package). The mirror is the one this machine's apt is set up with (`$DEBIAN_MIRROR` overrides). A package that is
gone from the mirror stops the build with the command that records a new list.

No maintainer script runs (they need a shell the images do not have); what they would do that the images need is
done by `base.py` (merged-/usr links, the users, bytecode)."""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import os
import re
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from . import cache, clearsigned, declarations
from .errors import ImageError

ARCH = "amd64"
APT_SOURCES = (Path("/etc/apt/sources.list.d/debian.sources"), Path("/etc/apt/sources.list"))
# Never shipped: what the packages keep for people and for dpkg. Licences (usr/share/doc/*/copyright) stay.
DROP = re.compile(r"^(usr/share/(man|info|locale|lintian|linda|bug|bash-completion|menu)/"
                  r"|usr/share/doc/(?!.*/copyright$)|etc/cron\.|etc/logrotate\.d/|etc/init\.d/|usr/lib/systemd/|lib/systemd/)")
MERGED_USR = ("bin", "sbin", "lib", "lib64")  # trixie's root links: bin -> usr/bin, ...
TIMEOUT = 60
NEW_LOCK = "the mirror has moved on: record a new list with `make images-lock`"


class DebianError(ImageError):
    pass


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    filename: str  # the pool path under the mirror
    sha256: str
    size: int


def mirror() -> str:
    """The Debian archive this machine's apt uses: the URI of the source that serves `main`."""
    if os.environ.get("DEBIAN_MIRROR"):
        return os.environ["DEBIAN_MIRROR"].rstrip("/")
    for path in APT_SOURCES:
        if not path.is_file():
            continue
        text = path.read_text()
        for uri in re.findall(r"^URIs:\s*(\S+)", text, re.M) + re.findall(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)", text, re.M):
            if uri.rstrip("/").endswith("/debian"):
                return uri.rstrip("/")
    raise DebianError("no Debian mirror: apt has no source ending in /debian; set DEBIAN_MIRROR")


def _get(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:  # noqa: S310 - the configured mirror
            return resp.read()
    except OSError as exc:
        raise DebianError(f"{url}: {exc}") from None


# --- the lock --------------------------------------------------------------------------------------------------

def read_lock(path: Path) -> tuple[str, dict[str, list[str]], dict[str, Package]]:
    """(suite, package sets, packages by name)."""
    doc = json.loads(path.read_text())
    packages = {name: Package(name, **fields) for name, fields in doc["packages"].items()}
    return doc["suite"], doc["sets"], packages


def write_lock(path: Path, suite: str, release_date: str, sets: dict[str, list[str]],
               packages: dict[str, Package]) -> None:
    doc = {"suite": suite, "release": release_date, "sets": {k: sorted(v) for k, v in sets.items()},
           "packages": {p.name: {"version": p.version, "filename": p.filename, "sha256": p.sha256, "size": p.size}
                        for p in sorted(packages.values(), key=lambda p: p.name)}}
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")


# --- resolving a set from the suite's index --------------------------------------------------------------------

def _fields(block: str) -> dict[str, str]:
    """A deb822 paragraph: a continued field keeps its lines (the first may be empty, as SHA256's is)."""
    fields, last = {}, None
    for line in block.splitlines():
        if line.startswith((" ", "\t")) and last:
            fields[last] += "\n" + line.strip()
        elif ":" in line:
            last, _, value = line.partition(":")
            fields[last] = value.strip()
    return fields


def _paragraphs(text: str):
    for block in text.split("\n\n"):
        fields = _fields(block)
        if "Package" in fields:
            yield fields


def signed_release(suite: str) -> tuple[str, dict[str, str]]:
    """The URL of the suite's dists/ directory and the fields of its Release, as the signature covers them."""
    base = f"{mirror()}/dists/{suite}"
    try:
        data = _get(f"{base}/InRelease")
    except DebianError as exc:
        raise DebianError(f"{exc}; no signed index (InRelease), and an unsigned Release is never used") from None
    try:
        fields = _fields(clearsigned.verify(data, f"{base}/InRelease"))
    except ImageError as exc:
        raise DebianError(str(exc)) from None
    if suite not in (fields.get("Codename"), fields.get("Suite")):
        # A good signature over another suite's index (an older one, say) is no index of this suite.
        raise DebianError(f"{base}/InRelease: signed for suite {fields.get('Codename')!r}, not {suite!r}")
    return base, fields


def fetch_index(suite: str) -> tuple[str, dict[str, dict]]:
    """The suite's release date and its `main` packages for ARCH, the index checked against the signed
    InRelease."""
    base, release = signed_release(suite)
    member = f"main/binary-{ARCH}/Packages.xz"
    sums = {parts[2]: parts[0] for parts in map(str.split, release.get("SHA256", "").splitlines()) if len(parts) == 3}
    data = _get(f"{base}/{member}")
    if hashlib.sha256(data).hexdigest() != sums.get(member):
        raise DebianError(f"{base}/{member}: sha256 differs from the signed InRelease")
    index: dict[str, dict] = {}
    for fields in _paragraphs(lzma.decompress(data).decode()):
        index[fields["Package"]] = fields
        for provided in fields.get("Provides", "").split(","):
            name = provided.split("(")[0].strip()
            if name:
                index.setdefault(f"virtual:{name}", fields)
    return release["Date"], index


# What the signed index says of each package, per (mirror, suite, keyring): read once per process, the first time
# a .deb is not in the cache.
_VERIFIED: dict[tuple[str, str, str], dict[str, Package]] = {}


def verified_packages(suite: str) -> dict[str, Package]:
    key = (mirror(), suite, str(clearsigned.keyring()))
    if key not in _VERIFIED:
        _, index = fetch_index(suite)
        _VERIFIED[key] = {name: package(index, name) for name in index if not name.startswith("virtual:")}
    return _VERIFIED[key]


def confirm(pkg: Package, suite: str) -> None:
    """The lock's entry of `pkg` is what the suite's signed index says, field by field."""
    signed = verified_packages(suite).get(pkg.name)
    if signed is None:
        raise DebianError(f"{pkg.name} {pkg.version}: not in the signed index of {suite}; {NEW_LOCK}")
    for field in ("version", "filename", "sha256", "size"):
        if getattr(signed, field) != getattr(pkg, field):
            raise DebianError(f"{pkg.name} {pkg.version}: the signed index of {suite} has {field} "
                              f"{getattr(signed, field)!r}, images/debian.lock {getattr(pkg, field)!r}; {NEW_LOCK}")


def _depends(fields: dict) -> list[list[str]]:
    out = []
    for field in ("Pre-Depends", "Depends"):
        for clause in filter(None, (c.strip() for c in fields.get(field, "").split(","))):
            out.append([alt.split("(")[0].split(":")[0].strip() for alt in clause.split("|")])
    return out


def closure(index: dict[str, dict], roots: list[str], exclude: dict[str, str]) -> list[str]:
    """Every package `roots` need (first alternative that exists; a virtual name by its first provider), less
    `exclude` (name -> why) and whatever only they pull in."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name in exclude:
            continue
        fields = index.get(name)
        if fields is None or fields["Package"] != name:
            raise DebianError(f"package {name!r} is not in the suite")
        seen.add(name)
        for alts in _depends(fields):
            if any(a in exclude for a in alts):
                continue
            chosen = next((a for a in alts if a in index), None) or \
                next((index[f"virtual:{a}"]["Package"] for a in alts if f"virtual:{a}" in index), None)
            if chosen is None:
                raise DebianError(f"{name}: no package satisfies {' | '.join(alts)}")
            todo.append(chosen)
    return sorted(seen)


def package(index: dict[str, dict], name: str) -> Package:
    fields = index[name]
    return Package(name, fields["Version"], fields["Filename"], fields["SHA256"], int(fields["Size"]))


# --- fetching and unpacking ------------------------------------------------------------------------------------

def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(pkg: Package, suite: str | None = None) -> Path:
    """The .deb from the cache (no network), or from the mirror once the signed index confirms the lock's entry
    (`suite`: images/base.yaml's); checked against the lock either way."""
    out = cache.root() / "debs" / f"{pkg.sha256}.deb"
    if out.is_file() and _sha256(out) == pkg.sha256:
        return out
    confirm(pkg, suite or declarations.base_settings()["debian"]["suite"])
    try:
        data = _get(f"{mirror()}/{pkg.filename}")
    except DebianError as exc:
        raise DebianError(f"{pkg.name} {pkg.version}: {exc}; the mirror may have moved on: record a new list "
                          "with `make images-lock`") from None
    if hashlib.sha256(data).hexdigest() != pkg.sha256:
        raise DebianError(f"{pkg.name} {pkg.version}: {pkg.filename} does not match the sha256 of images/debian.lock")
    out.parent.mkdir(exist_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(out)  # a cached file that did not match its name is replaced here
    return out


def _ar_members(data: bytes):
    if not data.startswith(b"!<arch>\n"):
        raise DebianError("not a Debian package (ar archive)")
    pos = 8
    while pos + 60 <= len(data):
        header = data[pos:pos + 60]
        name, size = header[:16].decode().strip().rstrip("/"), int(header[48:58].decode().strip())
        yield name, data[pos + 60:pos + 60 + size]
        pos += 60 + size + (size % 2)


def data_tar(deb: Path) -> tarfile.TarFile:
    for name, body in _ar_members(deb.read_bytes()):
        if name.startswith("data.tar"):
            if name.endswith(".zst"):
                raise DebianError(f"{deb.name}: zstd data members are not supported")
            return tarfile.open(fileobj=io.BytesIO(body), mode="r:*")
    raise DebianError(f"{deb.name}: no data.tar member")


def in_image(member_name: str) -> str:
    """A package path as the image holds it: relative, under usr/ where trixie's root links point."""
    path = member_name.removeprefix("./").lstrip("/")
    head, _, rest = path.partition("/")
    return f"usr/{head}/{rest}".rstrip("/") if head in MERGED_USR else path


def unpack_into(deb: Path, root: Path) -> list[str]:
    """Unpacks the package's files into `root` (a staging tree), setuid/setgid bits dropped; returns its paths."""
    paths = []
    with data_tar(deb) as tar:
        for member in tar.getmembers():
            rel = in_image(member.name)
            if not rel or DROP.match(rel):
                continue
            dest = root / rel
            if member.isdir():
                dest.mkdir(parents=True, exist_ok=True)
                dest.chmod(member.mode & 0o1777)
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            if dest.is_symlink() or dest.exists():
                dest.unlink()
            if member.issym():
                dest.symlink_to(member.linkname)
            elif member.isfile() or member.islnk():
                dest.write_bytes(tar.extractfile(member).read())
                dest.chmod(member.mode & 0o1777)
            else:
                continue  # devices and fifos are never in these packages
            paths.append(rel)
    return paths
