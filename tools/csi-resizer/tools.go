// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins the upstream csi-resizer sidecar for the CSI sidecar integration test (tests/csi).
package tools

import _ "github.com/kubernetes-csi/external-resizer/v2/cmd/csi-resizer"
