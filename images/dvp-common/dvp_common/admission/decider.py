# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One AdmissionReview in, one out. Whatever the body or the rules do, the answer is an AdmissionReview with
the request's uid (when one was readable) within the deadline: a bad body is denied with code 400, a wrongly
typed field with 403 naming it, a failed or slow lookup and any internal error with 500 (fail closed; the
traceback goes to the log at error level), never a crash."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from ..kube.errors import KubeError
from . import review
from .verdict import Verdict

DEADLINE = 8.0  # seconds per request, below the shortest webhook timeoutSeconds (10) of our configurations
RULE_WORKERS = 8  # rules run here; a rule stuck in a lookup holds one worker until the client's own timeout

Handler = Callable[[review.Request, Any], Verdict]  # (request, the server's lookups) -> verdict


@dataclass(frozen=True)
class Route:
    """What one path admits: the kind (and API group) it serves, an optional type check of the fields its rule
    reads (a denial message or None), and the handler that gathers what the rule needs and calls it."""

    kind: str
    group: str
    handler: Handler
    check: Callable[[review.Request], str | None] | None = None


class Decider:
    """Runs rules in a bounded pool so that every request is answered by its deadline, even when a lookup
    hangs (the late rule finishes in the background and its verdict is dropped)."""

    def __init__(self, deadline: float = DEADLINE, workers: int = RULE_WORKERS,
                 logger: logging.Logger | None = None) -> None:
        self.deadline = deadline
        self.log = logger or logging.getLogger(__name__)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rule")

    def decide(self, body: bytes, route: Route, lookups: Any) -> tuple[int, dict[str, Any]]:
        """(HTTP status, AdmissionReview answer)."""
        try:
            req = review.parse(body)
        except review.BadReview as exc:
            self.log.warning("bad AdmissionReview: %s", exc)
            return (400 if exc.unparsable else 200), review.response(exc.uid, False, str(exc), code=400,
                                                                     api_version=exc.api_version)
        try:
            future = self._pool.submit(judge, req, route, lookups, self.log)
            verdict = future.result(timeout=self.deadline)
        except FutureTimeout:
            self.log.error("%s: no verdict within %g s (a lookup is slow); denied", req.ref(), self.deadline)
            verdict = Verdict.deny(f"{req.ref()}: cannot check the request now: no verdict within "
                                   f"{self.deadline:g} s", code=500)
        except RuntimeError as exc:  # the pool is shut down: the server is stopping
            verdict = Verdict.deny(f"{req.ref()}: cannot check the request now: {exc}", code=500)
        return 200, answer(req, verdict, self.log)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def judge(req: review.Request, route: Route, lookups: Any, log: logging.Logger | None = None) -> Verdict:
    log = log or logging.getLogger(__name__)
    if req.kind != route.kind or req.group != route.group:
        want = f"{route.kind}.{route.group}" if route.group else route.kind
        got = f"{req.kind}.{req.group}" if req.group else req.kind
        return Verdict.deny(f"this webhook admits {want} only, got {got[:120]}", code=400)
    bad_field = route.check(req) if route.check else None
    if bad_field:
        return Verdict.deny(bad_field)
    try:
        return route.handler(req, lookups)
    except KubeError as exc:
        return Verdict.deny(f"{req.ref()}: cannot check the request now: {exc}", code=500)
    except Exception as exc:  # noqa: BLE001 - a bug must deny one request (fail closed), not take the server down
        log.exception("%s: rule failed", req.ref())
        return Verdict.deny(f"{req.ref()}: internal error ({type(exc).__name__})", code=500)


def answer(req: review.Request, verdict: Verdict, log: logging.Logger | None = None) -> dict[str, Any]:
    (log or logging.getLogger(__name__)).info(
        "%s %s: %s%s", req.operation, req.ref(), "allowed" if verdict.allowed else "denied",
        f" ({verdict.message})" if verdict.message else "",
        extra={"uid": req.uid, "warnings": list(verdict.warnings), "patched": bool(verdict.patch)})
    return review.response(req.uid, verdict.allowed, verdict.message, verdict.warnings, verdict.patch,
                           verdict.code, req.api_version)


def decide(body: bytes, route: Route, lookups: Any, log: logging.Logger | None = None) -> dict[str, Any]:
    """The answer alone, the rule run in this thread (tests, and callers that bound time themselves)."""
    log = log or logging.getLogger(__name__)
    try:
        req = review.parse(body)
    except review.BadReview as exc:
        log.warning("bad AdmissionReview: %s", exc)
        return review.response(exc.uid, False, str(exc), code=400, api_version=exc.api_version)
    return answer(req, judge(req, route, lookups, log), log)
