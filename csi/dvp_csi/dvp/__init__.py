# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP access of the driver: a small port (port.py) and its adapters."""
