# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DeckhouseCluster reconciler: endpoint and readiness; on delete, remove every DVP object capdvp made and the
cluster's DVP load balancers.

The clean-up selects by this cluster's UUID *and* the capdvp component label, so CSI volumes and anything made by
hand or by another cluster survive. The load balancers (Services and ServiceWithHealthchecks the CCM made: this
cluster's UUID *and* the ccm label) go too: when the cluster is torn down the guest Services that held them are
gone with it, and the CCM may already be stopped, so nothing else would release their parent addresses. A Service
DVP made for a ServiceWithHealthchecks goes with its parent. Its wait is bounded by the deletionTimestamp.
"""

from __future__ import annotations

import logging

from dvp_common.dvp.services import cluster_load_balancers, owned_by_healthchecks

from capdvp import resources as r
from capdvp.controllers import guest
from capdvp.controllers.context import DONE, Context, Result, parse_time
from capdvp.controllers.status import StatusDraft, write
from capdvp.domain import conditions as c
from capdvp.domain import deletion, zones

log = logging.getLogger(__name__)

FINALIZER = "deckhousecluster.infrastructure.cluster.x-k8s.io"
ORPHANED_OBJECTS = deletion.ORPHANED_OBJECTS


class ClusterReconciler:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def reconcile(self, namespace: str, name: str) -> Result:
        dc = guest.get_or_none(self.ctx.guest, r.DECKHOUSE_CLUSTER, name, namespace)
        if dc is None:
            return DONE
        if dc["metadata"].get("deletionTimestamp"):
            return self._delete(dc)
        draft = StatusDraft()
        owner = guest.owner_cluster_name(dc)
        cluster = guest.get_or_none(self.ctx.guest, r.CLUSTER, owner, namespace) if owner else None
        if guest.is_paused(dc, cluster):
            draft.set(c.Condition(c.PAUSED, c.TRUE, c.CLUSTER_PAUSED, "reconciliation is paused"))
            write(self.ctx, r.DECKHOUSE_CLUSTER, dc, draft)
            return DONE
        draft.set(c.Condition(c.PAUSED, c.FALSE, c.NOT_PAUSED))
        dc.update(guest.set_finalizer(self.ctx, r.DECKHOUSE_CLUSTER, dc, FINALIZER, True))
        cfg = self.ctx.config
        endpoint = (dc.get("spec") or {}).get("controlPlaneEndpoint") or {}
        if not endpoint.get("host") and cfg.control_plane_host:
            dc.update(self.ctx.guest.patch(
                r.DECKHOUSE_CLUSTER, name,
                {"spec": {"controlPlaneEndpoint": {"host": cfg.control_plane_host, "port": cfg.control_plane_port}}},
                namespace))
        draft.failure_domains = zones.failure_domains(zones.of_cluster(dc))
        draft.set(c.Condition(c.READY, c.TRUE, "Provisioned", "DVP infrastructure is ready"))
        draft.ready = True
        draft.provisioned = True
        write(self.ctx, r.DECKHOUSE_CLUSTER, dc, draft)
        return DONE

    def _delete(self, dc: dict) -> Result:
        meta, ctx = dc["metadata"], self.ctx
        if FINALIZER not in (meta.get("finalizers") or []):
            return DONE
        dvp = ctx.dvp
        left: list[str] = []
        # Operations and attachments first: they pin VMs and disks. Cloud-init Secrets are not listed: listing
        # Secrets would read every Secret of the project, and each of ours is owned by its VM, so DVP's garbage
        # collector removes it with the VM.
        for kind in (dvp.operations, dvp.attachments, dvp.vms, dvp.disks):
            # Selected by this cluster's UUID and the capdvp label (list(ours=True) checks the rule again), so CSI
            # volumes and anything made by hand or by another cluster survive.
            for obj in kind.list():
                left.append(f"{kind.resource.kind}/{obj['metadata']['name']}")
                if not obj["metadata"].get("deletionTimestamp"):
                    kind.delete(obj["metadata"]["name"], obj)
        for kind, obj in cluster_load_balancers(dvp.conn, dvp.component):
            left.append(f"{kind.resource.kind}/{obj['metadata']['name']}")
            if not obj["metadata"].get("deletionTimestamp") and not owned_by_healthchecks(obj):
                kind.delete(obj["metadata"]["name"], obj)
        started = parse_time(meta["deletionTimestamp"])
        assert started is not None
        step = deletion.cluster_step(left, ctx.now(), started, ctx.config.cluster_cleanup_timeout)
        if step.next is deletion.Next.WAIT:
            log.info("DeckhouseCluster %s: waiting for %d DVP objects to go", meta["name"], len(left))
            return Result(requeue_after=ctx.config.recheck)
        if step.orphans:
            log.warning("DeckhouseCluster %s: %d DVP objects still present past the deadline; orphaning them",
                        meta["name"], len(left))
            dc.update(guest.annotate(ctx, r.DECKHOUSE_CLUSTER, dc, dict(step.orphans)))
        guest.set_finalizer(ctx, r.DECKHOUSE_CLUSTER, dc, FINALIZER, False)
        return DONE
