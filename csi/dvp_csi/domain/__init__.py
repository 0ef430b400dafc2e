# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Pure domain rules of the CSI driver: no I/O, no gRPC server, no DVP client."""
