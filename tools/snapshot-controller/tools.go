// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins the upstream snapshot-controller: the image recipe (images/snapshot-controller) builds it
// from this module, and tests may run it against the harness API server.
package tools

import _ "github.com/kubernetes-csi/external-snapshotter/v8/cmd/snapshot-controller"
