# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m demo.capdvp_launcher [capdvp flags]: capdvp's own main with the guest API from $DEMO_GUEST_KUBECONFIG.

capdvp reads the guest API only from the in-pod ServiceAccount (it has no --kubeconfig flag); outside a pod the
demo swaps that one constructor for the kubeconfig file. Everything else is `python -m capdvp` unchanged.
"""

from __future__ import annotations

import os
import sys

import capdvp.__main__ as entry
from dvp_common.kube import KubeClient


class _GuestFromKubeconfig(KubeClient):
    @classmethod
    def from_service_account(cls, *args, **kwargs) -> KubeClient:
        with open(os.environ["DEMO_GUEST_KUBECONFIG"], encoding="utf-8") as f:
            return KubeClient.from_kubeconfig(f.read(), **kwargs)


entry.KubeClient = _GuestFromKubeconfig
sys.exit(entry.main(sys.argv[1:]))
