# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The one admission server every webhook of the module runs on.

`review` (AdmissionReview parsing and answers) and `verdict` are pure; `decider` runs a route's rule within
the deadline and fails closed; `server` is the HTTPS endpoint (socket timeouts, bounded bodies and
connections, /healthz, certificate reload). Components keep their routes and rules.
"""
