# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures: a local registry (`crane registry serve` on 127.0.0.1), the bundle assembled from the tree and pushed
there, and that bundle pulled and unpacked the way dhctl does."""

from __future__ import annotations

import re
import select
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bundle import __main__ as bundle_cli
from bundle import validator_build
from module_release import crane
from terraform_manager import dhctl
from terraform_manager.binaries import CRANE, PROVIDER, need

SERVING = re.compile(r"serving on port (\d+)")


@pytest.fixture(scope="session")
def registry() -> Iterator[str]:
    """host:port of an in-memory registry; it goes away with the session."""
    need(CRANE)
    proc = subprocess.Popen([str(CRANE), "registry", "serve", "--address", "127.0.0.1:0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline, port = time.monotonic() + 30, None
    while port is None and time.monotonic() < deadline:
        if not select.select([proc.stderr], [], [], max(0.0, deadline - time.monotonic()))[0]:
            break
        line = proc.stderr.readline().decode()
        if not line:
            break
        found = SERVING.search(line)
        port = found and found.group(1)
    if port is None:
        proc.kill()
        proc.wait()
        pytest.fail("crane registry serve announced no port within 30s", pytrace=False)
    yield f"127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)
    proc.stderr.close()


@pytest.fixture(scope="session")
def validator_binary() -> Path:
    """The frozen validator for the current sources (built once per set of sources, cached outside the tree)."""
    try:
        return validator_build.build()
    except validator_build.BuildError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def pushed_bundle(registry, validator_binary, tmp_path_factory) -> tuple[str, str]:
    """(reference, manifest digest) of the bundle built from the tree and pushed to the local registry."""
    need(PROVIDER)
    image = bundle_cli.assemble(tmp_path_factory.mktemp("bundle") / "layout", PROVIDER, validator_binary)
    ref = f"{registry}/cloud-provider-dvp/terraform-manager:test"
    crane.push(image.layout, ref)
    return ref, image.digest


@pytest.fixture(scope="session")
def unpacked_bundle(pushed_bundle, tmp_path_factory) -> Path:
    """<download dir>/dvp, as dhctl leaves it after pulling the bundle."""
    return dhctl.pull_and_unpack(CRANE, pushed_bundle[0], tmp_path_factory.mktemp("dhctl"))
