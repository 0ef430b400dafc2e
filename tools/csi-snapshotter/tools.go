// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins the upstream csi-snapshotter sidecar for the CSI sidecar integration test (tests/csi).
package tools

import _ "github.com/kubernetes-csi/external-snapshotter/v8/cmd/csi-snapshotter"
