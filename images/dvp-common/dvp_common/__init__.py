# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The one client library every cloud-provider-dvp component uses.

`dvp_common.kube` is a small Kubernetes REST client, `dvp_common.dvp` the typed DVP operations and the
ownership rule, `dvp_common.runtime` the controller building blocks.
"""
