# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A small Kubernetes REST client on `requests` (see images/dvp-common/README.md for why not the official one)."""

from .client import PATCH_TYPES, KubeClient, Watch, get_or_none
from .config import Credentials
from .errors import (
    AdmissionDenied,
    AlreadyExists,
    ApiError,
    BadRequest,
    ConfigError,
    Conflict,
    Forbidden,
    Gone,
    Invalid,
    KubeError,
    NotFound,
    QuotaExceeded,
    RBACDenied,
    Transient,
    Unauthorized,
    WaitTimeout,
)
from .faults import Fault, RandomFaults, RequestInfo, ScriptedFaults
from .metrics import RequestMetrics
from .names import InvalidName
from .resources import Resource
from .retry import NO_RETRY, RetryPolicy
from .types import ADDED, BOOKMARK, DELETED, MODIFIED, ListResult, WatchEvent, meta, summarize

__all__ = [
    "ADDED", "BOOKMARK", "DELETED", "MODIFIED", "NO_RETRY", "PATCH_TYPES",
    "AdmissionDenied", "AlreadyExists", "ApiError", "BadRequest", "ConfigError", "Conflict", "Credentials",
    "Fault", "Forbidden", "Gone", "Invalid", "InvalidName", "KubeClient", "KubeError", "ListResult", "NotFound",
    "QuotaExceeded",
    "RBACDenied", "RandomFaults", "RequestInfo", "RequestMetrics", "Resource", "RetryPolicy", "ScriptedFaults",
    "Transient", "Unauthorized", "WaitTimeout", "Watch", "WatchEvent", "get_or_none", "meta", "summarize",
]
