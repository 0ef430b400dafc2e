# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dhctl's validator for this provider: the ModuleConfig, credentials, instance classes and NodeGroups dhctl will
hand to the OpenTofu layouts, checked with the rules the webhook and the hooks apply, before anything is made."""
