# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Shared mechanics of the cloud-provider-dvp hooks: values paths, input decoding and validation, TLS, CRDs."""

import os
import sys

# The module's root directory (crds/, candi/, images/). A frozen program (the dhctl validator, built with
# PyInstaller) carries the files it needs under sys._MEIPASS. Here, not in lib.schema, so that the hooks that
# only need the path do not import the validator.
MODULE_ROOT = getattr(sys, "_MEIPASS", None) or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
