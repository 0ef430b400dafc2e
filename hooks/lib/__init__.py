# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Shared mechanics of the cloud-provider-dvp hooks: values paths, input decoding and validation, TLS, CRDs."""
