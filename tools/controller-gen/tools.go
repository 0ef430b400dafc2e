// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins controller-gen, the version DVP generates its CRDs with: tools/fetch-upstream runs it over
// DVP's pinned API module (tools/upstream) to produce the CRDs of the kinds DVP generates.
package tools

import _ "sigs.k8s.io/controller-tools/cmd/controller-gen"
