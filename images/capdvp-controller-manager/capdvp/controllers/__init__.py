# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Reconcilers: read the world, let domain/ decide, execute the step idempotently."""
