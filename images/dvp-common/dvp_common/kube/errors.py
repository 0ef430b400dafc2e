# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""API errors mapped onto our own exceptions. Messages are one line and never carry credentials."""

from __future__ import annotations

import json
import re
from typing import Any


def _one_line(text: str, limit: int = 400) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class KubeError(Exception):
    """Base of every error raised by dvp_common.kube."""


class ConfigError(KubeError, ValueError):
    """Credentials or kubeconfig are unusable (the message names the field, never its value)."""


class ApiError(KubeError):
    status: int = 0

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        reason: str = "",
        kind: str = "",
        name: str = "",
        namespace: str = "",
        verb: str = "",
        retry_after: float | None = None,
    ) -> None:
        self.status = self.status if status is None else status
        self.reason = reason
        self.message = _one_line(message)
        self.kind = kind
        self.name = name
        self.namespace = namespace
        self.verb = verb
        self.retry_after = retry_after
        super().__init__(self._text())

    @property
    def object_ref(self) -> str:
        if not self.kind:
            return ""
        if self.name:
            return f'{self.kind} "{self.namespace}/{self.name}"' if self.namespace else f'{self.kind} "{self.name}"'
        return f'{self.kind} in namespace "{self.namespace}"' if self.namespace else self.kind

    def _text(self) -> str:
        head = " ".join(p for p in (self.verb, self.object_ref) if p)
        code = f"{self.status} {self.reason}".strip()
        return _one_line(f"{head}: {code}: {self.message}" if head else f"{code}: {self.message}")


class BadRequest(ApiError):
    status = 400


class Unauthorized(ApiError):
    status = 401


class Forbidden(ApiError):
    status = 403


class AdmissionDenied(Forbidden):
    """403 from an admission webhook or policy (DVP's validators): the object as written is refused, so repeating
    the request cannot help; the message is the validator's."""


class RBACDenied(Forbidden):
    """403 from the authorizer: our credentials lack `denied_verb` on `denied_resource`. An admin can grant it, so
    callers retry (with backoff) and name both in their status."""

    def __init__(self, message: str, **kw: Any) -> None:
        super().__init__(message, **kw)
        match = _RBAC.search(self.message)
        self.denied_verb = match.group("verb") if match else ""
        resource = match.group("resource") if match else ""
        group = (match.group("group") or "") if match else ""
        self.denied_resource = f"{resource}.{group}" if group else resource


class NotFound(ApiError):
    status = 404


class Conflict(ApiError):
    status = 409


class AlreadyExists(Conflict):
    """409 with reason AlreadyExists (a Conflict, so `except Conflict` also catches it)."""


class Gone(ApiError):
    """410: the watch resourceVersion is too old; re-list."""

    status = 410


class Invalid(ApiError):
    status = 422


class QuotaExceeded(ApiError):
    """403/422 refused by a ResourceQuota (or DVP's quota checks)."""

    status = 403


class Transient(ApiError):
    """429, 5xx, connection errors, timeouts and dropped watches: safe to retry later."""

    status = 0


class WaitTimeout(KubeError, TimeoutError):
    def __init__(self, what: str, timeout: float, last_state: str) -> None:
        self.what = what
        self.timeout = timeout
        self.last_state = last_state
        super().__init__(_one_line(f"timed out after {timeout:g}s waiting for {what}; last seen: {last_state}"))


# The two 403 shapes kube-apiserver writes. Authorizer: `<res> "<name>" is forbidden: User "<u>" cannot <verb>
# resource "<res>" in API group "<group>" ...`. Admission: `admission webhook "<name>" denied the request: <why>`,
# or for a ValidatingAdmissionPolicy `... is forbidden: ValidatingAdmissionPolicy '<p>' with binding '<b>' denied
# request: <why>`. Quota refusals (`exceeded quota`) are told apart first.
_RBAC = re.compile(r'is forbidden: User "[^"]*" cannot (?P<verb>[a-z]+) resource "(?P<resource>[^"]+)"'
                   r'(?: in API group "(?P<group>[^"]*)")?')
_ADMISSION = re.compile(r'admission webhook "[^"]+" denied the request|ValidatingAdmissionPolicy \S+ with binding '
                        r'\S+ denied request')


def _is_quota(message: str) -> bool:
    low = message.lower()
    return "exceeded quota" in low or "quota exceeded" in low or "quotaexceeded" in low


def parse_status(body: bytes | str | dict | None) -> dict[str, Any]:
    if isinstance(body, dict):
        return body
    if not body:
        return {}
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        return {"message": text}
    return data if isinstance(data, dict) else {"message": str(data)}


def error_for(
    status: int,
    body: bytes | str | dict | None = None,
    *,
    kind: str = "",
    name: str = "",
    namespace: str = "",
    verb: str = "",
    retry_after: float | None = None,
) -> ApiError:
    """Map an HTTP status and a metav1.Status body onto the matching ApiError subclass."""
    st = parse_status(body)
    reason = str(st.get("reason") or "")
    message = str(st.get("message") or reason or f"HTTP {status}")
    details = st.get("details") or {}
    if isinstance(details, dict):
        name = name or str(details.get("name") or "")
        kind = kind or str(details.get("kind") or "")
    cls: type[ApiError]
    if status in (403, 422) and _is_quota(message):
        cls = QuotaExceeded
    elif status == 403 and _RBAC.search(message):
        cls = RBACDenied
    elif status == 403 and _ADMISSION.search(message):
        cls = AdmissionDenied
    elif status == 409:
        cls = AlreadyExists if reason == "AlreadyExists" else Conflict
    elif status == 429 or status >= 500:
        cls = Transient
    else:
        cls = {400: BadRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound, 410: Gone, 422: Invalid}.get(
            status, ApiError
        )
    return cls(message, status=status, reason=reason, kind=kind, name=name, namespace=namespace, verb=verb,
               retry_after=retry_after)
