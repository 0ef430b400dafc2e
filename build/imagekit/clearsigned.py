# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A clear-signed document (a Debian suite's InRelease) checked with gpgv against a keyring, as apt checks it:
the caller gets the text gpgv writes out as signed (`--output`), never the bytes it fetched, and a document with
anything outside its one signed message is refused before gpgv runs (text there is covered by no signature).
The keyring is Debian's archive keyring; `$DEBIAN_KEYRING` names another (a mirror of one's own, the tests)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .errors import ImageError

KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
BEGIN = b"-----BEGIN PGP SIGNED MESSAGE-----\n"
SIGNATURE = b"-----BEGIN PGP SIGNATURE-----"
END = b"-----END PGP SIGNATURE-----"
TIMEOUT = 60


class SignatureError(ImageError):
    pass


def keyring() -> Path:
    return Path(os.environ.get("DEBIAN_KEYRING") or KEYRING)


def _gpgv() -> str:
    gpgv = shutil.which("gpgv")
    if gpgv is None:
        raise SignatureError("gpgv is missing: run `make host` (apt-get install gpgv)")
    return gpgv


def _status(out: str) -> dict[str, list[str]]:
    """gpgv's status lines by keyword: the key id of each GOODSIG, BADSIG, NO_PUBKEY, ..."""
    by_keyword: dict[str, list[str]] = {}
    for line in out.splitlines():
        if line.startswith("[GNUPG:] "):
            keyword, _, rest = line.removeprefix("[GNUPG:] ").partition(" ")
            by_keyword.setdefault(keyword, []).append(rest.split(" ", 1)[0])
    return by_keyword


def _framed(data: bytes, url: str) -> None:
    """One signed message and its signature, nothing before or after (a dash-escaped line of the signed text
    starts with "- ", so it is no armour line)."""
    armour = [line.rstrip(b"\r") for line in data.split(b"\n") if line.startswith(b"-----")]
    if BEGIN.strip() not in armour:
        raise SignatureError(f"{url}: not signed (no clear-signed message)")
    if armour != [BEGIN.strip(), SIGNATURE, END] or not data.startswith(BEGIN) or not data.rstrip().endswith(END):
        raise SignatureError(f"{url}: text outside its one signed message")


def verify(data: bytes, url: str) -> str:
    """The signed text of `data` (fetched from `url`) when a key of the keyring made a good signature over it and
    no signature on it is bad; a signature by a key the keyring does not hold is passed over, as apt does (the
    archive signs with several keys while one is rotated)."""
    ring = keyring()
    gpgv = _gpgv()
    if not ring.is_file():
        raise SignatureError(f"{ring}: no such keyring: run `make host` (apt-get install debian-archive-keyring) "
                             "or set DEBIAN_KEYRING")
    _framed(data, url)
    with tempfile.TemporaryDirectory(prefix="imagekit-gpgv-") as tmp:
        home, signed, doc = Path(tmp) / "home", Path(tmp) / "signed", Path(tmp) / "InRelease"
        home.mkdir(mode=0o700)  # empty: no keyring but the one given counts
        doc.write_bytes(data)
        res = subprocess.run([gpgv, "--homedir", str(home), "--status-fd", "1", "--keyring", str(ring.resolve()),
                              "--output", str(signed), str(doc)], capture_output=True, text=True, timeout=TIMEOUT,
                             check=False)
        status = _status(res.stdout)
        good, bad, unknown = status.get("GOODSIG", []), status.get("BADSIG", []), status.get("NO_PUBKEY", [])
        if bad:
            raise SignatureError(f"{url}: bad signature by key {bad[0]}")
        if not good and unknown:
            raise SignatureError(f"{url}: signed by no key of {ring} (key {unknown[0]})")
        if not good or (res.returncode != 0 and len(good) + len(unknown) != len(status.get("NEWSIG", []))):
            last = (res.stderr.strip().splitlines() or [f"exit {res.returncode}"])[-1]
            raise SignatureError(f"{url}: no good signature by a key of {ring} (gpgv: {last})")
        return signed.read_text()
