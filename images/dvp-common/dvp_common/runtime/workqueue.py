# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A work queue for controllers: deduplicated keys, one worker per key at a time, rate-limited requeues.

Semantics follow client-go's workqueue: a key added while queued is merged; a key added while being
processed is queued again when `done` is called, so two workers never hold the same key.
"""

from __future__ import annotations

import heapq
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable


class QueueFull(Exception):
    """The queue holds `max_size` distinct keys already."""


class ShutDown(Exception):
    pass


class WorkQueue:
    def __init__(self, *, max_size: int = 10_000, base_delay: float = 0.05, max_delay: float = 300.0,
                 jitter: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_size, self.base_delay, self.max_delay, self.jitter = max_size, base_delay, max_delay, jitter
        self.clock = clock
        self._queue: deque[Hashable] = deque()
        self._dirty: set[Hashable] = set()  # queued (or to be re-queued after processing)
        self._processing: set[Hashable] = set()
        self._delayed: list[tuple[float, int, Hashable]] = []
        self._seq = 0
        self._failures: dict[Hashable, int] = {}
        self._cond = threading.Condition()
        self._shutdown = False

    def __len__(self) -> int:
        with self._cond:
            return len(self._queue)

    def idle(self) -> bool:
        """Nothing queued and nothing being processed (keys waiting out a delay are not counted)."""
        with self._cond:
            return not self._queue and not self._processing

    def add(self, key: Hashable) -> None:
        with self._cond:
            self._add(key)

    def _add(self, key: Hashable) -> None:
        if self._shutdown or key in self._dirty:
            return
        if len(self._dirty) >= self.max_size:
            raise QueueFull(f"work queue full ({self.max_size} keys); dropping {key!r}")
        self._dirty.add(key)
        if key not in self._processing:
            self._queue.append(key)
            self._cond.notify()

    def add_after(self, key: Hashable, delay: float) -> None:
        if delay <= 0:
            self.add(key)
            return
        with self._cond:
            self._seq += 1
            heapq.heappush(self._delayed, (self.clock() + delay, self._seq, key))
            self._cond.notify()

    def add_rate_limited(self, key: Hashable) -> float:
        """Requeue after a per-key exponential backoff (base * 2^failures, capped); returns the delay."""
        with self._cond:
            n = self._failures.get(key, 0)
            self._failures[key] = n + 1
        delay = min(self.max_delay, self.base_delay * (2**n))
        if self.jitter:
            delay = random.uniform(delay / 2, delay)  # noqa: S311 - not cryptographic
        self.add_after(key, delay)
        return delay

    def forget(self, key: Hashable) -> None:
        """The key succeeded: its backoff starts over."""
        with self._cond:
            self._failures.pop(key, None)

    def failures(self, key: Hashable) -> int:
        with self._cond:
            return self._failures.get(key, 0)

    def _promote(self) -> float | None:
        """Move due delayed keys into the queue; seconds until the next one is due."""
        now = self.clock()
        while self._delayed and self._delayed[0][0] <= now:
            _, _, key = heapq.heappop(self._delayed)
            self._add(key)
        return self._delayed[0][0] - now if self._delayed else None

    def get(self, timeout: float | None = None) -> Hashable | None:
        """The next key (now marked processing), or None on timeout. Raises ShutDown once shut down."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                if self._shutdown:
                    raise ShutDown
                next_due = self._promote()
                if self._queue:
                    key = self._queue.popleft()
                    self._processing.add(key)
                    self._dirty.discard(key)
                    return key
                waits = [w for w in (next_due, None if deadline is None else deadline - time.monotonic())
                         if w is not None]
                wait = min(waits) if waits else None
                if wait is not None and wait <= 0 and deadline is not None and time.monotonic() >= deadline:
                    return None
                self._cond.wait(None if wait is None else max(0.0, min(wait, 1.0)))

    def done(self, key: Hashable) -> None:
        with self._cond:
            self._processing.discard(key)
            if key in self._dirty:
                self._queue.append(key)
                self._cond.notify()

    def shutdown(self) -> None:
        with self._cond:
            self._shutdown = True
            self._cond.notify_all()
