# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The credentials hook finds the one kubeconfig rule in the module's own tree (a hook process has only hooks/ on
its path) and reports its verdict as one InvalidInput line."""

import os
import subprocess
import sys

HOOKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = f"""
import base64, sys
sys.path[:] = [p for p in sys.path if "dvp-common" not in p]
sys.path.insert(0, {HOOKS!r})
from lib import credentials
from lib.errors import InvalidInput
kc = base64.b64encode(b"users: [{{name: u, user: {{tokenFile: /var/run/secrets/token}}}}]").decode()
try:
    credentials.check_kubeconfig(kc, "Secret ns/d8-credentials", "data.secret")
except InvalidInput as exc:
    print(exc)
print(sys.modules["dvp_common.kubeconfig"].__file__.endswith("images/dvp-common/dvp_common/kubeconfig.py"))
print(sorted(m for m in ("requests", "dvp_common.kube") if m in sys.modules))
"""


def test_the_rule_comes_from_the_module_tree_without_the_client():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.splitlines() == [
        'Secret ns/d8-credentials: data.secret: kubeconfig: users[name="u"].user.tokenFile: file references are '
        "not allowed; inline it as token", "True", "[]"]
