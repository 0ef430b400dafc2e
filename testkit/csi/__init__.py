# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CSI driver's kits: the environment, requests, the simulated DVP side, loop devices, the sidecars."""
