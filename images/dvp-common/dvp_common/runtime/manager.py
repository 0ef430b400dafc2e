# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The lifecycle every controller process shares.

Health, metrics and any other server (a webhook) run on every replica. Informers and controllers run on the
leader only, and a leader that loses its lease exits so that a fresh process competes again.

Cache sync policy: controllers start only once every informer has listed (as controller-runtime waits for
its caches). A controller reading a half-filled cache takes decisions on a partial picture: an absent VM
looks deleted, an absent Node looks new. The wait is bounded by `cache_sync_timeout`: a cache that cannot
fill (RBAC, a missing CRD) makes the process exit, and the restart backs off, rather than leading silently
without controllers. Readiness reports the unsynced caches meanwhile.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from prometheus_client import CollectorRegistry

from ..kube.client import KubeClient
from .controller import Controller
from .health import HealthServer
from .informer import Informer
from .leader import LeaderElector
from .settings import bind, log_level, setting

log = logging.getLogger(__name__)


class Server(Protocol):
    def start(self) -> object: ...

    def stop(self) -> None: ...


@dataclass(frozen=True, kw_only=True)
class ManagerSettings:
    """The settings every controller process has; a component redeclares a field to change its default."""

    kubeconfig: str = setting("", help="guest kubeconfig file (default: the in-cluster ServiceAccount)")
    log_level: str = log_level()
    leader_elect: bool = False
    leader_election_namespace: str = "d8-cloud-provider-dvp"
    leader_election_id: str = ""
    lease_duration: float = setting(15.0, flag="--leader-elect-lease-duration", positive=True)
    renew_deadline: float = setting(10.0, flag="--leader-elect-renew-deadline", positive=True)
    retry_period: float = setting(2.0, flag="--leader-elect-retry-period", positive=True)
    health_bind: str | None = bind(None, flag="--health-probe-bind-address")
    metrics_bind: str | None = bind(None, flag="--metrics-bind-address")
    workers: int = setting(4, minimum=1)
    cache_sync_timeout: float = setting(120.0, positive=True)

    def validate(self) -> object:
        if not self.lease_duration > self.renew_deadline > self.retry_period:
            raise ValueError("--leader-elect-lease-duration > --leader-elect-renew-deadline > "
                             "--leader-elect-retry-period is required")
        return None


class Manager:
    def __init__(self, settings: ManagerSettings, guest: KubeClient, *, registry: CollectorRegistry | None = None,
                 exit_on_lost_lease: Callable[[], None] | None = None) -> None:
        self.settings, self.guest = settings, guest
        self.registry = registry or CollectorRegistry()
        self.stop = threading.Event()
        self.leading = threading.Event()  # set once the controllers run
        self._exit = exit_on_lost_lease or (lambda: os._exit(1))
        self.informers: list[Informer] = []
        self.controllers: list[Controller] = []
        self.servers: list[Server] = []  # started on every replica, after health and metrics
        self.health = HealthServer(settings.health_bind) if settings.health_bind else None
        self.metrics_server = HealthServer(settings.metrics_bind, self.registry) if settings.metrics_bind else None
        identity = f"{socket.gethostname()}_{uuid.uuid4()}"
        self.elector = LeaderElector(guest, settings.leader_election_id, settings.leader_election_namespace,
                                     identity, lease_duration=settings.lease_duration,
                                     renew_deadline=settings.renew_deadline, retry_period=settings.retry_period,
                                     on_started=self._lead, on_stopped=self._lost) \
            if settings.leader_elect else None
        self._threads: list[threading.Thread] = []

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    def synced(self) -> bool:
        return all(i.synced.is_set() for i in self.informers)

    def unsynced(self) -> list[str]:
        return [i.resource.plural for i in self.informers if not i.synced.is_set()]

    def _ready(self) -> str | None:
        """A replica that does not lead is ready (it serves probes and webhooks); the leader once synced."""
        leads = self.elector is None or self.elector.is_leader
        return None if not leads or self.synced() else "caches not synced: " + ", ".join(self.unsynced())

    def _lead(self) -> None:
        log.info("leading: starting informers; controllers start once every cache is synced")
        for inf in self.informers:
            self._spawn(lambda inf=inf: inf.run(self.stop), f"informer-{inf.resource.plural}")
        self._spawn(self._start_controllers, "start-controllers")

    def _start_controllers(self) -> None:
        deadline = time.monotonic() + self.settings.cache_sync_timeout
        for inf in self.informers:
            while not inf.synced.wait(min(1.0, max(0.0, deadline - time.monotonic()))):
                if self.stop.is_set():
                    return
                if time.monotonic() >= deadline:
                    log.error("caches not synced within %gs (%s: %s); exiting", self.settings.cache_sync_timeout,
                              ", ".join(self.unsynced()), inf.last_error or "no answer")
                    self._exit()
                    return
        if self.stop.is_set():
            return
        for c in self.controllers:
            c.start()
        self.leading.set()
        log.info("caches synced: controllers started")

    def _lost(self) -> None:
        if self.stop.is_set():
            return
        log.error("lost the leader lease; exiting so that a fresh process competes again")
        self._exit()

    def start(self) -> Manager:
        if self.health:
            self.health.add_liveness("ping", lambda: None)
            self.health.add_readiness("caches", self._ready)
            self.health.start()
        if self.metrics_server:
            self.metrics_server.start()
        for server in self.servers:
            server.start()
        if self.elector:
            self._spawn(lambda: self.elector.run(self.stop), "leader-election")  # type: ignore[union-attr]
        else:
            self._lead()
        return self

    def shutdown(self) -> None:
        self.stop.set()
        for c in self.controllers:
            c.stop()
        for t in self._threads:
            t.join(5)
        for server in (self.health, self.metrics_server, *self.servers):
            if server:
                server.stop()
