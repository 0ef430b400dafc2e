# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The pre-switch report (`python3 -m dvp_common.takeover`): what this module would take over, leave alone or
be blocked by in a cluster the upstream (Go) module built. `plan` is the pure judgement, `read` the two APIs'
snapshots, `__main__` the command. Read-only: only GET requests are made."""
