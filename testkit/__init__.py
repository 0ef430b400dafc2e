# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the tests and bench/ share: the API harness (`testkit.harness`), the kits by area (`testkit.capdvp`,
`testkit.csi`, `testkit.webhooks`, `testkit.candi`, ...). Never shipped in an image; not the simulator (`sim`),
the demo (`demo`) or the release verifier (`module_source`)."""
