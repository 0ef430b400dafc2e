# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""GetCapacity and CreateVolume's quota check from a watch of the project's ResourceQuotas.

The informer starts on first use and answers from its cache afterwards: no DVP request per call in steady state.
Until its first list has arrived (bounded) the answer is UNAVAILABLE, never a guess.
"""

from __future__ import annotations

import logging
import threading
import time

import grpc
from dvp_common.dvp.resources import RESOURCE_QUOTA
from dvp_common.quantity import format_bytes
from dvp_common.runtime.informer import Informer

from .access import Dvp
from .domain.errors import CsiError
from .domain.quota import headroom

log = logging.getLogger(__name__)
# What GetCapacity reports for a class no quota limits (the int64 maximum of the CSI field): "as much as asked".
UNLIMITED = (1 << 63) - 1


class QuotaWatch:
    def __init__(self, dvp: Dvp, sync_timeout: float = 10.0) -> None:
        self.informer = Informer(dvp.conn.client, RESOURCE_QUOTA, dvp.conn.namespace, watch_timeout=60)
        self.sync_timeout = sync_timeout
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._sync_deadline = 0.0

    def _wait_synced(self) -> bool:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self.informer.run, args=(self._stop,), name="quota-watch",
                                                daemon=True)
                self._thread.start()
                self._sync_deadline = time.monotonic() + self.sync_timeout
        if self.informer.synced.is_set():
            return True
        # every call waits for the first list until one deadline, none after it (a Role without resourcequotas
        # must not make each call slow)
        return self.informer.synced.wait(max(0.0, self._sync_deadline - time.monotonic()))

    def _synced(self) -> None:
        if not self._wait_synced():
            raise CsiError(grpc.StatusCode.UNAVAILABLE, "DVP ResourceQuotas are not read yet "
                           f"({self.informer.last_error or 'no answer'}); retry")

    def available(self, storage_class: str) -> int | None:
        """Bytes a new disk of this DVP class may take; None when no quota limits it."""
        self._synced()
        return headroom(self.informer.items(), storage_class)

    def capacity(self, storage_class: str) -> int:
        free = self.available(storage_class)
        return UNLIMITED if free is None else free

    def check_room(self, name: str, storage_class: str, size: int) -> None:
        """RESOURCE_EXHAUSTED before any DVP write when the project's quota cannot take the disk. While the quotas
        cannot be read (e.g. a DVP Role without them) nothing is refused here: DVP still enforces its quota."""
        if not self._wait_synced():
            log.warning("volume %s: DVP ResourceQuotas not readable (%s); leaving the quota check to DVP", name,
                        self.informer.last_error or "no answer")
            return
        free = headroom(self.informer.items(), storage_class)
        if free is not None and size > free:
            raise CsiError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           f"volume {name}: {format_bytes(size)} on DVP storage class {storage_class} exceeds the "
                           f"project's ResourceQuota headroom ({format_bytes(free)} left)")

    def close(self, timeout: float = 10.0) -> None:
        """Stop the watch and wait (bounded) for its thread: a request still in flight after close would outlive
        the connection settings it was made with."""
        self._stop.set()
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
