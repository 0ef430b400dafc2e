# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it.

Expiry is judged by our own clock from the moment we last saw the lease record change, never by
comparing the holder's timestamps with our wall clock (the clocks of two pods need not agree).
"""

from __future__ import annotations

import datetime
import threading
import time
from collections.abc import Callable
from typing import Any

from ..kube.client import KubeClient
from ..kube.errors import Conflict, KubeError, NotFound
from ..kube.resources import LEASE
from ..rfc3339 import format_micro_time


class LeaderElector:
    def __init__(self, client: KubeClient, name: str, namespace: str, identity: str, *,
                 lease_duration: float = 15.0, renew_deadline: float = 10.0, retry_period: float = 2.0,
                 on_started: Callable[[], None] | None = None, on_stopped: Callable[[], None] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], datetime.datetime] = lambda: datetime.datetime.now(datetime.UTC)) -> None:
        if not lease_duration > renew_deadline > retry_period > 0:
            raise ValueError("leader election: need lease_duration > renew_deadline > retry_period > 0")
        self.client, self.name, self.namespace, self.identity = client, name, namespace, identity
        self.lease_duration, self.renew_deadline, self.retry_period = lease_duration, renew_deadline, retry_period
        self.on_started, self.on_stopped = on_started, on_stopped
        self.clock, self.wall = clock, wall
        self.is_leader = False
        self._observed: tuple[Any, ...] | None = None
        self._observed_at = 0.0
        self._last_renew = 0.0
        self.transitions_seen = 0

    def _spec(self, old: dict[str, Any] | None) -> dict[str, Any]:
        now = format_micro_time(self.wall())
        spec = dict(old or {})
        if spec.get("holderIdentity") != self.identity:
            spec["acquireTime"] = now
            spec["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + (1 if old else 0)
        spec.update(holderIdentity=self.identity, leaseDurationSeconds=int(self.lease_duration), renewTime=now)
        return spec

    def try_acquire_or_renew(self) -> bool:
        now = self.clock()
        try:
            lease = self.client.get(LEASE, self.name, self.namespace)
        except NotFound:
            body = {"metadata": {"name": self.name, "namespace": self.namespace}, "spec": self._spec(None)}
            try:
                self.client.create(LEASE, body, self.namespace)
            except Conflict:
                return False
            self._observe(body["spec"], now)
            return True
        spec = lease.get("spec") or {}
        self._observe(spec, now)
        holder = spec.get("holderIdentity") or ""
        duration = float(spec.get("leaseDurationSeconds") or self.lease_duration)
        if holder and holder != self.identity and now < self._observed_at + duration:
            return False
        lease["spec"] = self._spec(spec)
        try:
            self.client.replace(LEASE, lease, self.namespace)  # resourceVersion guards against a racing peer
        except Conflict:
            return False
        self._observe(lease["spec"], now)
        return True

    def _observe(self, spec: dict[str, Any], now: float) -> None:
        record = (spec.get("holderIdentity"), spec.get("renewTime"), spec.get("leaseTransitions"))
        if record != self._observed:
            self._observed, self._observed_at = record, now

    def tick(self) -> bool:
        """One attempt; fires on_started/on_stopped on transitions. Returns whether we lead now."""
        try:
            ok = self.try_acquire_or_renew()
        except KubeError:
            ok = False
        now = self.clock()
        if ok:
            self._last_renew = now
            if not self.is_leader:
                self.is_leader = True
                if self.on_started:
                    self.on_started()
        elif self.is_leader and now - self._last_renew >= self.renew_deadline:
            self.is_leader = False  # could not renew in time: someone else may take over now
            if self.on_stopped:
                self.on_stopped()
        return self.is_leader

    def release(self) -> None:
        """Give the lease up on a clean stop, so a peer takes over at once."""
        if not self.is_leader:
            return
        try:
            lease = self.client.get(LEASE, self.name, self.namespace)
            if (lease.get("spec") or {}).get("holderIdentity") == self.identity:
                lease["spec"].update(holderIdentity="", leaseDurationSeconds=1,
                                     renewTime=format_micro_time(self.wall()))
                self.client.replace(LEASE, lease, self.namespace)
        except KubeError:
            pass  # the lease expires on its own
        self.is_leader = False
        if self.on_stopped:
            self.on_stopped()

    def run(self, stop: threading.Event, sleep: Callable[[float], None] | None = None) -> None:
        sleep = sleep or (lambda s: stop.wait(s))
        while not stop.is_set():
            self.tick()
            sleep(self.retry_period)
        self.release()
