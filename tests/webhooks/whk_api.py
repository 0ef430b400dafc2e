# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The webhooks registered with the real guest kube-apiserver as the chart renders them: only the service
reference becomes https://127.0.0.1:<port><path> with a CA bundle of the test's choice, and the scope namespaces
labelled with the test's tag."""

from __future__ import annotations

import base64
import copy
import time
from collections.abc import Callable
from typing import Any

from chart import render
from dvp_common.kube import Forbidden, KubeClient, Resource
from dvp_common.kube.resources import MUTATING_WEBHOOK_CONFIGURATION, VALIDATING_WEBHOOK_CONFIGURATION

TAG_LABEL = "sec-test"
_rendered: list[dict] = []


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def rendered_configuration(kind: str, name: str) -> dict[str, Any]:
    if not _rendered:  # rendered once per session: helm takes a while
        _rendered.extend(render.render_values(render.module_values(all_on=True)))
    return copy.deepcopy(next(o for o in _rendered if o["kind"] == kind and o["metadata"]["name"] == name))


class Registrations:
    """Webhook configurations made by one test, removed by `close()`."""

    def __init__(self, client: KubeClient) -> None:
        self.client = client
        self.made: list[tuple[Resource, str]] = []

    def register(self, kind: str, name: str, tag: str, port: int, ca_pem: str) -> str:
        """The rendered configuration `name` as `<tag>-<name>`, its namespaced webhooks pointed at 127.0.0.1:`port`
        (trusting `ca_pem`) and scoped to namespaces labelled `tag`; cluster-scoped ones are left out (they
        ignore namespaceSelector, so they would reach every test of the session)."""
        obj = rendered_configuration(kind, name)
        obj["metadata"] = {"name": f"{tag}-{name}"}
        obj["webhooks"] = [h for h in obj["webhooks"] if h["rules"][0]["scope"] == "Namespaced"]
        for hook in obj["webhooks"]:
            hook["name"] = f"{tag}.{hook['name']}"
            path = hook["clientConfig"]["service"]["path"]
            hook["clientConfig"] = {"url": f"https://127.0.0.1:{port}{path}", "caBundle": b64(ca_pem)}
            hook["namespaceSelector"] = {"matchLabels": {TAG_LABEL: tag}}
        res = MUTATING_WEBHOOK_CONFIGURATION if kind.startswith("Mutating") else VALIDATING_WEBHOOK_CONFIGURATION
        self.client.create(res, obj)
        self.made.append((res, obj["metadata"]["name"]))
        return obj["metadata"]["name"]

    def close(self) -> None:
        for res, name in self.made:
            self.client.delete(res, name, missing_ok=True)


def eventually_denied(action: Callable[[], Any], timeout: float = 15.0) -> Forbidden:
    """A new webhook configuration reaches the API server's admission within a moment, and nothing announces
    it: repeat `action` (each call a new object) until the webhook denies one."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            action()
        except Forbidden as exc:
            return exc
        assert time.monotonic() < deadline, "the webhook never denied the request"
        time.sleep(0.2)
