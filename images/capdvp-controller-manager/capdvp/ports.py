# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The API surface the reconcilers use: the subset of dvp_common.kube.KubeClient they call.

Production passes a KubeClient (or a cache-backed reader over one); unit tests pass an in-memory fake.
"""

from __future__ import annotations

from typing import Any, Protocol

from dvp_common.kube import ListResult, Resource


class Api(Protocol):
    def get(self, res: Resource, name: str, namespace: str | None = None,
            subresource: str | None = None) -> dict[str, Any]: ...

    def list(self, res: Resource, namespace: str | None = None, *, label_selector: str | dict | None = None,
             field_selector: str | dict | None = None, limit: int | None = None, continue_: str | None = None,
             resource_version: str | None = None) -> ListResult: ...

    def create(self, res: Resource, body: dict[str, Any], namespace: str | None = None, *,
               get_existing: bool = False, field_manager: str | None = None) -> dict[str, Any]: ...

    def patch(self, res: Resource, name: str, body: Any, namespace: str | None = None, *,
              patch_type: str = "merge", subresource: str | None = None, field_manager: str | None = None,
              force: bool = False) -> dict[str, Any]: ...

    def delete(self, res: Resource, name: str, namespace: str | None = None, *, propagation: str | None = None,
               preconditions: dict[str, str] | None = None, grace_period_seconds: int | None = None,
               missing_ok: bool = False) -> dict[str, Any] | None: ...
