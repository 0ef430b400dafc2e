# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The terraform-manager bundle dhctl downloads for this provider, assembled from the tree as an OCI image layout
(no container engine): candi's layouts, modules and schemas, the provider binary, plan rules, and the validator."""
