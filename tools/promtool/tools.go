// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins promtool, which checks the module's PrometheusRule groups (DMT's prometheus-rules rule).
package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
