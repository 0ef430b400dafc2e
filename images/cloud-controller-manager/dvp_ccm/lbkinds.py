# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Which DVP kind backs guest LoadBalancers: ServiceWithHealthchecks when the parent allows it, else a Service.

`--load-balancer-kind`: `auto` asks DVP's API discovery whether `servicewithhealthchecks.network.deckhouse.io`
is served and, when it is, reads the parent's ModuleConfig `service-with-healthchecks`; the rule is
domain.parent_module's. One look (a discovery request and a GET, one more discovery on a 404) is kept
`--load-balancer-kind-recheck` seconds: a module switched on or off in the parent is followed without a restart,
and a resync costs no request per Service. `Service` or `ServiceWithHealthchecks` fix the kind (an operator whose
parent serves the kind without its controller running); a fixed `Service` still looks for our
ServiceWithHealthchecks made before, and moves them to plain Services.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from dvp_common.dvp.resources import MODULE_CONFIG, SERVICE_WITH_HEALTHCHECKS
from dvp_common.kube import Forbidden, KubeClient, KubeError, NotFound

from dvp_ccm.domain import parent_module as PM

log = logging.getLogger("dvp_ccm.service")
AUTO, SERVICE, HEALTHCHECKS = "auto", "Service", "ServiceWithHealthchecks"
MODES = (AUTO, SERVICE, HEALTHCHECKS)


@dataclass(frozen=True)
class Look:
    served: bool  # DVP serves ServiceWithHealthchecks
    module: PM.Module | None  # the parent's module (auto mode, kind served); None: not read


class KindChooser:
    def __init__(self, client: KubeClient, mode: str = AUTO, recheck: float = 300.0, *,
                 clock: Callable[[], float] = time.monotonic,
                 on_served: Callable[[], None] | None = None) -> None:
        self.client, self.mode, self.recheck, self.clock = client, mode, recheck, clock
        self.on_served = on_served or (lambda: None)
        self._lock = threading.Lock()
        self._look: Look | None = None
        self._asked_at = 0.0
        self._said = self._warned = ""  # the last decision and complaint logged: once each, not per look

    def look(self) -> Look:
        """The cached look; a failed one keeps the last and, with none yet, raises (the reconcile retries with
        backoff)."""
        with self._lock:
            if self._look is not None and self.clock() - self._asked_at < self.recheck:
                return self._look
            look = self._look = self._refresh(self._look)
            self._asked_at = self.clock()
            if self.mode == AUTO:
                self._say(PM.explain(look.served, look.module))
        if look.served:
            self.on_served()
        return look

    def served(self) -> bool:
        """Whether DVP serves ServiceWithHealthchecks (cached)."""
        return self.look().served

    def healthchecks(self) -> bool:
        """Whether new and changed LoadBalancers use ServiceWithHealthchecks."""
        if self.mode == SERVICE:
            return False
        if self.mode == HEALTHCHECKS:
            return True
        look = self.look()
        return PM.use_healthchecks(look.served, look.module)

    def readable(self) -> bool:
        """Whether our ServiceWithHealthchecks may exist, to be read and removed: DVP serves the kind, in every mode
        (a forced Service mode still moves the ones an earlier mode made). There, a failed discovery counts as not
        served: plain Services never wait on discovery."""
        if self.mode != SERVICE:
            return self.served()
        try:
            return self.served()
        except KubeError as exc:
            log.info("API discovery of %s failed (%s); not looking for them now", SERVICE_WITH_HEALTHCHECKS, exc)
            return False

    def follow(self, stop: threading.Event, on_change: Callable[[], None]) -> None:
        """(auto) Look again every `recheck` seconds until `stop`; `on_change` when the kind served or the decision
        flips, so every LoadBalancer moves to the other kind without waiting for a resync or a restart."""
        if self.mode != AUTO:
            return
        last: tuple[bool, bool] | None = None
        while not stop.is_set():
            try:
                look = self.look()
                now: tuple[bool, bool] | None = (look.served, PM.use_healthchecks(look.served, look.module))
            except KubeError as exc:
                log.info("looking at the parent's %s failed: %s", SERVICE_WITH_HEALTHCHECKS, exc)
                now = last
            if last is not None and now != last:
                on_change()
            last = now
            stop.wait(self.recheck)

    def forget(self) -> None:
        """The kind answered 404 although discovery said served: look again at the next use."""
        with self._lock:
            self._look = None

    # the look ----------------------------------------------------------------------------------------------
    def _refresh(self, last: Look | None) -> Look:
        try:
            served = self.client.served(SERVICE_WITH_HEALTHCHECKS)
        except KubeError as exc:
            if last is None:
                raise
            log.info("API discovery of %s failed (%s); keeping the last answer", SERVICE_WITH_HEALTHCHECKS, exc)
            return last
        if self.mode != AUTO and (last is None or served != last.served):  # auto: the decision's line says it
            log.info("DVP %s %s", "serves" if served else "does not serve", SERVICE_WITH_HEALTHCHECKS)
        if self.mode != AUTO or not served:
            return Look(served, None)
        return Look(served, self._read_module(last.module if last else None))

    def _read_module(self, last: PM.Module | None) -> PM.Module:
        try:
            module = PM.state(self.client.get(MODULE_CONFIG, PM.NAME))
            self._warned = ""
            return module
        except NotFound:  # no such object, or no such kind: discovery tells which
            try:
                return PM.Module.ABSENT if self.client.served(MODULE_CONFIG) else PM.Module.NOT_DECKHOUSE
            except KubeError as exc:
                return self._keep(last, exc)
        except Forbidden:
            return PM.Module.FORBIDDEN
        except PM.BadModuleConfig as exc:
            if str(exc) != self._warned:
                self._warned = str(exc)
                log.warning("%s; %s", exc, "keeping the last answer" if last is not None else
                            "deciding by API discovery alone")
            return last if last is not None else PM.Module.INVALID
        except KubeError as exc:
            return self._keep(last, exc)

    def _keep(self, last: PM.Module | None, exc: KubeError) -> PM.Module:
        if last is None:
            raise exc
        log.info('reading the parent\'s ModuleConfig "%s" failed (%s); keeping the last answer', PM.NAME, exc)
        return last

    def _say(self, line: str) -> None:
        if line != self._said:
            self._said = line
            log.info("%s", line)
