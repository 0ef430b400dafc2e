// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins the Cluster API core controller manager (its main package is the module root), which tests
// run against the harness's guest API beside capdvp. Same version as the CAPI CRDs in tools/upstream.
package tools

import _ "sigs.k8s.io/cluster-api"
