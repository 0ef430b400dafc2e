#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CNI Secret kube-system/d8-cni-configuration -> internal.cniSecretData.

The module renders that Secret; when the cluster already holds one with a cni key (written by the installer or
an admin), its data is passed through unchanged: base64 of a YAML map of the Secret's base64 values, which the
template decodes into `data:`."""

import base64
import json

from lib import bindings
from lib import values as v
from lib.errors import InvalidInput
from lib.hookrun import run
from lib.snapshots import first

SNAPSHOT = "cni_configuration"
VALUE = v.internal("cniSecretData")

config = bindings.render({
    "beforeHelm": 10,
    "kubernetes": [
        bindings.kubernetes(SNAPSHOT, "Secret", "{data: (.data // {})}", namespace="kube-system",
                            names=["d8-cni-configuration"]),
    ],
})


OBJECT = "Secret kube-system/d8-cni-configuration"


def passthrough(data: dict) -> str | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise InvalidInput(OBJECT, "data", "must be a mapping")
    for key, value in data.items():
        # written into the template unquoted: only base64 (as the API stores Secret data) is safe there
        try:
            base64.b64decode(value if isinstance(value, str) else 0, validate=True)
        except (ValueError, TypeError):
            raise InvalidInput(OBJECT, f"data[{key}]", "must be a base64 string") from None
    if not data.get("cni"):
        return None
    # Keys are quoted (a key such as "on" must stay a string); base64 values need no quoting.
    text = "".join(f"{json.dumps(key)}: {data[key]}\n" for key in sorted(data))
    return base64.b64encode(text.encode()).decode()


def main(ctx) -> None:
    data = passthrough((first(ctx, SNAPSHOT) or {}).get("data"))
    if data:
        v.set_(ctx.values, VALUE, data)
    else:
        v.delete(ctx.values, VALUE)


if __name__ == "__main__":
    run(main, config)
