# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every traversal class of traversal_cases.py refused with its line (or applied, for the plain ones) and nothing
outside the root changed: in the tests' interpreter (the venv's CPython, 3.13.0 on these hosts) and inside the
webhooks image on Debian's CPython (3.13.5), whose tarfile filters differ; the extractor uses neither's."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from imagekit import rootfs, unpack

from . import traversal_cases

BUILD = Path(__file__).resolve().parents[2] / "build"
EXPECTED = {name: [line, False] for name, (_, line) in traversal_cases.CASES.items()}


@pytest.mark.parametrize("name", sorted(traversal_cases.CASES))
def test_each_class_in_this_interpreter(name):
    entries, line = traversal_cases.CASES[name]
    assert traversal_cases.run_case(entries) == (line, False)


@pytest.fixture(scope="module")
def image_root(real_images, tmp_path_factory) -> Path:
    return unpack.unpack(real_images["webhooks"].layout, tmp_path_factory.mktemp("webhooks") / "rootfs")


def run_in_image(root: Path) -> dict:
    here = Path(__file__).resolve().parent
    # The image's root is read-only; the binds land on its /tmp tmpfs, where bwrap makes their mount points.
    argv = rootfs.bwrap_argv(root, ["/usr/bin/python3", "-S", "/tmp/cases/traversal_cases.py", "/tmp/src"],
                             binds=((here, "/tmp/cases", True),
                                    (BUILD / "module_source", "/tmp/src/module_source", True)),
                             env={"PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"})
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_each_class_on_the_images_python(image_root):
    report = run_in_image(image_root)
    assert report["python"] == "3.13.5"  # Debian trixie's, pinned by images/debian.lock
    assert report["results"] == EXPECTED
