// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins etcd for the test harness: the server module's own main package is built as is.
package tools

import _ "go.etcd.io/etcd/server/v3"
