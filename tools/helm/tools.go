// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins the helm v3 CLI, used by the render harness to check that the CLI renders the module
// exactly as the in-process engine does.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
