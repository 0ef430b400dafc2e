# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every `make X` the tree tells a person to run exists: in a code span (`make X ...`) of any tracked text file
(docs, messages in code, comments) and on a command line of a Markdown code block. A message that names a target
the Makefile lacks sends its reader nowhere."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPAN = re.compile(r"`make ([a-z][a-z-]*)")
FENCE = re.compile(r"^```")
COMMAND = re.compile(r"^\s*(?:\$ )?make ([a-z][a-z-]*)")
TEXT = (".md", ".py", ".sh", ".yaml", ".yml", ".tf", ".hcl", ".toml", ".cfg", "Makefile", ".importlinter", "run")


def targets() -> set[str]:
    return set(re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(), re.MULTILINE))


def named() -> dict[str, set[str]]:
    """target -> the files that name it."""
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    out: dict[str, set[str]] = {}
    for rel in files:
        path = ROOT / rel
        if not rel.endswith(TEXT) or path.is_symlink() or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        found = set(SPAN.findall(text))
        if rel.endswith(".md"):
            fenced = False
            for line in text.splitlines():
                if FENCE.match(line):
                    fenced = not fenced
                elif fenced and (m := COMMAND.match(line)):
                    found.add(m.group(1))
        for target in found:
            out.setdefault(target, set()).add(rel)
    return out


def test_every_make_target_the_tree_names_exists():
    missing = {t: sorted(files) for t, files in named().items() if t not in targets()}
    assert missing == {}


def test_the_scan_finds_the_targets_the_readme_names():
    """The scan itself works: the README's two commands are found, and a target nobody has is not a target."""
    found = named()
    assert {"demo", "test"} <= set(found) and "README.md" in found["test"]
    assert "images-setup" not in targets()
