# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Adapters: each controller reads caches, asks the domain, and writes the answer."""
