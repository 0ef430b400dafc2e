# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Wiring: informers feed the controllers' queues; one leader at a time runs them.

Guest caches: Nodes, and for the LoadBalancer controller Services and EndpointSlices. DVP caches: VMs labelled
with our cluster UUID, Services labelled ours (cluster UUID + ccm). Each informer replays its cache every
`address_refresh` seconds, which is the full resync: it costs no DVP request. Health endpoints serve on every
replica; informers and controllers run on the leader only, and a leader that loses its lease exits.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from typing import Any

from dvp_common.dvp import DVPConnection
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import SERVICE as DVP_SERVICE
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube import KubeClient
from dvp_common.kube.resources import ENDPOINT_SLICE, NODE, SERVICE
from dvp_common.runtime import HealthServer, Informer, LeaderElector
from prometheus_client import CollectorRegistry

from dvp_ccm import settings as S
from dvp_ccm.cloud import Cloud, Prober
from dvp_ccm.controllers.context import Context
from dvp_ccm.controllers.lifecycle import LifecycleController
from dvp_ccm.controllers.node import NodeController
from dvp_ccm.controllers.service import ServiceController
from dvp_ccm.domain import instances as I
from dvp_ccm.domain import loadbalancer as LB
from dvp_ccm.events import EventRecorder
from dvp_ccm.probe import http_prober
from dvp_ccm.runner import Controller, Metrics

log = logging.getLogger("dvp_ccm")
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
Obj = dict[str, Any]


class Manager:
    def __init__(self, settings: S.Settings, guest: KubeClient, dvp: DVPConnection, *,
                 registry: CollectorRegistry | None = None, prober: Prober | None = None,
                 exit_on_lost_lease: Callable[[], None] | None = None, watch_timeout: int = 300) -> None:
        self.settings, self.guest, self.dvp = settings, guest, dvp
        self.registry = registry or CollectorRegistry()
        self.stop = threading.Event()
        self._exit = exit_on_lost_lease or (lambda: os._exit(1))
        lb = S.SERVICE in settings.controllers
        resync = settings.address_refresh
        kw = {"resync_period": resync, "watch_timeout": watch_timeout}
        self.nodes = Informer(guest, NODE, **kw)
        ours = {L.CLUSTER_UUID: dvp.cluster_uuid}
        self.vms = Informer(dvp.client, VIRTUAL_MACHINE, dvp.namespace, label_selector=ours, **kw)
        self.informers = [self.nodes, self.vms]
        self.services = self.slices = self.dvp_services = None
        if lb:
            self.services = Informer(guest, SERVICE, **kw)
            self.slices = Informer(guest, ENDPOINT_SLICE, watch_timeout=watch_timeout)
            self.dvp_services = Informer(dvp.client, DVP_SERVICE, dvp.namespace, watch_timeout=watch_timeout,
                                         label_selector={L.CLUSTER_UUID: dvp.cluster_uuid, L.COMPONENT: L.CCM})
            self.informers += [self.services, self.slices, self.dvp_services]
        cloud = Cloud(dvp, self.vms, self.dvp_services)
        events = EventRecorder(guest, socket.gethostname())
        self.ctx = Context(guest=guest, cloud=cloud, nodes=self.nodes, events=events,
                           services=self.services, slices=self.slices, lifecycle=settings.lifecycle,
                           default_region=settings.default_region, default_zone=settings.default_zone,
                           lb_annotation_prefixes=settings.lb_annotation_prefixes,
                           prober=prober or http_prober(settings.health_check_timeout))
        metrics = Metrics(self.registry)
        w = settings.workers
        self.controllers: dict[str, Controller] = {}
        if S.NODE in settings.controllers:
            self.controllers[S.NODE] = Controller(S.NODE, NodeController(self.ctx).reconcile, workers=w,
                                                  metrics=metrics)
        if S.LIFECYCLE in settings.controllers:
            self.controllers[S.LIFECYCLE] = Controller(S.LIFECYCLE, LifecycleController(self.ctx).reconcile,
                                                       workers=w, metrics=metrics)
        if lb:
            self.controllers[S.SERVICE] = Controller(S.SERVICE, ServiceController(self.ctx).reconcile, workers=w,
                                                     metrics=metrics)
        self._wire()
        self.health = HealthServer(settings.health_bind) if settings.health_bind else None
        self.metrics_server = HealthServer(settings.metrics_bind, self.registry) if settings.metrics_bind else None
        identity = f"{socket.gethostname()}_{uuid.uuid4()}"
        self.elector = LeaderElector(guest, settings.leader_election_id, settings.leader_election_namespace,
                                     identity, lease_duration=settings.lease_duration,
                                     renew_deadline=settings.renew_deadline, retry_period=settings.retry_period,
                                     on_started=self._lead, on_stopped=self._lost) \
            if settings.leader_elect else None
        self._threads: list[threading.Thread] = []
        self.leading = threading.Event()

    # event wiring ------------------------------------------------------------------------------------------
    def _enqueue_node(self, name: str) -> None:
        for c in (S.NODE, S.LIFECYCLE):
            if c in self.controllers and name:
                self.controllers[c].enqueue(name)

    def _enqueue_lb_services(self) -> None:
        if S.SERVICE in self.controllers and self.services is not None:
            for svc in self.services.items():
                if LB.wants_lb(svc) or LB.has_finalizer(svc):
                    self.controllers[S.SERVICE].enqueue(LB.key(svc))

    def _wire(self) -> None:
        def node_event(node: Obj) -> None:
            self._enqueue_node(I.name(node))

        def node_changed(old: Obj, new: Obj) -> None:
            self._enqueue_node(I.name(new))
            if LB.node_eligible(old) != LB.node_eligible(new):
                self._enqueue_lb_services()

        def node_set_changed(node: Obj) -> None:
            self._enqueue_node(I.name(node))
            self._enqueue_lb_services()

        self.nodes.add_handlers(node_set_changed, node_changed, node_set_changed)

        def vm_event(vm: Obj) -> None:  # a VM maps to its Node by the hostname label, or by name (providerID)
            self._enqueue_node(I.labels(vm).get(L.HOSTNAME, ""))
            if I.name(vm) != I.labels(vm).get(L.HOSTNAME):
                self._enqueue_node(I.name(vm))

        self.vms.add_handlers(vm_event, lambda old, new: vm_event(new), vm_event)
        if S.SERVICE not in self.controllers:
            return
        lbc = self.controllers[S.SERVICE]
        assert self.services is not None and self.slices is not None and self.dvp_services is not None

        def svc_event(svc: Obj) -> None:
            if LB.wants_lb(svc) or LB.has_finalizer(svc):
                lbc.enqueue(LB.key(svc))

        self.services.add_handlers(svc_event, lambda old, new: svc_event(new), lambda svc: lbc.enqueue(LB.key(svc)))

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

    # lifecycle ---------------------------------------------------------------------------------------------
    def _spawn(self, target: Callable[[], None], name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    def synced(self) -> bool:
        return all(i.synced.is_set() for i in self.informers)

    def _lead(self) -> None:
        log.info("leading: starting informers and controllers")
        for inf in self.informers:
            self._spawn(lambda inf=inf: inf.run(self.stop), f"informer-{inf.resource.plural}")
        # Controllers start once every cache is full: no decision is taken on a partial picture.
        self._spawn(self._start_controllers, "start-controllers")

    def _start_controllers(self) -> None:
        for inf in self.informers:
            while not inf.synced.wait(1.0):
                if self.stop.is_set():
                    return
        for c in self.controllers.values():
            c.start()
        self.leading.set()

    def _lost(self) -> None:
        if self.stop.is_set():
            return
        log.error("lost the leader lease; exiting so that a fresh process competes again")
        self._exit()

    def start(self) -> Manager:
        if self.health:
            self.health.add_liveness("ping", lambda: None)
            self.health.add_readiness("caches", lambda: None if self.elector is None or not self.elector.is_leader
                                      or self.synced() else "caches not synced")
            self.health.start()
        if self.metrics_server:
            self.metrics_server.start()
        if self.elector:
            self._spawn(lambda: self.elector.run(self.stop), "leader-election")
        else:
            self._lead()
        return self

    def shutdown(self) -> None:
        self.stop.set()
        for c in self.controllers.values():
            c.stop()
        for t in self._threads:
            t.join(5)
        for server in (self.health, self.metrics_server):
            if server:
                server.stop()
