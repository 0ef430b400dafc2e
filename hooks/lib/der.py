# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Just enough DER to read a certificate's validity and DNS names without importing cryptography (whose import
alone would exceed a hook's run budget). Used only for the steady-state check of a bundle that was fully
verified with cryptography when it entered the values.

Kept because it pays: it saves 47-59 ms CPU (55-65 ms wall) per run of each certificate hook against
`from cryptography import x509` (bench/hooks.py figure `hooks.import.der.saving_cpu`; bench/README.md)."""

import base64
import datetime

SAN_OID = bytes.fromhex("0603551d11")  # 2.5.29.17 subjectAltName, with its OID tag and length


class Malformed(ValueError):
    pass


def _tlv(buf: bytes, pos: int) -> tuple[int, int, int]:
    """(tag, content start, content end) of the element at pos."""
    if pos + 2 > len(buf):
        raise Malformed("truncated")
    tag, length = buf[pos], buf[pos + 1]
    pos += 2
    if length & 0x80:
        n = length & 0x7F
        if n == 0 or n > 4 or pos + n > len(buf):
            raise Malformed("bad length")
        length = int.from_bytes(buf[pos:pos + n], "big")
        pos += n
    if pos + length > len(buf):
        raise Malformed("truncated")
    return tag, pos, pos + length


def _children(buf: bytes, start: int, end: int) -> list[tuple[int, int, int]]:
    out, pos = [], start
    while pos < end:
        tag, s, e = _tlv(buf, pos)
        out.append((tag, s, e))
        pos = e
    return out


def _time(tag: int, raw: bytes) -> datetime.datetime:
    text = raw.decode("ascii")
    if tag == 0x17:  # UTCTime: two-digit year, 1950..2049
        year = int(text[:2])
        text = str(1900 + year if year >= 50 else 2000 + year) + text[2:]
    elif tag != 0x18:
        raise Malformed("bad time")
    if len(text) != 15 or not text.endswith("Z") or not text[:14].isdigit():
        raise Malformed("bad time")
    # Not strptime: its import (locale, calendar) costs more than the rest of a steady-state run.
    y, mo, d, h, mi, s = (int(text[a:b]) for a, b in ((0, 4), (4, 6), (6, 8), (8, 10), (10, 12), (12, 14)))
    return datetime.datetime(y, mo, d, h, mi, s, tzinfo=datetime.UTC)


def pem_to_der(pem: str) -> bytes:
    lines = [ln.strip() for ln in pem.strip().splitlines()]
    if len(lines) < 3 or lines[0] != "-----BEGIN CERTIFICATE-----" or lines[-1] != "-----END CERTIFICATE-----":
        raise Malformed("not a single PEM certificate")
    try:
        return base64.b64decode("".join(lines[1:-1]), validate=True)
    except ValueError:
        raise Malformed("bad base64") from None


def read(pem: str) -> tuple[datetime.datetime, datetime.datetime, list[str]]:
    """(notBefore, notAfter, DNS names) of a PEM certificate; Malformed if it cannot be read."""
    try:
        return _read(pem_to_der(pem))
    except (IndexError, ValueError) as exc:  # UnicodeDecodeError and strptime errors are ValueErrors
        raise Malformed(str(exc)) from None


def _read(der: bytes) -> tuple[datetime.datetime, datetime.datetime, list[str]]:
    _, cs, ce = _tlv(der, 0)
    tbs_tag, ts, te = _children(der, cs, ce)[0]
    fields = _children(der, ts, te)
    if fields and fields[0][0] == 0xA0:  # explicit version
        fields = fields[1:]
    # serial, signature algorithm, issuer, validity, subject, public key, then optional [1] [2] [3]
    _, vs, ve = fields[3]
    (nb_tag, nbs, nbe), (na_tag, nas, nae) = _children(der, vs, ve)
    names: list[str] = []
    for tag, s, _ in fields[6:]:
        if tag != 0xA3:
            continue
        _, es, ee = _tlv(der, s)
        for _, xs, xe in _children(der, es, ee):
            ext = _children(der, xs, xe)
            if der[ext[0][1] - 2:ext[0][2]] != SAN_OID:
                continue
            _, os_, oe = ext[-1]
            _, gs, ge = _tlv(der, os_)
            names = [der[a:b].decode("ascii") for t, a, b in _children(der, gs, ge) if t == 0x82]
    return _time(nb_tag, der[nbs:nbe]), _time(na_tag, der[nas:nae]), names
