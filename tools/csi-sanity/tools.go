// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins csi-sanity (kubernetes-csi/csi-test) for the CSI conformance test.
package tools

import _ "github.com/kubernetes-csi/csi-test/v5/cmd/csi-sanity"
