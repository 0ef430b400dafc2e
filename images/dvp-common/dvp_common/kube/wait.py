# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Waits built on watches: one LIST for the state and resourceVersion, then a WATCH from there.

A wait costs two requests when nothing goes wrong, whatever its length; drops resume from the last
resourceVersion seen, 410 Gone re-lists, and the deadline bounds everything.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import Gone, Transient, WaitTimeout
from .resources import Resource
from .types import BOOKMARK, DELETED, summarize

if TYPE_CHECKING:
    from .client import KubeClient

Predicate = Callable[[dict[str, Any] | None], Any]


def wait_for(client: KubeClient, res: Resource, name: str, predicate: Predicate, timeout: float,
             namespace: str | None = None, *, describe: Callable[[dict[str, Any] | None], str] | None = None,
             ) -> dict[str, Any] | None:
    """Block until `predicate(obj)` is truthy (obj is None while the object does not exist) and return obj.

    The predicate may raise to end the wait early (e.g. a terminal failure condition). Raises WaitTimeout
    naming the object and the last state seen.
    """
    describe = describe or summarize
    what = f'{res.kind} "{namespace}/{name}"' if namespace else f'{res.kind} "{name}"'
    deadline = client.clock() + timeout
    by_name = f"metadata.name={name}"
    last: dict[str, Any] | None = None
    rv = ""
    relist = True
    quiet = 0  # streams that ended or broke without news in a row: back off before the next one

    def remaining() -> float:
        return deadline - client.clock()

    def expire() -> WaitTimeout:
        return WaitTimeout(what, timeout, describe(last))

    while True:
        if relist:
            try:
                page = client.list(res, namespace, field_selector=by_name)
            except Transient:
                if remaining() <= 0:
                    raise expire() from None
                client.sleep(min(client.retry.delay(quiet), max(0.0, remaining())))
                quiet += 1
                continue
            last = page.items[0] if page.items else None
            if predicate(last):
                return last
            rv, relist = page.resource_version, False
        left = remaining()
        if left <= 0:
            raise expire()
        news = False
        try:
            for event in client.watch(res, namespace, field_selector=by_name, resource_version=rv,
                                      timeout_seconds=math.ceil(left), allow_bookmarks=True):
                rv = event.resource_version or rv
                if event.type == BOOKMARK or event.name != name:
                    continue
                news = True
                last = None if event.type == DELETED else event.object
                if predicate(last):
                    return last
                if remaining() <= 0:
                    raise expire()
        except Gone:
            relist = True
            continue
        except Transient:
            pass
        if remaining() <= 0:
            raise expire()
        quiet = 0 if news else quiet + 1
        if quiet:
            client.sleep(min(client.retry.delay(quiet - 1), max(0.0, remaining())))
