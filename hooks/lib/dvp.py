# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dvp_common, the client library of the components, for the few hooks that talk to an API themselves. It lives
in the module tree (images/dvp-common), which is not on a hook's import path in Deckhouse; only those hooks, and
only when they really call an API, pay for importing it (requests)."""

import os
import sys

from lib import MODULE_ROOT

LIBRARY_ROOT = os.path.join(MODULE_ROOT, "images", "dvp-common")


def importable() -> None:
    """Makes `import dvp_common` work: the installed copy if there is one, else the module tree's."""
    try:
        import dvp_common.kube  # noqa: F401
    except ImportError:
        sys.modules.pop("dvp_common", None)  # a namespace package of the same name found first
        sys.path.insert(0, LIBRARY_ROOT)
