# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""SHA-256 without hashlib's import, which loads and initialises OpenSSL (libcrypto) on every hook run; the
interpreter's own SHA-256 gives the same digest. Where it is not built (other interpreters), hashlib it is."""

try:
    from _sha2 import sha256
except ImportError:  # pragma: no cover - interpreters without the builtin module
    from hashlib import sha256


def hexdigest(*chunks: bytes) -> str:
    h = sha256()
    for chunk in chunks:
        h.update(chunk)
    return h.hexdigest()
