// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package upstream pins DVP's API module at v1.0.0 as data (go.mod); tools/fetch-upstream copies files from the
// verified module cache and nothing imports it.
package upstream
