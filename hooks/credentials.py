#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Credentials Secrets -> internal.credentialSecrets.

The real source is d8-cloud-provider-dvp/d8-credentials. A cluster still configured by the legacy
DVPClusterConfiguration has only provider.kubeconfigDataBase64 there; it stands in for d8-credentials until the
Secret exists, so the components keep working during the migration."""

from lib import bindings, credentials, legacy
from lib import values as v
from lib.hookrun import run
from lib.snapshots import results

SNAPSHOT_CREDENTIALS = "credentials"
SNAPSHOT_LEGACY = "legacy_cluster_configuration"
VALUE = v.internal("credentialSecrets")

config = bindings.render({
    "beforeHelm": 10,
    "kubernetes": [
        bindings.kubernetes(
            SNAPSHOT_CREDENTIALS, "Secret",
            "{name: .metadata.name, type: .type, data: ((.data // {}) | {authScheme, secret, identity}"
            " | with_entries(select(.value != null)))}",
            namespace=v.NAMESPACE,
            fieldSelector={"matchExpressions": [
                {"field": "type", "operator": "Equals", "value": credentials.SECRET_TYPE}]},
        ),
        legacy.binding(SNAPSHOT_LEGACY),
    ],
})


def main(ctx) -> None:
    # Kubeconfigs already in values passed the check when they got there: parsing them again on every run
    # would cost the YAML import for nothing.
    known = frozenset(c.get("secret") for c in (v.get(ctx.values, VALUE) or {}).values() if isinstance(c, dict))
    secrets = sorted(results(ctx, SNAPSHOT_CREDENTIALS), key=lambda s: s.get("name", ""))
    found = {c.name: c.as_value() for c in (credentials.from_secret(s, v.NAMESPACE, known) for s in secrets)}
    if credentials.SECRET_NAME not in found:
        kubeconfig = ((legacy.configuration(results(ctx, SNAPSHOT_LEGACY)) or {}).get("provider") or {}).get(
            "kubeconfigDataBase64")
        if kubeconfig and kubeconfig not in known:
            credentials.check_kubeconfig(kubeconfig, legacy.OBJECT, legacy.FIELD + ".provider.kubeconfigDataBase64")
        if kubeconfig:
            found[credentials.SECRET_NAME] = {"authScheme": credentials.AUTH_SCHEME, "secret": kubeconfig}
    v.set_(ctx.values, VALUE, found)


if __name__ == "__main__":
    run(main, config)
