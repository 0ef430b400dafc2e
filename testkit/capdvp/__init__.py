# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp's kits: the world of a machine (on the in-memory API), the real-API environment."""
