# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The test harness: real etcd and kube-apiservers, the guest's controllers, CRDs, manifests validated strictly."""
