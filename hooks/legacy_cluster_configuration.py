#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The legacy DVPClusterConfiguration (kube-system/d8-provider-cluster-configuration) -> values.

It is validated against candi/openapi/cluster_configuration.yaml. While the migration to the v2 objects is
pending, its fields stand in for the module settings and internal.migration.pending is true; once it is complete,
the settings it stood in for (internal.migration.projected) follow the ModuleConfig again. The bundle of new
objects is published after Helm by migration_resources.py. (Its kubeconfig and discovery data are read by the
credentials and discovery_data hooks.)"""

from lib import legacy, migration
from lib import values as v
from lib.bindings import render
from lib.hookrun import run
from lib.snapshots import results

VALUE = v.internal("migration")

config = render({"beforeHelm": 12, "kubernetes": migration.state_bindings()})


def main(ctx) -> None:
    fingerprint = migration.state_fingerprint(ctx)
    state = v.get(ctx.values, VALUE)
    state = state if isinstance(state, dict) else {}  # only this hook writes it: anything else is no state
    projected = state.get("projected")
    projected = [p for p in projected if isinstance(p, str)] if isinstance(projected, list) else []
    # Unless an earlier run checked this very input (and its values are in place), compute the state again.
    if state.get("fingerprint") != fingerprint:
        pcc = legacy.validated_configuration(results(ctx, migration.SNAPSHOT_LEGACY))
        cluster = migration.Cluster.from_snapshots(
            *(results(ctx, s) for s in (migration.SNAPSHOT_MODULE_CONFIG, migration.SNAPSHOT_CREDENTIALS,
                                         migration.SNAPSHOT_NODE_GROUPS, migration.SNAPSHOT_INSTANCE_CLASSES)))
        state = {"pending": migration.pending(pcc, cluster), "fingerprint": fingerprint}
        if state["pending"] and pcc is not None:
            projected = sorted(set(projected) | set(migration.project(ctx.values, pcc)))
        if projected:
            state["projected"] = projected
        v.set_(ctx.values, VALUE, state)
    if not state.get("pending") and projected:
        migration.unproject(ctx.values, ctx.config_values, projected)


if __name__ == "__main__":
    run(main, config)
