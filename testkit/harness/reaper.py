# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m testkit.harness.reaper: removes the folders its parent registered once the parent is gone.

stdin is a pipe from the parent (harness.lifetime): `+<path>` registers a folder, `-<path>` forgets it. The pipe
ends when the parent ends, however it ends (a SIGKILL too: the kernel closes its descriptors); then every folder
still registered is removed and the reaper exits.
"""

from __future__ import annotations

import os
import shutil
import sys


def main() -> int:
    paths: dict[str, None] = {}
    for raw in sys.stdin.buffer:
        line = raw.decode(errors="replace").rstrip("\n")
        if line.startswith("+"):
            paths[line[1:]] = None
        elif line.startswith("-"):
            paths.pop(line[1:], None)
    for path in paths:
        for _ in range(3):  # a child killed at the same moment may have written one more file
            shutil.rmtree(path, ignore_errors=True)
            if not os.path.lexists(path):
                break
    return 0


if __name__ == "__main__":
    sys.exit(main())
