# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The project's NetworkPolicy of the cluster: made by the OpenTofu layout (dhctl), kept merged by a module hook."""

from __future__ import annotations

from ..kube.resources import NETWORK_POLICY
from . import labels as L
from .objects import Objects


class NetworkPolicies(Objects):
    resource = NETWORK_POLICY
    default_owners = frozenset({L.DHCTL})
