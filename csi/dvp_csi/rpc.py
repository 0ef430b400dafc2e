# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Servicer helpers: required-field checks, call deadlines, and mapping our errors onto gRPC status codes."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

import grpc
from dvp_common.dvp.errors import DuplicateObjects, DVPFailure
from dvp_common.kube import errors as kube

from .domain.errors import CsiError, invalid

log = logging.getLogger(__name__)
# Leave the caller time to receive our answer before its own deadline fires.
DEADLINE_MARGIN = 0.5

# The one map from the DVP error taxonomy (dvp_common.kube.errors, dvp_common.dvp.errors) to gRPC codes; the
# first matching class wins, so subclasses come before their bases.
CODES: tuple[tuple[type[Exception], grpc.StatusCode, str], ...] = (
    (kube.Transient, grpc.StatusCode.UNAVAILABLE, "DVP API is unreachable: "),
    (kube.WaitTimeout, grpc.StatusCode.DEADLINE_EXCEEDED, ""),
    (kube.QuotaExceeded, grpc.StatusCode.RESOURCE_EXHAUSTED, ""),
    (kube.AdmissionDenied, grpc.StatusCode.FAILED_PRECONDITION, "DVP refused the request: "),
    (kube.Invalid, grpc.StatusCode.FAILED_PRECONDITION, "DVP refused the request: "),
    (kube.RBACDenied, grpc.StatusCode.PERMISSION_DENIED, "DVP denied our credentials: "),
    (kube.NotFound, grpc.StatusCode.NOT_FOUND, ""),  # NotOurs included: a foreign object reads as absent
    (kube.AlreadyExists, grpc.StatusCode.ALREADY_EXISTS, ""),
    # A uid precondition failed: the object was replaced since it was read; the caller retries on the new one.
    (kube.Conflict, grpc.StatusCode.ABORTED, "changed in DVP meanwhile, retry: "),
    (DuplicateObjects, grpc.StatusCode.FAILED_PRECONDITION, ""),
    (DVPFailure, grpc.StatusCode.INTERNAL, ""),
    (kube.KubeError, grpc.StatusCode.INTERNAL, "DVP API error: "),
)


def status_of(exc: Exception) -> tuple[grpc.StatusCode, str]:
    if isinstance(exc, CsiError):
        return exc.code, exc.message
    for cls, code, prefix in CODES:
        if isinstance(exc, cls):
            return code, f"{prefix}{exc}"
    return grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}: {exc}"


def handler(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(self: Any, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return fn(self, request, context)
        except (CsiError, kube.KubeError) as exc:
            code, message = status_of(exc)
            context.abort(code, message)
        except Exception as exc:  # a bug: answer INTERNAL with a one-line cause, keep the trace in the log
            log.exception("%s failed", fn.__name__)
            context.abort(*status_of(exc))

    return wrapper


def require(request: Any, *fields: str) -> None:
    """InvalidArgument naming the first missing field (empty string, unset message or empty list)."""
    method = type(request).__name__.removesuffix("Request")
    for field in fields:
        value = getattr(request, field)
        desc = request.DESCRIPTOR.fields_by_name[field]
        missing = (not request.HasField(field)) if (desc.message_type and not _repeated(desc)) else not value
        if missing:
            raise invalid(f"{method}: {field} is required")


def _repeated(desc: Any) -> bool:
    return getattr(desc, "is_repeated", None) if hasattr(desc, "is_repeated") else desc.label == desc.LABEL_REPEATED


def budget(context: grpc.ServicerContext, cap: float) -> float:
    """Seconds a wait may take: the configured cap, cut to the caller's deadline."""
    remaining = context.time_remaining() if context is not None else None
    if remaining is None:
        return cap
    return max(0.0, min(cap, remaining - DEADLINE_MARGIN))
