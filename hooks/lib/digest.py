# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""SHA-256 without hashlib's import, which loads and initialises OpenSSL (libcrypto) on every hook run; the
interpreter's own SHA-256 gives the same digest. Where it is not built (other interpreters), hashlib it is.

Kept because it pays: it saves 3.6-4.8 ms CPU (4.5-6.0 ms wall) per hook process that hashes (ensure_crds and both
migration hooks, on every run), above the 5 % of a hook's start a re-implementation must save (bench/hooks.py
figure `hooks.import.digest.saving_cpu`; bench/README.md)."""

try:
    from _sha2 import sha256
except ImportError:  # pragma: no cover - interpreters without the builtin module
    from hashlib import sha256


def hexdigest(*chunks: bytes) -> str:
    h = sha256()
    for chunk in chunks:
        h.update(chunk)
    return h.hexdigest()
