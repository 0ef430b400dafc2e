# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The Debian index is used only as a signed InRelease says: a mirror of our own on 127.0.0.1 (a tiny
Packages.xz, an InRelease clear-signed by a throwaway key made here with gpg), the keyring given by
DEBIAN_KEYRING. A bad, foreign or missing signature, text outside the signed message, another suite's index and
a Packages.xz the signature does not cover each stop with their one line; a .deb is downloaded only once its lock
entry is in the signed index, which is read once per process."""

from __future__ import annotations

import hashlib
import http.server
import lzma
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from imagekit import clearsigned, debian
from imagekit.errors import ImageError

SUITE = "trixie"
DATE = "Sat, 21 Nov 2026 09:15:44 UTC"
PACKAGES_XZ = "main/binary-amd64/Packages.xz"
HELLO_DEB = b"!<arch>\nhello 1.0-1, as the mirror serves it\n"
WORLD_DEB = b"!<arch>\nworld 2.0-1\n"
HELLO = debian.Package("hello", "1.0-1", "pool/main/h/hello/hello_1.0-1_amd64.deb",
                       hashlib.sha256(HELLO_DEB).hexdigest(), len(HELLO_DEB))
WORLD = debian.Package("world", "2.0-1", "pool/main/w/world/world_2.0-1_amd64.deb",
                       hashlib.sha256(WORLD_DEB).hexdigest(), len(WORLD_DEB))
NEW_LOCK = "the mirror has moved on: record a new list with `make images-lock`"


@dataclass(frozen=True)
class Keys:
    home: Path
    archive: str  # fingerprints
    other: str
    keyring: Path  # the archive key only, as Debian's keyring holds Debian's

    @staticmethod
    def keyid(fingerprint: str) -> str:
        return fingerprint[-16:]  # gpgv names a v4 key by its long id


def _gpg(home: Path, *args: str) -> str:
    res = subprocess.run(["gpg", "--homedir", str(home), "--batch", "--pinentry-mode", "loopback", "--passphrase",
                          "", *args], capture_output=True, text=True, timeout=60, check=False)
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.fixture(scope="session")
def keys(tmp_path_factory) -> Iterator[Keys]:
    if shutil.which("gpg") is None:
        pytest.fail("gpg is missing: run `make host` (apt-get install gnupg)", pytrace=False)
    home = tmp_path_factory.mktemp("gnupg")  # short: gpg-agent's socket path has a length limit
    home.chmod(0o700)
    prints = []
    for uid in ("Test Archive <archive@test.invalid>", "Someone Else <else@test.invalid>"):
        _gpg(home, "--quick-gen-key", uid, "ed25519", "sign", "never")
        listing = _gpg(home, "--with-colons", "--list-keys", uid)
        prints.append(next(line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr:")))
    keyring = home / "archive-keyring.gpg"
    keyring.write_bytes(subprocess.run(["gpg", "--homedir", str(home), "--export", prints[0]], capture_output=True,
                                       timeout=60, check=True).stdout)
    yield Keys(home, prints[0], prints[1], keyring)
    subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "gpg-agent"], capture_output=True, timeout=60,
                   check=False)


def packages_xz(*pkgs: debian.Package) -> bytes:
    text = "".join(f"Package: {p.name}\nVersion: {p.version}\nArchitecture: amd64\nFilename: {p.filename}\n"
                   f"Size: {p.size}\nSHA256: {p.sha256}\n\n" for p in pkgs)
    return lzma.compress(text.encode())


def release(packages: bytes, codename: str = SUITE) -> str:
    return (f"Origin: Test\nSuite: stable\nCodename: {codename}\nDate: {DATE}\nArchitectures: amd64\n"
            f"Components: main\nSHA256:\n {hashlib.sha256(packages).hexdigest()} {len(packages)} {PACKAGES_XZ}\n")


@dataclass
class Mirror:
    top: Path  # served as http://127.0.0.1:<port>/
    url: str  # the mirror: <server>/debian
    keys: Keys
    requests: list[str] = field(default_factory=list)

    @property
    def dists(self) -> Path:
        return self.top / "debian" / "dists" / SUITE

    @property
    def inrelease_url(self) -> str:
        return f"{self.url}/dists/{SUITE}/InRelease"

    def put(self, rel: str, data: bytes) -> None:
        path = self.top / "debian" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    def sign(self, text: str, *signers: str) -> bytes:
        """`text` clear-signed by `signers` (fingerprints), as InRelease."""
        source, signed = self.top / "Release.tosign", self.top / "InRelease.signed"
        source.write_text(text)
        signed.unlink(missing_ok=True)
        users = [arg for fpr in signers for arg in ("--local-user", fpr)]
        _gpg(self.keys.home, *users, "--digest-algo", "SHA256", "--clearsign", "--output", str(signed), str(source))
        return signed.read_bytes()

    def publish(self, *pkgs: debian.Package, signers: tuple[str, ...] = (), codename: str = SUITE) -> None:
        """The suite's Packages.xz of `pkgs` and its InRelease (signed by the archive key unless told)."""
        xz = packages_xz(*pkgs)
        self.put(f"dists/{SUITE}/{PACKAGES_XZ}", xz)
        self.put(f"dists/{SUITE}/InRelease", self.sign(release(xz, codename), *(signers or (self.keys.archive,))))


@pytest.fixture
def mirror(keys, tmp_path, monkeypatch) -> Iterator[Mirror]:
    top = tmp_path / "www"
    top.mkdir()
    seen: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(top), **kwargs)

        def do_GET(self):  # noqa: N802 - http.server's name
            seen.append(self.path)
            super().do_GET()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/debian"
    monkeypatch.setenv("DEBIAN_MIRROR", url)
    monkeypatch.setenv("DEBIAN_KEYRING", str(keys.keyring))
    monkeypatch.setenv("CPDVP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(debian, "_VERIFIED", {})  # each test reads its own mirror's index afresh
    mirror = Mirror(top, url, keys, seen)
    mirror.put(HELLO.filename, HELLO_DEB)
    mirror.put(WORLD.filename, WORLD_DEB)
    yield mirror
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def index_error(suite: str = SUITE) -> str:
    with pytest.raises(ImageError) as err:
        debian.fetch_index(suite)
    return str(err.value)


def test_a_good_signature_gives_the_index_as_signed(mirror):
    mirror.publish(HELLO, WORLD)
    date, index = debian.fetch_index(SUITE)
    assert date == DATE
    assert sorted(index) == ["hello", "world"]
    assert (debian.package(index, "hello"), debian.package(index, "world")) == (HELLO, WORLD)


def test_one_good_signature_among_keys_the_keyring_lacks_is_enough(mirror):
    mirror.publish(HELLO, signers=(mirror.keys.other, mirror.keys.archive))  # as while Debian rotates a key
    assert debian.package(debian.fetch_index(SUITE)[1], "hello") == HELLO


def test_one_changed_byte_of_the_sha256_list_is_a_bad_signature(mirror):
    mirror.publish(HELLO)
    signed = mirror.dists / "InRelease"
    data = signed.read_bytes()
    digest = hashlib.sha256((mirror.dists / PACKAGES_XZ).read_bytes()).hexdigest().encode()
    at = data.index(digest)
    signed.write_bytes(data[:at] + (b"0" if data[at:at + 1] != b"0" else b"1") + data[at + 1:])
    assert index_error() == f"{mirror.inrelease_url}: bad signature by key {Keys.keyid(mirror.keys.archive)}"


def test_a_signature_by_a_key_outside_the_keyring_is_refused(mirror):
    mirror.publish(HELLO, signers=(mirror.keys.other,))
    assert index_error() == (f"{mirror.inrelease_url}: signed by no key of {mirror.keys.keyring} "
                             f"(key {Keys.keyid(mirror.keys.other)})")


def test_a_mirror_with_an_unsigned_release_only_is_refused(mirror):
    xz = packages_xz(HELLO)
    mirror.put(f"dists/{SUITE}/{PACKAGES_XZ}", xz)
    mirror.put(f"dists/{SUITE}/Release", release(xz).encode())
    assert index_error() == (f"{mirror.inrelease_url}: HTTP Error 404: File not found; no signed index "
                             "(InRelease), and an unsigned Release is never used")
    assert f"/debian/dists/{SUITE}/Release" not in mirror.requests


def test_an_inrelease_that_is_not_signed_is_refused(mirror):
    xz = packages_xz(HELLO)
    mirror.put(f"dists/{SUITE}/{PACKAGES_XZ}", xz)
    mirror.put(f"dists/{SUITE}/InRelease", release(xz).encode())
    assert index_error() == f"{mirror.inrelease_url}: not signed (no clear-signed message)"


@pytest.mark.parametrize("where", ["before", "after"])
def test_text_outside_the_signed_message_is_refused(mirror, where):
    mirror.publish(HELLO)
    signed = mirror.dists / "InRelease"
    # What an attacker would add: a SHA256 list of their own, covered by no signature.
    extra = f"SHA256:\n {'ab' * 32} 1 {PACKAGES_XZ}\n".encode()
    signed.write_bytes(extra + signed.read_bytes() if where == "before" else signed.read_bytes() + extra)
    assert index_error() == f"{mirror.inrelease_url}: text outside its one signed message"


def test_a_good_signature_over_another_suites_index_is_refused(mirror):
    mirror.publish(HELLO, codename="bookworm")
    assert index_error() == f"{mirror.inrelease_url}: signed for suite 'bookworm', not 'trixie'"


def test_a_packages_xz_the_signature_does_not_cover_is_refused(mirror):
    mirror.publish(HELLO)
    mirror.put(f"dists/{SUITE}/{PACKAGES_XZ}", packages_xz(HELLO, WORLD))
    assert index_error() == f"{mirror.url}/dists/{SUITE}/{PACKAGES_XZ}: sha256 differs from the signed InRelease"


def test_without_gpgv_the_index_is_refused_in_one_line(mirror, monkeypatch, tmp_path):
    mirror.publish(HELLO)
    (tmp_path / "no-tools").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    assert index_error() == "gpgv is missing: run `make host` (apt-get install gpgv)"


def test_a_missing_keyring_is_named(mirror, monkeypatch, tmp_path):
    mirror.publish(HELLO)
    monkeypatch.setenv("DEBIAN_KEYRING", str(tmp_path / "none.gpg"))
    assert index_error() == (f"{tmp_path / 'none.gpg'}: no such keyring: run `make host` (apt-get install "
                             "debian-archive-keyring) or set DEBIAN_KEYRING")


def test_without_debian_keyring_the_keyring_is_debians(monkeypatch):
    monkeypatch.delenv("DEBIAN_KEYRING", raising=False)
    assert clearsigned.keyring() == Path("/usr/share/keyrings/debian-archive-keyring.gpg")


# --- fetching a .deb ---------------------------------------------------------------------------------------------

def test_a_deb_is_downloaded_after_the_signed_index_confirms_it_and_the_index_is_read_once(mirror, tmp_path):
    mirror.publish(HELLO, WORLD)
    hello, world = debian.fetch(HELLO, SUITE), debian.fetch(WORLD, SUITE)
    assert (hello.read_bytes(), world.read_bytes()) == (HELLO_DEB, WORLD_DEB)
    assert hello == tmp_path / "cache" / "images" / "debs" / f"{HELLO.sha256}.deb"
    assert mirror.requests == [f"/debian/dists/{SUITE}/InRelease", f"/debian/dists/{SUITE}/{PACKAGES_XZ}",
                               f"/debian/{HELLO.filename}", f"/debian/{WORLD.filename}"]


def test_a_cached_deb_needs_no_network_and_a_corrupt_one_is_fetched_again(mirror):
    mirror.publish(HELLO)
    cached = debian.fetch(HELLO, SUITE)
    mirror.requests.clear()
    assert debian.fetch(HELLO, SUITE) == cached and mirror.requests == []
    cached.write_bytes(b"bit rot")
    assert debian.fetch(HELLO, SUITE).read_bytes() == HELLO_DEB
    assert mirror.requests == [f"/debian/{HELLO.filename}"]  # the signed index was read once already


@pytest.mark.parametrize(("locked", "message"), [
    (debian.Package("hello", "0.9-1", HELLO.filename, HELLO.sha256, HELLO.size),
     f"hello 0.9-1: the signed index of trixie has version '1.0-1', images/debian.lock '0.9-1'; {NEW_LOCK}"),
    (debian.Package("hello", "1.0-1", HELLO.filename, "00" * 32, HELLO.size),
     f"hello 1.0-1: the signed index of trixie has sha256 '{HELLO.sha256}', images/debian.lock '{'00' * 32}'; "
     f"{NEW_LOCK}"),
    (WORLD, f"world 2.0-1: not in the signed index of trixie; {NEW_LOCK}"),
])
def test_a_lock_entry_the_signed_index_does_not_hold_is_never_downloaded(mirror, tmp_path, locked, message):
    mirror.publish(HELLO)
    with pytest.raises(debian.DebianError) as err:
        debian.fetch(locked, SUITE)
    assert str(err.value) == message
    assert mirror.requests == [f"/debian/dists/{SUITE}/InRelease", f"/debian/dists/{SUITE}/{PACKAGES_XZ}"]
    assert not (tmp_path / "cache" / "images" / "debs").exists()


def test_a_deb_that_does_not_match_the_lock_is_refused_and_not_cached(mirror, tmp_path):
    mirror.publish(HELLO)
    mirror.put(HELLO.filename, b"!<arch>\nnot the package")
    with pytest.raises(debian.DebianError) as err:
        debian.fetch(HELLO, SUITE)
    assert str(err.value) == ("hello 1.0-1: pool/main/h/hello/hello_1.0-1_amd64.deb does not match the sha256 of "
                              "images/debian.lock")
    assert list((tmp_path / "cache").rglob("*.deb")) == []


def test_a_package_gone_from_the_pool_names_the_command_that_records_a_new_list(mirror):
    mirror.publish(HELLO)
    (mirror.top / "debian" / HELLO.filename).unlink()
    with pytest.raises(debian.DebianError) as err:
        debian.fetch(HELLO, SUITE)
    assert str(err.value) == (f"hello 1.0-1: {mirror.url}/{HELLO.filename}: HTTP Error 404: File not found; the "
                              "mirror may have moved on: record a new list with `make images-lock`")


def test_the_suite_of_a_fetch_is_the_one_of_base_yaml(mirror, monkeypatch):
    mirror.publish(HELLO)
    monkeypatch.setattr(debian.declarations, "base_settings", lambda: {"debian": {"suite": "forky"}})
    with pytest.raises(debian.DebianError) as err:
        debian.fetch(HELLO)
    assert str(err.value) == (f"{mirror.url}/dists/forky/InRelease: HTTP Error 404: File not found; no signed "
                              "index (InRelease), and an unsigned Release is never used")
