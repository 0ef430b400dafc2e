// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

//go:build tools

// Package upstream pins upstream data modules; tools/fetch-upstream copies their files (csi.proto, ...) to
// .cache/upstream. The CSI spec version matches the one csi-sanity (tools/csi-sanity) is built against.
package upstream

import _ "github.com/container-storage-interface/spec/lib/go/csi"
