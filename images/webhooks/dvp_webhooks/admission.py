# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One AdmissionReview in, one out. Whatever the body or the lookups do, the answer is an AdmissionReview:
a bad body is denied with code 400, a failed lookup with 500 (the message says which), never a crash."""

from __future__ import annotations

import logging
from typing import Any

from dvp_common.kube import KubeError

from .domain import review
from .domain.verdict import Verdict
from .handlers import Route
from .lookups import Lookups

log = logging.getLogger("dvp_webhooks")


def decide(body: bytes, route: Route, lookups: Lookups) -> dict[str, Any]:
    try:
        req = review.parse(body)
    except review.BadReview as exc:
        log.warning("bad AdmissionReview: %s", exc)
        return review.response(exc.uid, False, str(exc), code=400)
    if req.kind != route.kind or req.group != route.group:
        want = f"{route.kind}.{route.group}" if route.group else route.kind
        got = f"{req.kind}.{req.group}" if req.group else req.kind
        return review.response(req.uid, False, f"this webhook admits {want} only, got {got}", code=400)
    try:
        verdict = route.handler(req, lookups)
    except KubeError as exc:
        verdict = Verdict.deny(f"{req.ref()}: cannot check the request now: {exc}", code=500)
    except Exception as exc:  # noqa: BLE001 - a bug must deny one request, not take the server down
        log.exception("%s: rule failed", req.ref())
        verdict = Verdict.deny(f"{req.ref()}: internal error ({type(exc).__name__})", code=500)
    log.info("%s %s: %s%s", req.operation, req.ref(), "allowed" if verdict.allowed else "denied",
             f" ({verdict.message})" if verdict.message else "",
             extra={"uid": req.uid, "warnings": list(verdict.warnings), "patched": bool(verdict.patch)})
    return review.response(req.uid, verdict.allowed, verdict.message, verdict.warnings, verdict.patch,
                           verdict.code)
