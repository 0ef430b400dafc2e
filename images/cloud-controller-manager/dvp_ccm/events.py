# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Events on guest objects, plus the matching log line. Idempotent: a repeat bumps the count of one Event."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from typing import Any

from dvp_common.kube import AlreadyExists, KubeClient, KubeError
from dvp_common.kube.resources import EVENT
from dvp_common.rfc3339 import format_time

log = logging.getLogger("dvp_ccm")
COMPONENT = "cloud-controller-manager"
EVENTS_NAMESPACE = "default"  # cluster-scoped objects (Nodes) get their Events here, as kubelet's do


class EventRecorder:
    def __init__(self, guest: KubeClient, host: str = "") -> None:
        self.guest, self.host = guest, host

    def record(self, obj: dict[str, Any], event_type: str, reason: str, message: str) -> None:
        md = obj.get("metadata") or {}
        kind = obj.get("kind") or ("Service" if md.get("namespace") else "Node")
        where = md.get("namespace") or EVENTS_NAMESPACE
        level = logging.WARNING if event_type == "Warning" else logging.INFO
        ref = f"{kind}/{md['namespace']}/{md.get('name')}" if md.get("namespace") else f"{kind}/{md.get('name')}"
        log.log(level, message, extra={"object": ref, "reason": reason})
        digest = hashlib.sha256(f"{md.get('uid')}|{reason}|{message}".encode()).hexdigest()[:16]
        name = f"{md.get('name')}.{digest}"
        now = format_time(dt.datetime.now(dt.UTC))
        body = {"metadata": {"name": name, "namespace": where},
                "involvedObject": {"kind": kind, "apiVersion": obj.get("apiVersion", "v1"), "name": md.get("name"),
                                   "namespace": md.get("namespace"), "uid": md.get("uid"),
                                   "resourceVersion": md.get("resourceVersion")},
                "reason": reason, "message": message[:1024], "type": event_type, "count": 1,
                "firstTimestamp": now, "lastTimestamp": now,
                "source": {"component": COMPONENT, "host": self.host}, "reportingComponent": COMPONENT}
        try:
            try:
                self.guest.create(EVENT, body, where)
            except AlreadyExists:  # the same thing happened before: count it on that Event
                seen = self.guest.get(EVENT, name, where)
                self.guest.patch(EVENT, name, {"count": int(seen.get("count") or 1) + 1, "lastTimestamp": now}, where)
        except KubeError as exc:  # an Event is best effort: never fails the reconcile
            log.info("event %s on %s not recorded: %s", reason, md.get("name"), exc)
