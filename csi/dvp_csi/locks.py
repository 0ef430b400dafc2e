# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Per-key try-locks: a second operation on the same volume (or snapshot, or path) gets Aborted, never waits."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import grpc

from .domain.errors import CsiError


class TryLocks:
    def __init__(self) -> None:
        self._held: set[str] = set()
        self._mu = threading.Lock()

    @contextmanager
    def hold(self, *keys: str) -> Iterator[None]:
        with self._mu:
            busy = [k for k in keys if k in self._held]
            if busy:
                raise CsiError(grpc.StatusCode.ABORTED, f"an operation on {busy[0]} is already in progress")
            self._held.update(keys)
        try:
            yield
        finally:
            with self._mu:
                self._held.difference_update(keys)
