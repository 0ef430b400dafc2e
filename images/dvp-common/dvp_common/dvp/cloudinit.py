# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The cloud-init Secret a VM boots from (immutable: different data means delete and recreate)."""

from __future__ import annotations

from ..kube.resources import SECRET
from . import manifests
from .objects import Obj, Objects

SECRET_TYPE = manifests.CLOUD_INIT_SECRET_TYPE
KEY = manifests.CLOUD_INIT_KEY


secret_name = manifests.cloud_init_secret_name


class CloudInitSecrets(Objects):
    resource = SECRET

    def ensure(self, name: str, user_data: bytes | str, owner: Obj | None = None) -> Obj:
        body = manifests.cloud_init_secret(
            manifests.metadata(name, self.conn.cluster_uuid, self._me(), owner=owner), user_data)
        data = body["data"]
        current = self.get_or_none(name)
        if current is not None:
            self.require_ours(current)  # a user's Secret of that name is left alone
            if current.get("data") == data and current.get("type") == SECRET_TYPE:
                return current
            self.delete(name, current)
        return self.create(body)
