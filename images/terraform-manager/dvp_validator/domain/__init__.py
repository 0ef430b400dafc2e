# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Pure rules: the decoded dhctl input in, violations out; no I/O."""
