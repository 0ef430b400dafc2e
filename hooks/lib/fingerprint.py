# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Fingerprints of a hook's input, so that a run over input it already handled skips parsing and validating it
again: before- and afterHelm hooks run on every module run, mostly over unchanged snapshots, and the YAML import
alone costs a third of a hook's time budget. The fingerprint also covers the code and schema that interpret the
input, because what it guards can outlive a module upgrade (an annotation on a Secret). It is a SHA-256: the
input may hold a kubeconfig, which must not be recoverable from values or annotations."""

import json
import os

from lib import MODULE_ROOT
from lib.digest import sha256


def of(inputs: dict, code: tuple[str, ...]) -> str:
    """`code`: module-relative paths of the files whose contents decide what the input means."""
    digest = sha256()
    for path in code:
        with open(os.path.join(MODULE_ROOT, path), "rb") as f:
            digest.update(f.read())
    digest.update(json.dumps(inputs, sort_keys=True, separators=(",", ":")).encode())
    return digest.hexdigest()


def sealed(fingerprint: str, data: str) -> str:
    """A seal over data derived from an input with this fingerprint: a stored copy whose seal still matches was
    written by us from the same input and not edited since."""
    return sha256(f"{fingerprint}\n{data}".encode()).hexdigest()
