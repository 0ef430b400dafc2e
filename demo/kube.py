# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Generic object handling on a real API: apiVersion/kind -> Resource through API discovery, idempotent apply."""

from __future__ import annotations

import contextlib
import functools
from typing import Any

from dvp_common.kube import AlreadyExists, ApiError, KubeClient, NotFound
from dvp_common.kube.faults import RequestInfo
from dvp_common.kube.resources import Resource


class NotServed(LookupError):
    """The API does not serve this kind (e.g. deckhouse.io NodeGroup in a bare guest API)."""


class Kinds:
    """Resolves apiVersion + kind to a Resource with API discovery (one GET per group version, cached)."""

    def __init__(self, client: KubeClient) -> None:
        self.client = client

    @functools.cache  # noqa: B019 - one Kinds per API for the whole run
    def _group_version(self, api_version: str) -> dict[str, Resource]:
        group, _, version = api_version.rpartition("/")
        path = f"/apis/{api_version}" if group else f"/api/{version}"
        info = RequestInfo(verb="get", method="GET", resource=api_version, namespace="", name="", path=path,
                           kind="APIResourceList")
        try:
            body = self.client._call(info, "GET", until=self.client._until(None))  # no public discovery call
        except NotFound:
            return {}
        out: dict[str, Resource] = {}
        for r in body.get("resources", []):
            if "/" not in r["name"]:
                out[r["kind"]] = Resource(group, version, r["name"], r["kind"], r["namespaced"])
        return out

    def resource(self, api_version: str, kind: str) -> Resource:
        found = self._group_version(api_version).get(kind)
        if found is None:
            raise NotServed(f"{kind}.{api_version} is not served by {self.client.transport.credentials.host}")
        return found


def apply(client: KubeClient, kinds: Kinds, obj: dict[str, Any]) -> str:
    """Create, or replace keeping the live resourceVersion; returns 'created' | 'updated'."""
    res = kinds.resource(obj["apiVersion"], obj["kind"])
    md = obj["metadata"]
    ns = md.get("namespace") if res.namespaced else None
    try:
        client.create(res, obj, ns)
        return "created"
    except AlreadyExists:
        pass
    for _ in range(5):  # a concurrent writer may bump resourceVersion between get and replace
        live = client.get(res, md["name"], ns)
        body = {**obj, "metadata": {**md, "resourceVersion": live["metadata"]["resourceVersion"]}}
        try:
            client.replace(res, body, ns)
            return "updated"
        except ApiError as exc:
            if exc.status != 409:
                raise
    raise RuntimeError(f"{obj['kind']} {md['name']}: replace kept conflicting")


def ensure_namespace(client: KubeClient, name: str) -> None:
    from dvp_common.kube.resources import NAMESPACE

    with contextlib.suppress(AlreadyExists):
        client.create(NAMESPACE, {"metadata": {"name": name}})
