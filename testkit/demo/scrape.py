# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The components' /metrics, as Prometheus would scrape them in a cluster: one exposition text per component.

The scenario binds each component's metrics server to a port of its own on 127.0.0.1 (tree mode; the chart's own
addresses are for a Pod network) and the walk scrapes them once the scenario ran, before the processes stop."""

from __future__ import annotations

import warnings

import requests
from urllib3.exceptions import InsecureRequestWarning

TIMEOUT = 10.0


def metrics_flags(ports: dict[str, int]) -> dict[str, list[str]]:
    """The flags that put each component's /metrics on 127.0.0.1:<its port>."""
    at = {name: f"127.0.0.1:{port}" for name, port in ports.items()}
    return {"cloud-data-discoverer": [f"--listen-address={at['cloud-data-discoverer']}"],
            "cloud-controller-manager": [f"--metrics-bind-address={at['cloud-controller-manager']}"],
            "capdvp-controller-manager": [f"--metrics-bind-address={at['capdvp-controller-manager']}"],
            "csi-controller": [f"--metrics-address={at['csi-controller']}"]}


def scrape(urls: dict[str, str]) -> dict[str, str]:
    """component -> its exposition text; an unreachable component or a non-200 answer raises, naming it."""
    out = {}
    for name, url in sorted(urls.items()):
        with warnings.catch_warnings():
            # the webhooks serve /metrics on their HTTPS port with the chart's certificate for the Service name
            warnings.simplefilter("ignore", InsecureRequestWarning)
            try:
                answer = requests.get(url, timeout=TIMEOUT, verify=False)  # noqa: S501
            except requests.RequestException as exc:
                raise RuntimeError(f"scraping {name} at {url}: {exc}") from None
        if answer.status_code != 200:
            raise RuntimeError(f"scraping {name} at {url}: HTTP {answer.status_code}")
        out[name] = answer.text
    return out
