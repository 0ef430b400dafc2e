# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The one way hooks reach dvp_common (the rules the components share, and their client library): `importable()`,
then `import dvp_common...`, inside the function that needs it.

dvp_common lives in the module tree (images/dvp-common), which is not on a hook's import path in Deckhouse; the
module image ships it at the same path beside hooks/ (build/module_release/fileset.py). Only the hooks that need
it pay for it, and only for what they import: a pure rule costs the standard library (PyYAML to judge a
kubeconfig), the client (requests) only the hooks that really call an API."""

import os
import sys

from lib import MODULE_ROOT

LIBRARY_ROOT = os.path.join(MODULE_ROOT, "images", "dvp-common")


def importable() -> None:
    """Makes `import dvp_common` work, importing nothing itself: the module tree's copy goes after every other path
    entry, so an installed copy (the tests' venv) wins."""
    if LIBRARY_ROOT in sys.path:
        return
    sys.path.append(LIBRARY_ROOT)
    found = sys.modules.get("dvp_common")
    if found is not None and getattr(found, "__file__", None) is None:
        del sys.modules["dvp_common"]  # a namespace package of the same name imported before: found again
