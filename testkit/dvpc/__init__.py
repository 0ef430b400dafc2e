# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""An in-memory DVP API server over HTTP for the DVP client's tests (its verbs beside it)."""
