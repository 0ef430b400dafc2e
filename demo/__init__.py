# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`make demo`: the module end to end against a simulated DVP.

`python -m demo` renders the module with the example values and prints what would be deployed, then walks the
scenario (see README.md): API servers, DVP simulator, hooks, components, nodes, volumes, LoadBalancers, teardown.
"""
