// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins kwok for the test harness: its controller plays the guest's kubelets (Node
// registration, heartbeats, Pods Running), never mounting anything.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
