# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Events on the guest objects capdvp reconciles (core/v1, as controller-runtime's recorder writes them).

Best effort: a refused or failed Event is logged and never fails the reconcile. One Event per object, reason and
message (named by their digest): a repeat finds it made and adds nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from typing import Any

from dvp_common.kube import AlreadyExists, KubeError
from dvp_common.kube.resources import EVENT
from dvp_common.rfc3339 import format_time

log = logging.getLogger(__name__)
COMPONENT = "capdvp-controller-manager"
NORMAL, WARNING = "Normal", "Warning"


def record(guest: Any, obj: dict[str, Any], event_type: str, reason: str, message: str,
           now: dt.datetime | None = None) -> None:
    md = obj.get("metadata") or {}
    ns = md.get("namespace") or "default"
    digest = hashlib.sha256(f"{md.get('uid')}|{reason}|{message}".encode()).hexdigest()[:16]
    name = f"{md.get('name')}.{digest}"
    stamp = format_time(now or dt.datetime.now(dt.UTC))
    body = {"metadata": {"name": name, "namespace": ns},
            "involvedObject": {"kind": obj.get("kind"), "apiVersion": obj.get("apiVersion"), "name": md.get("name"),
                               "namespace": md.get("namespace"), "uid": md.get("uid"),
                               "resourceVersion": md.get("resourceVersion")},
            "reason": reason, "message": message[:1024], "type": event_type, "count": 1,
            "firstTimestamp": stamp, "lastTimestamp": stamp, "source": {"component": COMPONENT},
            "reportingComponent": COMPONENT}
    try:
        guest.create(EVENT, body, ns)
    except AlreadyExists:
        pass  # recorded already (capdvp's Role may create Events, not read them)
    except KubeError as exc:
        log.info("event %s on %s/%s not recorded: %s", reason, ns, md.get("name"), exc)
