# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The components' /metrics, as Prometheus would scrape them in a cluster: one exposition text per component.

The scenario binds each component's metrics server to a port of its own on 127.0.0.1 (tree mode; in a Pod each is
on loopback too, published by kube-rbac-proxy) and the walk scrapes them once the scenario ran, before the
processes stop."""

from __future__ import annotations

import requests

TIMEOUT = 10.0


# Each component's flag for the address of its /metrics.
FLAGS = {"cloud-data-discoverer": "--listen-address", "cloud-controller-manager": "--metrics-bind-address",
         "capdvp-controller-manager": "--metrics-bind-address", "csi-controller": "--metrics-address",
         "validation-webhook": "--metrics-address", "snapshot-webhooks": "--metrics-address"}


def metrics_flags(ports: dict[str, int]) -> dict[str, list[str]]:
    """The flags that put each component's /metrics on 127.0.0.1:<its port>."""
    return {name: [f"{FLAGS[name]}=127.0.0.1:{port}"] for name, port in ports.items() if name in FLAGS}


def scrape(urls: dict[str, str]) -> dict[str, str]:
    """component -> its exposition text; an unreachable component or a non-200 answer raises, naming it."""
    out = {}
    for name, url in sorted(urls.items()):
        try:
            answer = requests.get(url, timeout=TIMEOUT)
        except requests.RequestException as exc:
            raise RuntimeError(f"scraping {name} at {url}: {exc}") from None
        if answer.status_code != 200:
            raise RuntimeError(f"scraping {name} at {url}: HTTP {answer.status_code}")
        out[name] = answer.text
    return out
