# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Which DVP kind backs guest LoadBalancers: ServiceWithHealthchecks when the parent serves it, else a Service.

`--load-balancer-kind`: `auto` asks DVP's API discovery whether `servicewithhealthchecks.network.deckhouse.io`
is served and keeps the answer `--load-balancer-kind-recheck` seconds (a module switched on or off in the parent
is followed without a restart, and a resync costs no discovery request per Service); `Service` or
`ServiceWithHealthchecks` fix the kind (an operator whose parent serves the kind without its controller running);
a fixed `Service` still looks for our ServiceWithHealthchecks made before, and moves them to plain Services.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from dvp_common.dvp.resources import SERVICE_WITH_HEALTHCHECKS
from dvp_common.kube import KubeClient, KubeError

log = logging.getLogger("dvp_ccm.service")
AUTO, SERVICE, HEALTHCHECKS = "auto", "Service", "ServiceWithHealthchecks"
MODES = (AUTO, SERVICE, HEALTHCHECKS)


class KindChooser:
    def __init__(self, client: KubeClient, mode: str = AUTO, recheck: float = 300.0, *,
                 clock: Callable[[], float] = time.monotonic,
                 on_served: Callable[[], None] | None = None) -> None:
        self.client, self.mode, self.recheck, self.clock = client, mode, recheck, clock
        self.on_served = on_served or (lambda: None)
        self._lock = threading.Lock()
        self._answer: bool | None = None
        self._asked_at = 0.0

    def served(self) -> bool:
        """Whether DVP serves ServiceWithHealthchecks (cached); a failed discovery keeps the last answer and,
        with none yet, raises (the reconcile retries with backoff)."""
        with self._lock:
            if self._answer is not None and self.clock() - self._asked_at < self.recheck:
                return self._answer
            try:
                answer = self.client.served(SERVICE_WITH_HEALTHCHECKS)
            except KubeError as exc:
                if self._answer is None:
                    raise
                log.info("API discovery of %s failed (%s); keeping the last answer", SERVICE_WITH_HEALTHCHECKS, exc)
                self._asked_at = self.clock()
                return self._answer
            if answer != self._answer:
                log.info("DVP %s %s", "serves" if answer else "does not serve", SERVICE_WITH_HEALTHCHECKS)
            self._answer, self._asked_at = answer, self.clock()
        if answer:
            self.on_served()
        return answer

    def healthchecks(self) -> bool:
        """Whether new and changed LoadBalancers use ServiceWithHealthchecks."""
        if self.mode == SERVICE:
            return False
        if self.mode == HEALTHCHECKS:
            return True
        return self.served()

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
        """(auto) Ask discovery every `recheck` seconds until `stop`; `on_change` when the answer flips, so every
        LoadBalancer moves to the other kind without waiting for a resync or a restart."""
        if self.mode != AUTO:
            return
        last: bool | None = None
        while not stop.is_set():
            try:
                now = self.served()
            except KubeError as exc:
                log.info("API discovery of %s failed: %s", SERVICE_WITH_HEALTHCHECKS, exc)
                now = last
            if last is not None and now != last:
                on_change()
            last = now
            stop.wait(self.recheck)

    def forget(self) -> None:
        """The kind answered 404 although discovery said served: ask again at the next use."""
        with self._lock:
            self._answer = None
