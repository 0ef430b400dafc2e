# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dhctl's layouts in tests: their inputs, and OpenTofu run against the simulator."""
