# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Wiring: informers feed work queues, workers run the reconcilers, one leader at a time.

Watches replace polling: DeckhouseMachines, Machines, Clusters and the Machines' bootstrap data Secrets on the
guest side; our VMs and disks on the DVP side (selected by our cluster UUID and component label) map back to
their machine by the hostname label.
The lifecycle (leader election, health, metrics, the cache sync policy) is dvp_common.runtime.manager's; the
webhook serves on every replica.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from dvp_common.admission.server import WebhookServer
from dvp_common.dvp.connection import DVPConnection
from dvp_common.dvp.images import SOURCES
from dvp_common.kube import KubeClient
from dvp_common.runtime import Informer, status_only
from dvp_common.runtime.cached import CachedClient
from dvp_common.runtime.manager import Manager as Lifecycle
from prometheus_client import CollectorRegistry

from capdvp import admission
from capdvp import resources as r
from capdvp.controllers.cluster import ClusterReconciler
from capdvp.controllers.context import Context, project
from capdvp.controllers.guest import CLUSTER_NAME_LABEL
from capdvp.controllers.machine import MachineReconciler
from capdvp.controllers.template import TemplateReconciler
from capdvp.domain import guest, health, ownership
from capdvp.machine_metrics import MachineMetrics
from capdvp.runner import Controller, Metrics
from capdvp.settings import Settings

log = logging.getLogger(__name__)

# Seconds a VirtualMachineClass or boot image found in DVP counts as present for the next machines' pre-creation
# check (the provider may only `get` those: no watch). A class deleted meanwhile leaves the VM Pending in DVP.
PREREQUISITE_MEMORY_S = 10.0
# The status fields of our DVP objects the machine reconciler reads (phase.py: phase, ipAddress; machine_delete.py:
# blockDeviceRefs). An update changing none of them, nor spec or metadata (conditions, progress, statistics DVP
# keeps writing), is no news for the machine. Reading another status field means listing it here.
DVP_STATUS_READ = ("phase", "ipAddress", "blockDeviceRefs")
# The DVP conditions it reads (domain/guest.py, domain/health.py). News: any change of AgentReady or Migratable
# (GuestBooted, LiveMigratable); of the others only turning False or back (what DVP waits for, domain/health.py): their
# True heartbeats through provisioning would each cost a pass and its reads. DVP's Running condition moves with the
# phase, which is watched anyway.
DVP_CONDITIONS_READ = (guest.DVP_AGENT_READY, guest.DVP_MIGRATABLE)
DVP_CONDITIONS_FALSE_READ = health.TYPES_READ


def _conditions_read(obj: dict) -> dict:
    out = {}
    for x in (obj.get("status") or {}).get("conditions") or []:
        if x.get("type") in DVP_CONDITIONS_READ:
            out[x["type"]] = (x.get("status"), x.get("reason"))
        elif x.get("type") in DVP_CONDITIONS_FALSE_READ and x.get("status") == "False":
            out[x["type"]] = x.get("reason")
    return out


class Manager(Lifecycle):
    settings: Settings

    def __init__(self, settings: Settings, guest: KubeClient, dvp: DVPConnection,
                 registry: CollectorRegistry | None = None, exit_on_lost_lease: Callable[[], None] | None = None):
        super().__init__(settings, guest, registry=registry, exit_on_lost_lease=exit_on_lost_lease)
        self.dvp = dvp
        ns, dvp_ns, resync = settings.watch_namespace, dvp.namespace, settings.resync_seconds
        ours = {ownership.CLUSTER_UUID: dvp.cluster_uuid, ownership.COMPONENT: ownership.COMPONENT_CAPDVP}
        self.guest_informers = {
            r.DECKHOUSE_MACHINE: Informer(guest, r.DECKHOUSE_MACHINE, ns, resync_period=resync),
            r.DECKHOUSE_CLUSTER: Informer(guest, r.DECKHOUSE_CLUSTER, ns, resync_period=resync),
            r.DECKHOUSE_MACHINE_TEMPLATE: Informer(guest, r.DECKHOUSE_MACHINE_TEMPLATE, ns, resync_period=resync),
            r.MACHINE: Informer(guest, r.MACHINE, ns),
            r.CLUSTER: Informer(guest, r.CLUSTER, ns),
            # Bootstrap data is read on every pass until the VM runs (a stale cloud-init Secret is replaced):
            # from the cache, not one GET per pass; a changed Secret is an event for its Machines.
            r.SECRET: Informer(guest, r.SECRET, ns),
        }
        self.dvp_informers = {
            r.VIRTUAL_MACHINE: Informer(dvp.client, r.VIRTUAL_MACHINE, dvp_ns, label_selector=ours),
            r.VIRTUAL_DISK: Informer(dvp.client, r.VIRTUAL_DISK, dvp_ns, label_selector=ours),
            # No informer on DVP Secrets: list/watch would read every Secret of the project (other clusters'
            # cloud-init data included); cloud-init Secrets are read by name.
        }
        remember = {res: PREREQUISITE_MEMORY_S for res in (r.VIRTUAL_MACHINE_CLASS, *SOURCES.values())}
        cached = DVPConnection(CachedClient(dvp.client, self.dvp_informers, remember=remember), dvp.namespace,
                               dvp.cluster_uuid)
        ctx = Context(CachedClient(guest, self.guest_informers), project(cached), settings.reconcile)
        metrics = Metrics(self.registry)
        machine_metrics = MachineMetrics(self.registry, self.dvp_informers[r.VIRTUAL_MACHINE].items)
        ctx.on_adopt = machine_metrics.adopted
        self.machines = Controller("deckhousemachine", MachineReconciler(ctx, machine_metrics.provisioned).reconcile,
                                   workers=settings.workers, metrics=metrics)
        self.clusters = Controller("deckhousecluster", ClusterReconciler(ctx).reconcile, workers=1, metrics=metrics)
        self.templates = Controller("deckhousemachinetemplate", TemplateReconciler(ctx).reconcile, workers=1,
                                    metrics=metrics)
        self._wire()
        # Both sides' informers (a list: Secrets are watched on both, a dict by resource would drop one).
        self.informers = [*self.guest_informers.values(), *self.dvp_informers.values()]
        self.controllers = [self.machines, self.clusters, self.templates]
        self.webhook: WebhookServer | None = None
        if settings.webhook_bind:
            self.webhook = admission.server(settings.webhook_bind, settings.webhook_cert_dir, registry=self.registry)
            self.servers.append(self.webhook)

    # event wiring -------------------------------------------------------------------------------------------
    def _wire(self) -> None:
        ns = self.settings.watch_namespace
        def dm_changed(o: dict) -> None:
            self.machines.enqueue(o["metadata"]["namespace"], o["metadata"]["name"])
        # The DeckhouseMachine's status is ours alone: the echo of a status patch is not work (about half of the
        # passes of a scale-up), while a spec, metadata or resync event is.
        self.guest_informers[r.DECKHOUSE_MACHINE].add_handlers(
            dm_changed, lambda old, new: None if status_only(old, new) else dm_changed(new), dm_changed)
        self.guest_informers[r.DECKHOUSE_CLUSTER].add_handlers(
            *_on_any(lambda o: self.clusters.enqueue(o["metadata"]["namespace"], o["metadata"]["name"])))

        def template_changed(o: dict) -> None:
            self.templates.enqueue(o["metadata"]["namespace"], o["metadata"]["name"])
        # Its status is ours alone: the echo of our patch is no work.
        self.guest_informers[r.DECKHOUSE_MACHINE_TEMPLATE].add_handlers(
            template_changed, lambda old, new: None if status_only(old, new) else template_changed(new),
            lambda o: None)

        def machine_changed(m: dict) -> None:
            ref = (m.get("spec") or {}).get("infrastructureRef") or {}
            if ref.get("kind") == "DeckhouseMachine" and ref.get("name"):
                self.machines.enqueue(m["metadata"]["namespace"], ref["name"])
        self.guest_informers[r.MACHINE].add_handlers(*_on_any(machine_changed))

        # A Secret event finds its Machines by index: a scan of every Machine per Secret made a scale-up of n
        # machines (a bootstrap Secret each) cost O(n^2).
        self.guest_informers[r.MACHINE].add_index(BOOTSTRAP_INDEX, _bootstrap_secret)

        def bootstrap_changed(secret: dict) -> None:
            key = f"{secret['metadata'].get('namespace')}/{secret['metadata']['name']}"
            for m in self.guest_informers[r.MACHINE].by_index(BOOTSTRAP_INDEX, key):
                machine_changed(m)
        self.guest_informers[r.SECRET].add_handlers(*_on_any(bootstrap_changed))

        def cluster_changed(c: dict) -> None:
            name = c["metadata"]["name"]
            for dm in self.guest_informers[r.DECKHOUSE_MACHINE].items():
                if (dm["metadata"].get("labels") or {}).get(CLUSTER_NAME_LABEL) == name:
                    self.machines.enqueue(dm["metadata"]["namespace"], dm["metadata"]["name"])
            ref = (c.get("spec") or {}).get("infrastructureRef") or {}
            if ref.get("kind") == "DeckhouseCluster" and ref.get("name"):
                self.clusters.enqueue(c["metadata"]["namespace"], ref["name"])
        self.guest_informers[r.CLUSTER].add_handlers(*_on_any(cluster_changed))

        def dvp_changed(o: dict) -> None:
            host = (o["metadata"].get("labels") or {}).get(ownership.HOSTNAME)
            if host:
                self.machines.enqueue(ns, host)

        def dvp_updated(old: dict, new: dict) -> None:
            if not status_only(old, new, DVP_STATUS_READ) or _conditions_read(old) != _conditions_read(new):
                dvp_changed(new)
        for inf in self.dvp_informers.values():
            inf.add_handlers(dvp_changed, dvp_updated, dvp_changed)


BOOTSTRAP_INDEX = "bootstrap-secret"


def _bootstrap_secret(machine: dict) -> list[str]:
    """The namespace/name of the Machine's bootstrap data Secret (the Machine informer's index)."""
    name = ((machine.get("spec") or {}).get("bootstrap") or {}).get("dataSecretName")
    return [f"{machine['metadata'].get('namespace')}/{name}"] if name else []


def _on_any(fn: Callable[[dict], None]):
    return (fn, lambda old, new: fn(new), fn)
