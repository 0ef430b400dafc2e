# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp's kits: in-memory fakes, the world of a machine, the real-API environment."""
