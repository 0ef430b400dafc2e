# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Reconcilers: read the world through ports.Api, decide with domain/, write back idempotently."""
