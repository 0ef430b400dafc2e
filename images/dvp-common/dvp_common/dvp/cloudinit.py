# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The cloud-init Secret a VM boots from (immutable: different data means delete and recreate)."""

from __future__ import annotations

import base64

from ..kube.resources import SECRET
from .objects import Obj, Objects

SECRET_TYPE = "provisioning.virtualization.deckhouse.io/cloud-init"  # noqa: S105 - a Secret type, not a password
KEY = "userData"


def secret_name(machine: str) -> str:
    return f"cloud-init-{machine}"


class CloudInitSecrets(Objects):
    resource = SECRET

    def ensure(self, name: str, user_data: bytes | str, owner: Obj | None = None) -> Obj:
        raw = user_data.encode() if isinstance(user_data, str) else user_data
        data = {KEY: base64.b64encode(raw).decode()}
        meta = {"ownerReferences": [self.owner_ref(owner)]} if owner else {}
        body = self.build(name, {}, metadata=meta, type=SECRET_TYPE, data=data, immutable=True)
        del body["spec"]
        current = self.get_or_none(name)
        if current is not None:
            self.require_ours(current)  # a user's Secret of that name is left alone
            if current.get("data") == data and current.get("type") == SECRET_TYPE:
                return current
            self.delete(name)
        return self.create(body)
