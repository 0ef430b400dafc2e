# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Deadlines that hold whatever the other side does: `within(seconds, message)` ends its block with
`SourceError(message)` once the time is up, even inside a read that a registry feeds a byte every few seconds
(each read then keeps within its socket timeout, so only a clock over the whole block can end it).

In the main thread (the command line, and pytest) a real-time timer (SIGALRM) interrupts the block wherever it
is; blocks nest, the earliest end wins, and the timer and handler found on entry (pytest-timeout's) are put back
on the way out. Elsewhere `check()` between steps and `socket_timeout()` on every request bound it instead."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from . import SourceError


class DeadlineExceeded(SourceError):
    pass


@dataclass(eq=False)
class _Entry:
    at: float
    message: str


_local = threading.local()  # each thread its own blocks; the timer serves the main thread's
_saved: list[tuple] = []  # (handler, timer left, when) found on entering the main thread's outermost block


def _blocks() -> list[_Entry]:
    return _local.__dict__.setdefault("blocks", [])


def _main() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def _masked() -> Iterator[None]:
    if not _main():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})


def _arm() -> None:
    if _blocks():
        signal.setitimer(signal.ITIMER_REAL, max(min(e.at for e in _blocks()) - time.monotonic(), 0.001))


def _expired() -> _Entry | None:
    now = time.monotonic()
    for entry in _blocks():  # outermost first: of two ends passed, the wider block's is the one to name
        if entry.at <= now:
            return entry
    return None


def _unwind(entry: _Entry) -> None:
    """`entry` and every block inside it end now: their entries go before the error unwinds through them."""
    del _blocks()[_blocks().index(entry):]


def _fire(signum, frame) -> None:
    entry = _expired()
    if entry is None:
        _arm()
        return
    _unwind(entry)
    _arm()
    raise DeadlineExceeded(entry.message)


def check() -> None:
    """Raises the error of a block whose time is up (for threads the timer cannot interrupt)."""
    with _masked():
        entry = _expired()
        if entry is not None:
            _unwind(entry)
            if _main():
                _arm()
    if entry is not None:
        raise DeadlineExceeded(entry.message)


def remaining(cap: float) -> float:
    """The time left to the earliest end, at most `cap` (a socket timeout); never below a millisecond."""
    now = time.monotonic()
    return max(min([cap, *(e.at - now for e in _blocks())]), 0.001)


@contextlib.contextmanager
def within(seconds: float, message: str) -> Iterator[None]:
    entry = _Entry(time.monotonic() + seconds, message)
    main = _main()
    with _masked():
        if main and not _blocks():
            left, _ = signal.setitimer(signal.ITIMER_REAL, 0)
            _saved.append((signal.signal(signal.SIGALRM, _fire), left, time.monotonic()))
        _blocks().append(entry)
        if main:
            _arm()
    try:
        yield
        check()
    finally:
        with _masked():
            if entry in _blocks():
                _unwind(entry)
            if main and not _blocks() and _saved:
                signal.setitimer(signal.ITIMER_REAL, 0)
                handler, left, since = _saved.pop()
                signal.signal(signal.SIGALRM, handler)
                if left:
                    signal.setitimer(signal.ITIMER_REAL, max(left - (time.monotonic() - since), 0.001))
            elif main:
                _arm()
