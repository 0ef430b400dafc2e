# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import os
import subprocess
import sys

from lib import dvp

HOOKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_module_trees_copy_is_found_without_an_installed_one():
    script = (
        "import sys\n"
        f"sys.path = [p for p in sys.path if 'dvp-common' not in p]\n"
        f"sys.path.insert(0, {HOOKS!r})\n"
        "from lib import dvp\n"
        "dvp.importable()\n"
        "import dvp_common.kube\n"
        "print(dvp_common.__file__)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == os.path.join(dvp.LIBRARY_ROOT, "dvp_common", "__init__.py")
