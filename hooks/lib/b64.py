# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Base64 as the standard library's base64.b64decode(validate=True) / b64encode judge and write it, on binascii
alone: the base64 module pulls struct in, an import every hook run would pay for two calls."""

import binascii

Error = binascii.Error
_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def decode(value: str | bytes) -> bytes:
    """Strict decoding: characters outside the alphabet raise Error, non-ASCII text ValueError."""
    if not isinstance(value, str | bytes | bytearray):  # bytes(n) of an int would allocate n bytes
        raise TypeError("base64 input must be text or bytes")
    data = value.encode("ascii") if isinstance(value, str) else bytes(value)
    # [A-Za-z0-9+/]*={0,2} as the standard library checks it, without compiling that regex on every run
    body = data.rstrip(b"=")
    if len(data) - len(body) > 2 or body.translate(None, _ALPHABET):
        raise Error("Non-base64 digit found")
    # strict: excess padding and data after it are refused, as b64decode(validate=True) does since 3.13 (and Go)
    return binascii.a2b_base64(data, strict_mode=True)


def encode(data: bytes) -> str:
    return binascii.b2a_base64(data, newline=False).decode("ascii")
