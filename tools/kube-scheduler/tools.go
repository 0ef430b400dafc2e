// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins kube-scheduler for the test harness (the guest's own controllers). k8s.io/kubernetes requires its staging
// modules at v0.0.0, so go.mod replaces each with the tagged release of the same minor.
package tools

import _ "k8s.io/kubernetes/cmd/kube-scheduler"
