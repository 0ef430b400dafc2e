# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp: the Cluster API infrastructure provider for Deckhouse Virtualization Platform.

`domain/` holds pure rules (names, specs, phases, updates, the warm-update and deletion state machines,
validation), `controllers/` the reconcilers that execute their steps: the guest API through a (cached) KubeClient,
DVP only through dvp_common.dvp's typed kinds; `admission` the validating webhook.
"""
