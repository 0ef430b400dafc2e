#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""While the migration from the legacy configuration is pending: the bundle Secret d8-migration-resources
(resources.yaml: d8-credentials, ModuleConfig v2, DVPInstanceClasses, NodeGroups), the marker ConfigMap
d8-module-is-migrating (the validation webhook stands aside while it exists) and the metric
d8_cloud_provider_dvp_migration_pending (0 while Commander manages the cluster without supporting the new
format: it would overwrite what the admin applies). Both objects go away once the migration is complete.

After Helm, because the module namespace is Helm's; the snapshots only feed this run (no events)."""

from lib import bindings, legacy, migration
from lib import values as v
from lib.fingerprint import sealed
from lib.hookrun import run
from lib.snapshots import first, results

SNAPSHOT_BUNDLE = "bundle_secret"
SNAPSHOT_MARKER = "marker_configmap"
SNAPSHOT_COMMANDER = "commander_uuid"
SNAPSHOT_COMMANDER_AGENT = "commander_agent"
METRIC = "d8_cloud_provider_dvp_migration_pending"
METRIC_GROUP = "d8_cloud_provider_dvp_migration"
STATE = v.internal("migration")
# Ties the bundle to the input it was made from (lib/fingerprint.py): an unchanged bundle is not rebuilt.
SEAL_ANNOTATION = "cloud-provider-dvp.deckhouse.io/input-seal"
QUIET = {"executeHookOnEvent": [], "executeHookOnSynchronization": False}

config = bindings.render({
    "afterHelm": 20,
    "kubernetes": [
        *migration.state_bindings(**QUIET),
        bindings.kubernetes(SNAPSHOT_BUNDLE, "Secret",
                            f'{{data: .data["{migration.BUNDLE_KEY}"],'
                            f' seal: .metadata.annotations["{SEAL_ANNOTATION}"]}}',
                            namespace=v.NAMESPACE, names=[migration.BUNDLE_SECRET], **QUIET),
        bindings.kubernetes(SNAPSHOT_MARKER, "ConfigMap", "{name: .metadata.name}",
                            namespace=v.NAMESPACE, names=[migration.MARKER], **QUIET),
        bindings.kubernetes(SNAPSHOT_COMMANDER, "ConfigMap", "{name: .metadata.name}",
                            namespace="kube-system", names=["d8-commander-uuid"], **QUIET),
        bindings.kubernetes(SNAPSHOT_COMMANDER_AGENT, "ConfigMap", '{data: .data["data.json"]}',
                            namespace="d8-commander-agent", names=["commander-info"], **QUIET),
    ],
})


def bundle_secret(data_b64: str, seal: str) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": migration.BUNDLE_SECRET, "namespace": v.NAMESPACE, "labels": migration.LABELS,
                         "annotations": {SEAL_ANNOTATION: seal}},
            "data": {migration.BUNDLE_KEY: data_b64}}


def marker() -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": migration.MARKER, "namespace": v.NAMESPACE, "labels": migration.LABELS}}


def main(ctx) -> None:
    fingerprint = migration.state_fingerprint(ctx)
    state = v.get(ctx.values, STATE)
    state = state if isinstance(state, dict) else {}  # only the legacy hook writes it: anything else is no state
    cluster = migration.Cluster.from_snapshots(
        *(results(ctx, s) for s in (migration.SNAPSHOT_MODULE_CONFIG, migration.SNAPSHOT_CREDENTIALS,
                                     migration.SNAPSHOT_NODE_GROUPS, migration.SNAPSHOT_INSTANCE_CLASSES)))
    if state.get("fingerprint") == fingerprint:
        pcc, pending = None, bool(state.get("pending"))  # legacy_cluster_configuration checked this input
    else:
        pcc = legacy.validated_configuration(results(ctx, migration.SNAPSHOT_LEGACY))
        pending = migration.pending(pcc, cluster)
    stored = first(ctx, SNAPSHOT_BUNDLE)
    has_marker = bool(results(ctx, SNAPSHOT_MARKER))
    if pending:
        # A stored bundle whose seal matches was written from this very input and not edited since.
        if stored is None or stored.get("seal") != sealed(fingerprint, stored.get("data") or ""):
            if pcc is None:
                pcc = legacy.validated_configuration(results(ctx, migration.SNAPSHOT_LEGACY))
            import base64

            data = base64.b64encode(migration.bundle_text(pcc, cluster).encode()).decode()
            ctx.kubernetes.create_or_update(bundle_secret(data, sealed(fingerprint, data)))
        if not has_marker:
            ctx.kubernetes.create_or_update(marker())
    else:
        if stored is not None:
            ctx.kubernetes.delete("Secret", v.NAMESPACE, migration.BUNDLE_SECRET, apiVersion="v1")
        if has_marker:
            ctx.kubernetes.delete("ConfigMap", v.NAMESPACE, migration.MARKER, apiVersion="v1")
    ctx.metrics.expire(METRIC_GROUP)
    alert = pending and migration.admin_can_apply(bool(results(ctx, SNAPSHOT_COMMANDER)),
                                                  (first(ctx, SNAPSHOT_COMMANDER_AGENT) or {}).get("data"))
    ctx.metrics.collect({"name": METRIC, "group": METRIC_GROUP, "action": "set", "value": 1 if alert else 0})


if __name__ == "__main__":
    run(main, config)
