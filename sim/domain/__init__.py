# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP's behaviour as pure functions: (object, world, settings) -> Plan of writes."""
