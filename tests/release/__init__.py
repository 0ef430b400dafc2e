# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Tests of the module release (build/module_release) and of its pull-and-verify client (build/module_source)."""
