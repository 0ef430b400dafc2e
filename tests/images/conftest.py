# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures: every image built once per session from the tree (`imagekit.build`, layers cached outside the tree
as `make images` caches them), and each unpacked."""

from __future__ import annotations

from pathlib import Path

import pytest
from imagekit import build, rootfs, unpack
from imagekit.errors import ImageError


@pytest.fixture(scope="session")
def images(tmp_path_factory) -> dict[str, build.Built]:
    try:
        rootfs.require_bwrap()
        return build.build(None, tmp_path_factory.mktemp("images"))
    except ImageError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def rootfses(images, tmp_path_factory) -> dict[str, Path]:
    top = tmp_path_factory.mktemp("rootfs")
    return {name: unpack.unpack(b.layout, top / name) for name, b in images.items()}
