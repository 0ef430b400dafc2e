// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package tools pins go-containerregistry's crane: it pushes the terraform-manager bundle (an OCI image layout
// assembled by images/terraform-manager) without a container engine, and `crane registry serve` is the local
// registry the bundle tests push to and pull from.
package tools

import _ "github.com/google/go-containerregistry/cmd/crane"
