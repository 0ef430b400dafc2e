// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins the hashicorp/kubernetes provider used by the candi layouts. Its v2 releases lack a /v2
// module path, so the Go module proxy serves them only as pseudo-versions of the bare path: go.mod pins the
// commit 3a33fb6cc605 (2026-08-21) that way.
package tools

import _ "github.com/hashicorp/terraform-provider-kubernetes"
