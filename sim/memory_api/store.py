# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The objects of the in-memory API and the rules kube-apiserver's generic registry applies to every write.

Rules kept (each is what the real API answers, so a client sees the same errors): one resourceVersion counter
for everything; uid, creationTimestamp and generation set on create; AlreadyExists; a stale resourceVersion in
an update or a merge patch is a Conflict; a patch naming another uid is Invalid (`metadata.uid: field is
immutable`); delete preconditions (uid, resourceVersion); finalizers keep a deleted object with its
deletionTimestamp until the last one goes; Foreground and Orphan deletes add their finalizer; `status` changes
only through the status subresource, and that subresource changes nothing else; watches from a resourceVersion,
selector-aware (an object leaving a selector is DELETED for that watch), 410 once the history has moved on.
"""

from __future__ import annotations

import bisect
import itertools
import json
import secrets
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from dvp_common.rfc3339 import format_time

from sim.memory_api.kube_match import field_match, label_match

Obj = dict[str, Any]
Key = tuple[str, str, str]  # (group/plural, namespace or "", name)
HISTORY = 20000  # watch events kept; a watch from an older resourceVersion gets 410 Gone, as from etcd compaction
FOREGROUND, ORPHAN = "foregroundDeletion", "orphan"
# Built-in kinds without a status: kube-apiserver serves no `status` subresource for them (404) and drops a
# `status` field written to them. Every other kind (DVP's, CAPI's and ours: CRDs with the subresource; Nodes,
# Services, Pods, Namespaces) has one.
NO_STATUS = frozenset({"configmaps", "secrets", "events", "events.events.k8s.io", "leases.coordination.k8s.io",
                       "serviceaccounts", "endpoints", "endpointslices.discovery.k8s.io",
                       "storageclasses.storage.k8s.io"})


class ApiAnswer(Exception):  # noqa: N818 - an answer, not a bug: the transport turns it into the HTTP error
    """An error answer: HTTP status, metav1.Status reason and message."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason, self.message = status, reason, message


def copy(obj: Any) -> Any:
    """As the wire would: a fresh copy that shares nothing with the store."""
    return json.loads(json.dumps(obj))


def meta(obj: Obj | None) -> Obj:
    return (obj or {}).get("metadata") or {}


@dataclass(frozen=True)
class Event:
    rv: int
    type: str  # ADDED, MODIFIED, DELETED
    key: Key
    obj: Obj
    old: Obj | None  # the previous state (MODIFIED): decides ADDED/DELETED for selector-filtered watches


def _named(fields: str | None) -> str | None:
    """The name a field selector pins (`metadata.name=<n>`, alone), else None."""
    terms = [t.strip() for t in (fields or "").split(",") if t.strip()]
    if len(terms) == 1 and terms[0].startswith("metadata.name=") and "!" not in terms[0]:
        return terms[0].split("=", 1)[1]
    return None


def matches(obj: Obj, labels: str | None, fields: str | None) -> bool:
    return label_match(meta(obj).get("labels") or {}, labels) and field_match(obj, fields)


def check_update(current: Obj, new: Obj, what: str, name: str) -> None:
    """What the registry checks before any validating admission: the resourceVersion precondition, then the
    immutable uid."""
    md = meta(new)
    rv = md.get("resourceVersion")
    if rv and rv != meta(current)["resourceVersion"]:
        raise ApiAnswer(409, "Conflict", f'Operation cannot be fulfilled on {what} "{name}": the object has been '
                                         "modified; please apply your changes to the latest version and try again")
    if md.get("uid") and md["uid"] != meta(current)["uid"]:
        raise ApiAnswer(422, "Invalid", f'{what} "{name}" is invalid: metadata.uid: Invalid value: "{md["uid"]}": '
                                        "field is immutable")


class Store:
    def __init__(self, default: Callable[[str, Obj], Obj] | None = None,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC), *, collect: bool = False) -> None:
        """`collect`: play kube-controller-manager's garbage collector, at once (see `_collect`)."""
        self.collect = collect
        self._objects: dict[str, dict[tuple[str, str], Obj]] = {}  # kind -> (namespace, name) -> object
        self._rv = itertools.count(1)
        self._last = 0
        self._compacted = 0  # watches from below this resourceVersion get 410 Gone (compact())
        # Events per channel: every event of a kind, and every event of one object (a wait's watch reads only
        # those of its object). `_trimmed`: the newest resourceVersion a channel no longer holds.
        self._history: dict[tuple[str, str | None], list[Event]] = {}
        self._trimmed: dict[tuple[str, str | None], int] = {}
        self._lock = threading.Lock()
        # Watchers sleep on the channel of their kind, or of one object for a watch by name (a wait): a write
        # wakes only the watches it may concern, not every open watch.
        self._channels: dict[tuple[str, str | None], threading.Condition] = {}
        self.defaults = default or (lambda _kind, obj: obj)
        self._clock = clock

    @property
    def resource_version(self) -> int:
        return self._last

    def compact(self) -> None:
        """Forget every watch event so far, as etcd compaction does: a watch from an older resourceVersion now
        gets 410 Gone."""
        with self._lock:
            self._compacted = self._last
            self._history.clear()
            self._trimmed.clear()

    def wake(self) -> None:
        """Wake every waiting watch (to see that it was closed)."""
        with self._lock:
            for channel in self._channels.values():
                channel.notify_all()

    # reads ---------------------------------------------------------------------------------------------------
    def _existing(self, key: Key, what: str) -> Obj:
        obj = self._objects.get(key[0], {}).get(key[1:])
        if obj is None:
            raise ApiAnswer(404, "NotFound", f'{what} "{key[2]}" not found')
        return obj

    def get(self, kind: str, ns: str, name: str, what: str) -> Obj:
        with self._lock:
            return copy(self._existing((kind, ns, name), what))

    def list(self, kind: str, ns: str | None, labels: str | None, fields: str | None) -> tuple[list[Obj], int]:
        with self._lock:
            objects = self._objects.get(kind, {})
            name = _named(fields)
            if name is not None:  # a wait's LIST: only the objects of that name
                found = [((n, m), o) for (n, m), o in objects.items() if m == name] if ns is None else \
                    [((ns, name), objects[(ns, name)])] if (ns, name) in objects else []
            else:
                found = sorted(objects.items())
            items = [copy(o) for (n, _), o in found if (ns is None or n == ns) and matches(o, labels, fields)]
            return items, self._last

    # writes --------------------------------------------------------------------------------------------------
    def _record(self, type_: str, key: Key, obj: Obj, old: Obj | None) -> None:
        event = Event(self._last, type_, key, obj, old)
        for channel in ((key[0], None), (key[0], key[2])):
            history = self._history.setdefault(channel, [])
            history.append(event)
            if len(history) > HISTORY:
                self._trimmed[channel] = history[-HISTORY - 1].rv
                del history[: len(history) - HISTORY]
            if channel in self._channels:
                self._channels[channel].notify_all()

    def _channel(self, kind: str, name: str | None) -> threading.Condition:
        with self._lock:
            return self._channels.setdefault((kind, name), threading.Condition(self._lock))

    def _bump(self, obj: Obj) -> None:
        self._last = next(self._rv)
        obj["metadata"]["resourceVersion"] = str(self._last)

    def create(self, kind: str, ns: str, body: Obj, what: str) -> Obj:
        obj = copy(body)
        md = obj.setdefault("metadata", {})
        if not md.get("name") and md.get("generateName"):
            md["name"] = md["generateName"] + secrets.token_hex(3)[:5]
        name = md.get("name") or ""
        if not name:
            raise ApiAnswer(422, "Invalid", f"{what} is invalid: metadata.name: Required value: name or generateName "
                                            "is required")
        obj.pop("status", None)  # set through the status subresource only
        obj = self.defaults(kind, obj)
        md = obj["metadata"]
        for drop in ("resourceVersion", "uid", "deletionTimestamp", "creationTimestamp", "generation"):
            md.pop(drop, None)
        if ns:
            md["namespace"] = ns
        with self._lock:
            key = (kind, ns, name)
            if (ns, name) in self._objects.get(kind, {}):
                raise ApiAnswer(409, "AlreadyExists", f'{what} "{name}" already exists')
            md.update(uid=str(uuid.uuid4()), creationTimestamp=format_time(self._clock()), generation=1)
            self._bump(obj)
            self._objects.setdefault(kind, {})[(ns, name)] = obj
            self._record("ADDED", key, obj, None)
            return copy(obj)

    def put(self, kind: str, ns: str, body: Obj, what: str) -> Obj:
        """A controller's writes in one: the object created, or replaced whole, status included (tests play DVP's
        and CAPI's controllers with it). The registry's bookkeeping applies (uid, creationTimestamp, generation,
        resourceVersion, one ADDED or MODIFIED event); admission and preconditions do not."""
        obj = self.defaults(kind, copy(body))
        md = obj.setdefault("metadata", {})
        if ns:
            md["namespace"] = ns
        if kind in NO_STATUS:
            obj.pop("status", None)
        with self._lock:
            key = (kind, ns, md["name"])
            current = self._objects.get(kind, {}).get(key[1:])
            if current is None:
                md.update(uid=md.get("uid") or str(uuid.uuid4()), generation=1,
                          creationTimestamp=md.get("creationTimestamp") or format_time(self._clock()))
                md.pop("deletionTimestamp", None)
            else:
                fixed = meta(current)
                for field in ("uid", "creationTimestamp", "deletionTimestamp", "generation"):
                    if field in fixed:
                        md[field] = fixed[field]
                if obj.get("spec") != current.get("spec"):
                    md["generation"] = int(fixed.get("generation") or 1) + 1
            self._bump(obj)
            self._objects.setdefault(kind, {})[key[1:]] = obj
            self._record("ADDED" if current is None else "MODIFIED", key, obj, current)
            return copy(obj)

    def update(self, kind: str, ns: str, name: str, change: Callable[[Obj], Obj], what: str,
               status_only: bool) -> Obj:
        """Apply `change` to the current object (a copy) under the store's lock and keep what the rules allow."""
        with self._lock:
            key = (kind, ns, name)
            current = self._existing(key, what)
            new = change(copy(current))
            md = new.setdefault("metadata", {})
            check_update(current, new, what, name)
            if status_only:
                kept = copy(current)
                if "status" in new:
                    kept["status"] = new["status"]
                else:
                    kept.pop("status", None)
                new = kept
            else:
                new = self.defaults(kind, new)
                if "status" in current:
                    new["status"] = copy(current["status"])
                else:
                    new.pop("status", None)
                fixed = meta(current)
                md = new["metadata"]
                for field in ("uid", "creationTimestamp", "namespace", "name", "deletionTimestamp", "generation"):
                    if field in fixed:
                        md[field] = fixed[field]
                    else:
                        md.pop(field, None)
                if new.get("spec") != current.get("spec"):
                    md["generation"] = int(fixed.get("generation") or 1) + 1
                if fixed.get("deletionTimestamp"):  # no finalizer may be added once deleting
                    md["finalizers"] = [f for f in md.get("finalizers") or [] if f in (fixed.get("finalizers")
                                                                                          or [])]
            if not new["metadata"].get("finalizers"):
                new["metadata"].pop("finalizers", None)
            if new == current:
                return copy(current)  # a no-op write: the API server does not bump the resourceVersion
            self._bump(new)
            if meta(new).get("deletionTimestamp") and not meta(new).get("finalizers"):
                del self._objects[kind][(ns, name)]
                self._record("DELETED", key, new, current)
                self._collect()
            else:
                self._objects[kind][(ns, name)] = new
                self._record("MODIFIED", key, new, current)
            return copy(new)

    def delete(self, kind: str, ns: str, name: str, options: Obj, what: str) -> Obj:
        with self._lock:
            key = (kind, ns, name)
            current = self._existing(key, what)
            pre = options.get("preconditions") or {}
            md = meta(current)
            # The answers kube-apiserver gives, word for word: clients and tests match on them.
            cannot = f'Operation cannot be fulfilled on {what} "{name}": the'
            if pre.get("uid") and pre["uid"] != md["uid"]:
                raise ApiAnswer(409, "Conflict", f"{cannot} UID in the precondition ({pre['uid']}) does not match the "
                                                 f"UID in record ({md['uid']}). The object might have been deleted and "
                                                 "then recreated")
            if pre.get("resourceVersion") and pre["resourceVersion"] != md["resourceVersion"]:
                raise ApiAnswer(409, "Conflict", f"{cannot} ResourceVersion in the precondition "
                                                 f"({pre['resourceVersion']}) does not match the ResourceVersion in "
                                                 f"record ({md['resourceVersion']}). The object might have been "
                                                 "modified")
            finalizers = list(md.get("finalizers") or [])
            policy = options.get("propagationPolicy")
            extra = {"Foreground": FOREGROUND, "Orphan": ORPHAN}.get(policy or "")
            if extra and extra not in finalizers and not md.get("deletionTimestamp"):
                finalizers.append(extra)
            if not finalizers:
                del self._objects[kind][(ns, name)]
                gone = copy(current)
                self._bump(gone)
                self._record("DELETED", key, gone, current)
                self._collect()
                return copy(gone)
            if md.get("deletionTimestamp") and finalizers == md.get("finalizers"):
                return copy(current)
            new = copy(current)
            new["metadata"]["finalizers"] = finalizers
            new["metadata"].setdefault("deletionTimestamp", format_time(self._clock()))
            self._bump(new)
            self._objects[kind][(ns, name)] = new
            self._record("MODIFIED", key, new, current)
            return copy(new)

    def _collect(self) -> None:
        """Background garbage collection, done at once where kube-controller-manager does it a moment later: an
        object whose every ownerReference names an object that no longer exists (by uid) is deleted (finalizers
        keep it, with its deletionTimestamp), and so on down. Foreground and Orphan deletes are not played: their
        finalizers stay. Called under the lock."""
        if not self.collect:
            return
        while True:
            uids = {meta(o)["uid"] for objects in self._objects.values() for o in objects.values()}
            orphans = [(kind, key, o) for kind, objects in self._objects.items() for key, o in objects.items()
                       if (refs := meta(o).get("ownerReferences")) and not any(r.get("uid") in uids for r in refs)
                       and not (meta(o).get("deletionTimestamp") and meta(o).get("finalizers"))]
            if not orphans:
                return
            for kind, (ns, name), current in orphans:
                new = copy(current)
                self._bump(new)
                if meta(current).get("finalizers"):
                    new["metadata"]["deletionTimestamp"] = format_time(self._clock())
                    self._objects[kind][(ns, name)] = new
                    self._record("MODIFIED", (kind, ns, name), new, current)
                else:
                    del self._objects[kind][(ns, name)]
                    self._record("DELETED", (kind, ns, name), new, current)

    # watches -------------------------------------------------------------------------------------------------
    def watch(self, kind: str, ns: str | None, labels: str | None, fields: str | None, since: int,
              until: float, closed: threading.Event, now: Callable[[], float]) -> Iterator[Obj]:
        """Raw watch events after resourceVersion `since` until the monotonic time `until` or `closed`."""
        channel = (kind, _named(fields))
        with self._lock:
            oldest = max(self._trimmed.get(channel, 0), self._compacted)
        if since < oldest:
            yield {"type": "ERROR", "object": {"kind": "Status", "code": 410, "reason": "Expired",
                                               "message": f"too old resource version: {since} ({oldest})"}}
            return
        woken = self._channel(*channel)
        while True:
            with self._lock:
                history = self._history.setdefault(channel, [])
                position = bisect.bisect_right(history, since, key=lambda e: e.rv)
                while position >= len(history) and not closed.is_set():
                    left = until - now()
                    if left <= 0:
                        return
                    woken.wait(min(left, 0.5))
                    position = bisect.bisect_right(history, since, key=lambda e: e.rv)
                if closed.is_set():
                    return
                events = history[position:]
            for event in events:
                since = event.rv
                out = self._filtered(event, kind, ns, labels, fields)
                if out is not None:
                    yield out

    @staticmethod
    def _filtered(event: Event, kind: str, ns: str | None, labels: str | None, fields: str | None) -> Obj | None:
        if event.key[0] != kind or (ns is not None and event.key[1] != ns):
            return None
        now_in = matches(event.obj, labels, fields)
        was_in = event.old is not None and matches(event.old, labels, fields)
        if event.type == "DELETED":
            type_ = "DELETED" if (now_in or was_in) else None
        elif event.type == "ADDED":
            type_ = "ADDED" if now_in else None
        else:
            type_ = {(True, True): "MODIFIED", (False, True): "ADDED", (True, False): "DELETED"}.get((was_in, now_in))
        return None if type_ is None else {"type": type_, "object": copy(event.obj)}

    def start_events(self, kind: str, ns: str | None, labels: str | None, fields: str | None) -> tuple[list[Obj], int]:
        """A watch without a resourceVersion: ADDED for every current object, then the changes after them."""
        items, rv = self.list(kind, ns, labels, fields)
        return [{"type": "ADDED", "object": o} for o in items], rv
