# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Pure admission rules: each takes the request and what it needs to know, and returns a Verdict."""
