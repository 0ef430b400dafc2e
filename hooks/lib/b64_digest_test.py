# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import base64
import binascii
import hashlib

import pytest

from lib import b64, digest

CASES = ["", "YQ==", "YWI=", "YWJj", "YWJj\n", "YW Jj", "YWJj=", "=YWJj", "YQ", "Y===", "YWJj!", "0J/RgNC40LLQtdGC"]


@pytest.mark.parametrize("text", CASES)
def test_decode_judges_as_the_standard_library(text):
    try:
        expected = base64.b64decode(text, validate=True)
    except binascii.Error:
        with pytest.raises(b64.Error):
            b64.decode(text)
    else:
        assert b64.decode(text) == expected


def test_decode_refuses_non_ascii_text_as_the_standard_library():
    with pytest.raises(ValueError):
        base64.b64decode("\u0416", validate=True)
    with pytest.raises(ValueError):
        b64.decode("\u0416")


@pytest.mark.parametrize("data", [b"", b"a", b"ab", b"abc", bytes(range(256)) * 3])
def test_encode_writes_as_the_standard_library(data):
    assert b64.encode(data) == base64.b64encode(data).decode()


def test_digest_is_sha256():
    assert digest.hexdigest(b"a", b"bc") == hashlib.sha256(b"abc").hexdigest()
    assert digest.hexdigest() == hashlib.sha256().hexdigest()
