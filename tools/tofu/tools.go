// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins OpenTofu for the candi layouts (fmt, validate, test, apply in tests/candi).
package tools

import _ "github.com/opentofu/opentofu/cmd/tofu"
