# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Pure rules of the provider: no I/O, no clocks, no API calls."""
