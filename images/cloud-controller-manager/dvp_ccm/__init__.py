# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dvp_ccm: the cloud-controller-manager of cloud-provider-dvp (node, node lifecycle, LoadBalancer Services)."""
