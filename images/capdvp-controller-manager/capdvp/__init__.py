# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp: the Cluster API infrastructure provider for Deckhouse Virtualization Platform.

`domain/` holds pure rules (names, specs, phases, updates, validation), `controllers/` the reconcilers that
translate them into API calls through the `ports.Api` interface, `admission` the validating webhook.
"""
