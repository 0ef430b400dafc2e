# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Shared mechanics of the cloud-provider-dvp hooks: values paths, input decoding and validation, TLS, CRDs."""

import gc
import os
import sys

# The module's root directory (crds/, candi/, images/), in the tree and in the module image alike.
MODULE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# In a hook process (the script run is a file of the hooks directory), without the cyclic garbage collector: the
# process lives a fraction of a second and makes few reference cycles, and the collector would only walk, again
# and again, the objects of the SDK and of the JSON inputs (with large inputs, a good part of the run). Memory
# goes back when the process exits. Other programs importing lib (tests, bench) keep it.
if sys.argv and os.path.dirname(os.path.abspath(sys.argv[0])) == os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))):
    gc.disable()
