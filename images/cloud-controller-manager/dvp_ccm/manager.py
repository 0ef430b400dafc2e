# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Wiring: informers feed the controllers' queues; one leader at a time runs them.

Guest caches: Nodes, and for the LoadBalancer controller Services and EndpointSlices. DVP caches: VMs labelled
with our cluster UUID, Services labelled ours (cluster UUID + ccm). Each informer replays its cache every
`address_refresh` seconds, which is the full resync: it costs no DVP request. The lifecycle (leader election,
health, metrics, the cache sync policy) is dvp_common.runtime.manager's.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable
from typing import Any

from dvp_common.dvp import DVPConnection
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import SERVICE as DVP_SERVICE
from dvp_common.dvp.resources import SERVICE_WITH_HEALTHCHECKS, VIRTUAL_MACHINE
from dvp_common.kube import KubeClient
from dvp_common.kube.resources import ENDPOINT_SLICE, NODE, SERVICE
from dvp_common.runtime import Informer
from dvp_common.runtime.manager import Manager as Lifecycle
from prometheus_client import CollectorRegistry

from dvp_ccm import indexes, lb_metrics
from dvp_ccm import settings as S
from dvp_ccm.cloud import Cloud, Prober
from dvp_ccm.controllers.context import Context
from dvp_ccm.controllers.lifecycle import LifecycleController
from dvp_ccm.controllers.node import NodeController
from dvp_ccm.controllers.service import BACKENDS, ServiceController
from dvp_ccm.domain import instances as I
from dvp_ccm.domain import loadbalancer as LB
from dvp_ccm.events import EventRecorder
from dvp_ccm.lbkinds import KindChooser
from dvp_ccm.probe import http_prober
from dvp_ccm.runner import Controller, Metrics

log = logging.getLogger("dvp_ccm")
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
Obj = dict[str, Any]


class Manager(Lifecycle):
    settings: S.Settings

    def __init__(self, settings: S.Settings, guest: KubeClient, dvp: DVPConnection, *,
                 registry: CollectorRegistry | None = None, prober: Prober | None = None,
                 exit_on_lost_lease: Callable[[], None] | None = None, watch_timeout: int = 300) -> None:
        super().__init__(settings, guest, registry=registry, exit_on_lost_lease=exit_on_lost_lease)
        self.dvp = dvp
        lb = S.SERVICE in settings.controllers
        resync = settings.address_refresh
        kw = {"resync_period": resync, "watch_timeout": watch_timeout}
        self.nodes = Informer(guest, NODE, **kw)
        ours = {L.CLUSTER_UUID: dvp.cluster_uuid}
        self.vms = Informer(dvp.client, VIRTUAL_MACHINE, dvp.namespace, label_selector=ours, **kw)
        self.informers = [self.nodes, self.vms]
        self.services = self.slices = self.dvp_services = self.dvp_healthchecks = None
        self.kinds = KindChooser(dvp.client, settings.load_balancer_kind, settings.load_balancer_kind_recheck,
                                 on_served=self._start_healthchecks_informer)
        self._healthchecks_started, self._healthchecks_lock = False, threading.Lock()
        if lb:
            ccm_objects = {L.CLUSTER_UUID: dvp.cluster_uuid, L.COMPONENT: L.CCM}
            self.services = Informer(guest, SERVICE, **kw)
            self.slices = Informer(guest, ENDPOINT_SLICE, watch_timeout=watch_timeout)
            self.dvp_services = Informer(dvp.client, DVP_SERVICE, dvp.namespace, watch_timeout=watch_timeout,
                                         label_selector=ccm_objects)
            self.informers += [self.services, self.slices, self.dvp_services]
            # started only once DVP is seen to serve the kind: an informer of an unserved kind would never sync
            self.dvp_healthchecks = Informer(dvp.client, SERVICE_WITH_HEALTHCHECKS, dvp.namespace,
                                             watch_timeout=watch_timeout, label_selector=ccm_objects)
            indexes.install(self.vms, self.nodes, self.services, [self.dvp_services, self.dvp_healthchecks])
        else:
            indexes.install(self.vms)
        cloud = Cloud(dvp, self.vms, self.dvp_services, self.dvp_healthchecks)
        if self.dvp_healthchecks is not None:
            cloud.healthchecks_synced = self.dvp_healthchecks.synced.is_set
        cloud.healthchecks_served = self.kinds.readable
        events = EventRecorder(guest, socket.gethostname())
        self.ctx = Context(guest=guest, cloud=cloud, nodes=self.nodes, events=events,
                           services=self.services, slices=self.slices, lifecycle=settings.lifecycle,
                           default_region=settings.default_region, default_zone=settings.default_zone,
                           internal_network=settings.internal_network,
                           lb_annotation_prefixes=settings.lb_annotation_prefixes,
                           prober=prober or http_prober(settings.health_check_timeout),
                           use_healthchecks=self.kinds.healthchecks, healthchecks=settings.healthchecks,
                           kind_not_served=self.kinds.forget)
        metrics = Metrics(self.registry)
        w = settings.workers
        self.by_name: dict[str, Controller] = {}
        if S.NODE in settings.controllers:
            self.by_name[S.NODE] = Controller(S.NODE, NodeController(self.ctx).reconcile, workers=w,
                                                  metrics=metrics)
        if S.LIFECYCLE in settings.controllers:
            self.by_name[S.LIFECYCLE] = Controller(S.LIFECYCLE, LifecycleController(self.ctx).reconcile,
                                                       workers=w, metrics=metrics)
        if lb:
            assert self.services is not None
            lb_metrics.register(self.registry, self.services.items)
            self.ctx.adopted = lb_metrics.adoptions(self.registry)
            self.by_name[S.SERVICE] = Controller(S.SERVICE, ServiceController(self.ctx).reconcile, workers=w,
                                                     metrics=metrics)
        self.controllers = list(self.by_name.values())
        self._wire()

    def _lead(self) -> None:
        super()._lead()
        if S.SERVICE in self.by_name:
            self._spawn(lambda: self.kinds.follow(self.stop, self._enqueue_lb_services), "load-balancer-kind")

    def _start_healthchecks_informer(self) -> None:
        with self._healthchecks_lock:
            if self.dvp_healthchecks is None or self._healthchecks_started or self.stop.is_set():
                return
            self._healthchecks_started = True
        inf = self.dvp_healthchecks
        self._spawn(lambda: inf.run(self.stop), f"informer-{inf.resource.plural}")

    # event wiring ------------------------------------------------------------------------------------------
    def _enqueue_node(self, name: str) -> None:
        for c in (S.NODE, S.LIFECYCLE):
            if c in self.by_name and name:
                self.by_name[c].enqueue(name)

    def _enqueue_lb_services(self) -> None:
        if S.SERVICE in self.by_name and self.services is not None:
            for svc in self.services.items():
                if LB.wants_lb(svc) or LB.has_finalizer(svc):
                    self.by_name[S.SERVICE].enqueue(LB.key(svc))

    def _node_set_changed(self) -> None:
        """The eligible nodes changed: the shared backends, and each Service that filters them."""
        if S.SERVICE in self.by_name and self.services is not None:
            self.by_name[S.SERVICE].enqueue(BACKENDS)
            for svc in self.services.by_index(indexes.SERVICE_BACKENDS, LB.FILTERED):
                self.by_name[S.SERVICE].enqueue(LB.key(svc))

    def _wire(self) -> None:
        def node_event(node: Obj) -> None:
            self._enqueue_node(I.name(node))

        def node_changed(old: Obj, new: Obj) -> None:
            self._enqueue_node(I.name(new))
            if LB.node_eligible(old) != LB.node_eligible(new):
                self._node_set_changed()

        def node_set_changed(node: Obj) -> None:
            self._enqueue_node(I.name(node))
            self._node_set_changed()

        self.nodes.add_handlers(node_set_changed, node_changed, node_set_changed)

        def vm_event(vm: Obj) -> None:  # a VM maps to its Node by the hostname label, or by name (providerID)
            self._enqueue_node(I.labels(vm).get(L.HOSTNAME, ""))
            if I.name(vm) != I.labels(vm).get(L.HOSTNAME):
                self._enqueue_node(I.name(vm))
            if S.SERVICE in self.by_name:  # its address or labels may change what the shared label should be on
                self.by_name[S.SERVICE].enqueue(BACKENDS)

        self.vms.add_handlers(vm_event, lambda old, new: vm_event(new), vm_event)
        if S.SERVICE not in self.by_name:
            return
        lbc = self.by_name[S.SERVICE]
        assert self.services is not None and self.slices is not None and self.dvp_services is not None

        def svc_event(svc: Obj) -> None:
            if LB.wants_lb(svc) or LB.has_finalizer(svc):
                lbc.enqueue(LB.key(svc))

        def svc_added(svc: Obj) -> None:
            svc_event(svc)
            if indexes.service_backends(svc) == [LB.SHARED]:
                lbc.enqueue(BACKENDS)

        def svc_changed(old: Obj, new: Obj) -> None:
            svc_event(new)
            if indexes.service_backends(old) != indexes.service_backends(new):
                lbc.enqueue(BACKENDS)

        def svc_deleted(svc: Obj) -> None:
            lbc.enqueue(LB.key(svc))
            if indexes.service_backends(svc) == [LB.SHARED]:
                lbc.enqueue(BACKENDS)

        self.services.add_handlers(svc_added, svc_changed, svc_deleted)

        def slice_event(es: Obj) -> None:  # ETP Local: the backing nodes follow the endpoints
            ns, svc_name = es["metadata"].get("namespace"), I.labels(es).get(SERVICE_NAME_LABEL)
            svc = self.services.get(f"{ns}/{svc_name}") if svc_name else None
            if svc is not None and LB.local_traffic(svc) is not None:
                lbc.enqueue(LB.key(svc))

        self.slices.add_handlers(slice_event, lambda old, new: slice_event(new), slice_event)

        def dvp_svc_event(obj: Obj) -> None:
            guest_key = (obj["metadata"].get("annotations") or {}).get(LB.GUEST_SERVICE)
            if guest_key:
                lbc.enqueue(guest_key)

        self.dvp_services.add_handlers(dvp_svc_event, lambda old, new: dvp_svc_event(new), dvp_svc_event)
        assert self.dvp_healthchecks is not None
        self.dvp_healthchecks.add_handlers(dvp_svc_event, lambda old, new: dvp_svc_event(new), dvp_svc_event)
