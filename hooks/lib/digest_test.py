# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import hashlib

from lib import digest


def test_digest_is_sha256():
    assert digest.hexdigest(b"a", b"bc") == hashlib.sha256(b"abc").hexdigest()
    assert digest.hexdigest() == hashlib.sha256().hexdigest()
