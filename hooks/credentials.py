#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Credentials Secrets -> internal.credentialSecrets.

The real source is d8-cloud-provider-dvp/d8-credentials. A cluster still configured the legacy way has only a
provider.kubeconfigDataBase64: in the DVPClusterConfiguration or, without one, in a v1 ModuleConfig. It stands
in for d8-credentials until the Secret exists, so the components keep working during the migration. Without
any of them, metric d8_cloud_provider_dvp_credentials_missing is 1 (the chart renders all the same; the
components that need credentials wait for them)."""

import sys

from lib import bindings, credentials, legacy
from lib import values as v
from lib.errors import InvalidInput
from lib.hookrun import run
from lib.snapshots import results

SNAPSHOT_CREDENTIALS = "credentials"
SNAPSHOT_LEGACY = "legacy_cluster_configuration"
SNAPSHOT_MODULE_CONFIG = "module_config"
VALUE = v.internal("credentialSecrets")
# 1 while no credentials exist: the components that need them wait, and the alert says why.
METRIC = "d8_cloud_provider_dvp_credentials_missing"
METRIC_GROUP = "d8_cloud_provider_dvp_credentials"
RULE = credentials.rule()  # dvp_common.credentials: the Secret's type, its name, the one auth scheme

config = bindings.render({
    "beforeHelm": 10,
    "kubernetes": [
        bindings.kubernetes(
            SNAPSHOT_CREDENTIALS, "Secret",
            "{name: .metadata.name, type: .type, data: ((.data // {}) | {authScheme, secret, identity}"
            " | with_entries(select(.value != null)))}",
            namespace=v.NAMESPACE,
            fieldSelector={"matchExpressions": [
                {"field": "type", "operator": "Equals", "value": RULE.TYPE}]},
        ),
        legacy.binding(SNAPSHOT_LEGACY),
        bindings.kubernetes(SNAPSHOT_MODULE_CONFIG, "ModuleConfig",
                            "{kubeconfig: (.spec.settings.provider.kubeconfigDataBase64? // null)}",
                            api_version="deckhouse.io/v1alpha1", names=["cloud-provider-dvp"]),
    ],
})


def stand_in(ctx) -> tuple[str | None, str, str]:
    """(kubeconfig, object, field) of the legacy source standing in for d8-credentials, first found wins."""
    pcc = legacy.configuration(results(ctx, SNAPSHOT_LEGACY)) or {}
    provider = pcc.get("provider")
    if provider is not None and not isinstance(provider, dict):
        raise InvalidInput(legacy.OBJECT, legacy.FIELD + ".provider", "must be a mapping")
    kubeconfig = (provider or {}).get("kubeconfigDataBase64")
    if kubeconfig:
        return kubeconfig, legacy.OBJECT, legacy.FIELD + ".provider.kubeconfigDataBase64"
    mc = (results(ctx, SNAPSHOT_MODULE_CONFIG) or [{}])[0]
    return ((mc.get("kubeconfig") if isinstance(mc, dict) else None), "ModuleConfig cloud-provider-dvp",
            "spec.settings.provider.kubeconfigDataBase64")


def credential_secrets(items: list, known: frozenset, warnings: list[str]) -> dict:
    """{name: value} of the valid credentials Secrets. Only d8-credentials is read by the module: another one that
    is malformed is left out with a warning instead of stopping the module (the webhook refuses new ones)."""
    found = {}
    for item in sorted(items, key=lambda s: str(s.get("name", "")) if isinstance(s, dict) else ""):
        try:
            c = credentials.from_secret(item, v.NAMESPACE, known)
        except InvalidInput as exc:
            if isinstance(item, dict) and item.get("name") == RULE.NAME:
                raise
            warnings.append(f"warning: left out: {exc}")
            continue
        found[c.name] = c.as_value()
    return found


def main(ctx) -> None:
    # Kubeconfigs already in values passed the check when they got there: parsing them again on every run
    # would cost the YAML import for nothing.
    current = v.get(ctx.values, VALUE)
    known = frozenset(c.get("secret") for c in (current.values() if isinstance(current, dict) else ())
                      if isinstance(c, dict) and isinstance(c.get("secret"), str))
    warnings: list[str] = []  # printed once the run succeeds: a failed run says one line, its reason
    found = credential_secrets(results(ctx, SNAPSHOT_CREDENTIALS), known, warnings)
    if RULE.NAME not in found:
        kubeconfig, obj, field = stand_in(ctx)
        if kubeconfig and not isinstance(kubeconfig, str):
            raise InvalidInput(obj, field, "must be a base64 string")
        if kubeconfig and kubeconfig not in known:
            credentials.check_kubeconfig(kubeconfig, obj, field)
        if kubeconfig:
            found[RULE.NAME] = {"authScheme": RULE.AUTH_SCHEME, "secret": kubeconfig}
    v.set_(ctx.values, VALUE, found)
    for line in warnings:
        print(line, file=sys.stderr)
    ctx.metrics.collect({"name": METRIC, "group": METRIC_GROUP, "action": "set",
                         "value": 0 if RULE.NAME in found else 1})


if __name__ == "__main__":
    run(main, config)
