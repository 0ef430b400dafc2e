# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Total deadlines for HTTP exchanges.

requests bounds each socket operation, never a whole answer: a server that drips a byte just inside the read
timeout holds a request as long as it likes, in the headers or in the body. Here one watchdog thread per process
shuts down the socket of an exchange that outlives its deadline; the blocked read then fails at once and the
transport reports the deadline. The connection pool tells an exchange which connection it holds and takes it
back when the connection returns to the pool, so a late watchdog never touches a connection lent to another
request.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

RECHECK = 0.05  # seconds: an exchange still connecting when its deadline passed is looked at again this soon
# The watchdog wakes at most this often: deadlines are kept to this precision, and a busy client does not pay a
# thread switch per request.
RESOLUTION = 0.05

_current = threading.local()


def _shutdown(sock: Any) -> None:
    raw = getattr(sock, "socket", sock)  # urllib3's SSLTransport (TLS in TLS) wraps the real socket
    with contextlib.suppress(OSError, TypeError):
        # The plain socket's shutdown, not SSLSocket's: that one also drops the TLS object under a reader.
        socket.socket.shutdown(raw, socket.SHUT_RDWR)


class Exchange:
    """One request's claim on a connection, until the answer is read or the deadline passes."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self.finished = False
        self._conn: Any = None
        self._lock = threading.Lock()

    def attach(self, conn: Any) -> None:
        with self._lock:
            self._conn = conn
            if self.expired and not self.finished and getattr(conn, "sock", None) is not None:
                _shutdown(conn.sock)

    def detach(self, conn: Any) -> None:
        with self._lock:
            if self._conn is conn:
                self._conn = None

    def expire(self) -> bool:
        """Cut the exchange; False when there is no socket yet (connecting) and it should be tried again."""
        with self._lock:
            if self.finished:
                return True
            self.expired = True
            sock = getattr(self._conn, "sock", None)
            if sock is None:
                return False
            _shutdown(sock)
            return True

    def finish(self) -> None:
        with self._lock:
            self.finished, self._conn = True, None


class _Watchdog:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Exchange]] = []
        self._seq = itertools.count()
        self._thread: threading.Thread | None = None
        self._compact_at = 4096

    def arm(self, exchange: Exchange) -> None:
        with self._cond:
            heapq.heappush(self._heap, (time.monotonic() + exchange.seconds, next(self._seq), exchange))
            if len(self._heap) > self._compact_at:  # finished exchanges wait for their time to pass: drop them
                self._heap = [e for e in self._heap if not e[2].finished]
                heapq.heapify(self._heap)
                self._compact_at = max(4096, 2 * len(self._heap))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="dvp-common-deadlines", daemon=True)
                self._thread.start()
            if self._heap[0][2] is exchange:  # the earliest now: the watchdog must wake sooner than it planned
                self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                while self._heap and (self._heap[0][2].finished or self._heap[0][0] <= now):
                    _, _, exchange = heapq.heappop(self._heap)
                    if not exchange.expire():
                        heapq.heappush(self._heap, (now + RECHECK, next(self._seq), exchange))
                self._cond.wait(max(self._heap[0][0] - now, RESOLUTION) if self._heap else None)


_WATCHDOG = _Watchdog()


@contextlib.contextmanager
def bounded(seconds: float) -> Iterator[Exchange]:
    """Every connection this thread takes from a DeadlineAdapter pool inside the block is cut `seconds` after
    the block starts."""
    exchange = Exchange(seconds)
    previous = getattr(_current, "exchange", None)
    _current.exchange = exchange
    _WATCHDOG.arm(exchange)
    try:
        yield exchange
    finally:
        exchange.finish()
        _current.exchange = previous


class _Tracking:
    def _get_conn(self, timeout: float | None = None) -> Any:
        conn = super()._get_conn(timeout)  # type: ignore[misc]
        exchange = getattr(_current, "exchange", None)
        if exchange is not None:
            conn._dvp_exchange = exchange
            exchange.attach(conn)
        return conn

    def _put_conn(self, conn: Any) -> None:
        exchange = getattr(conn, "_dvp_exchange", None)
        if exchange is not None:
            exchange.detach(conn)
            conn._dvp_exchange = None
        super()._put_conn(conn)  # type: ignore[misc]


class _HTTPPool(_Tracking, HTTPConnectionPool):
    pass


class _HTTPSPool(_Tracking, HTTPSConnectionPool):
    pass


POOLS = {"http": _HTTPPool, "https": _HTTPSPool}


class DeadlineAdapter(HTTPAdapter):
    """requests' adapter with pools that report their connections to the current exchange."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(POOLS)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):  # SOCKS pools are their own classes: read timeouts only
            manager.pool_classes_by_scheme = dict(POOLS)
        return manager
