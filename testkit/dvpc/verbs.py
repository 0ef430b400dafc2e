# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The verbs of dvpc_apiserver: create, get, list, watch, put, patch, delete with resourceVersion semantics."""

from __future__ import annotations

import copy
import json
import time
import uuid
from typing import Any

import jsonpatch

from testkit.dvpc.apiserver import _commit, field_match, label_match, merge_patch


def dispatch(h: Any, method: str, coll: str, ns: str, name: str | None, sub: str | None, q: dict[str, str],
             body: Any) -> None:
    st = h.state
    if method == "GET" and not name:
        if q.get("watch"):
            return _watch(h, coll, ns, q)
        return _list(h, coll, ns, q)
    with st.cond:
        bmeta = (body or {}).get("metadata", {}) if isinstance(body, dict) else {}
        if method == "POST" and not bmeta.get("name") and bmeta.get("generateName"):
            bmeta["name"] = bmeta["generateName"] + uuid.uuid4().hex[:5]
        key = (coll, ns, name or bmeta.get("name", ""))
        cur = st.objects.get(key)
        if method == "POST":
            if cur is not None:
                return h._status(409, "AlreadyExists", f'"{key[2]}" already exists', key[2])
            obj = copy.deepcopy(body)
            md = obj.setdefault("metadata", {})
            md.update(namespace=ns or None, uid=str(uuid.uuid4()), creationTimestamp="2026-01-01T00:00:00Z")
            if not ns:
                md.pop("namespace")
            _commit(st, key, obj, "ADDED")
            return h._send(201, obj)
        if cur is None:
            return h._status(404, "NotFound", f'"{key[2]}" not found', key[2])
        if method == "GET":
            return h._send(200, cur)
        if method == "DELETE":
            pre = (body or {}).get("preconditions") or {}
            md = cur["metadata"]
            if any(pre.get(k) and pre[k] != md.get(k) for k in ("uid", "resourceVersion")):
                return h._status(409, "Conflict", "Precondition failed", key[2])
            if md.get("finalizers"):
                md.setdefault("deletionTimestamp", "2026-01-01T00:00:00Z")
                _commit(st, key, cur, "MODIFIED")
                return h._send(200, cur)
            del st.objects[key]
            cur["metadata"]["_coll"] = coll
            _commit(st, None, cur, "DELETED")
            cur["metadata"].pop("_coll", None)
            return h._send(200, cur)
        if method == "PUT":
            rv = (body.get("metadata") or {}).get("resourceVersion")
            if rv and rv != cur["metadata"]["resourceVersion"]:
                return h._status(409, "Conflict", "the object has been modified; please apply your changes "
                                 "to the latest version and try again", key[2])
            new = copy.deepcopy(cur)
            if sub == "status":
                new["status"] = copy.deepcopy(body.get("status"))
            else:
                new = {**copy.deepcopy(body), "status": cur.get("status")}
                new["metadata"] = {**body.get("metadata", {}), "uid": cur["metadata"]["uid"]}
                if ns:
                    new["metadata"]["namespace"] = ns
        elif method == "PATCH":
            ctype = h.headers.get("Content-Type", "")
            try:
                new = jsonpatch.apply_patch(cur, body) if "json-patch" in ctype else merge_patch(cur, body)
            except jsonpatch.JsonPatchException as exc:
                return h._status(422, "Invalid", str(exc), key[2])
            pmeta = (body.get("metadata") or {}) if isinstance(body, dict) else {}
            if pmeta.get("resourceVersion") and pmeta["resourceVersion"] != cur["metadata"]["resourceVersion"]:
                return h._status(409, "Conflict", "the object has been modified", key[2])
            if pmeta.get("uid") and pmeta["uid"] != cur["metadata"]["uid"]:
                return h._status(422, "Invalid", f'"{key[2]}" is invalid: metadata.uid: Invalid value: '
                                 f'"{pmeta["uid"]}": field is immutable', key[2])  # as kube-apiserver answers
        else:
            return h._status(405, "MethodNotAllowed", method)
        if new.get("metadata", {}).get("deletionTimestamp") and not new["metadata"].get("finalizers"):
            del st.objects[key]
            new["metadata"]["_coll"] = coll
            _commit(st, None, new, "DELETED")
            new["metadata"].pop("_coll", None)
            return h._send(200, new)
        _commit(st, key, new, "MODIFIED")
        return h._send(200, new)


def _selected(obj: dict[str, Any], q: dict[str, str]) -> bool:
    labels = obj.get("metadata", {}).get("labels") or {}
    return label_match(labels, q.get("labelSelector", "")) and field_match(obj, q.get("fieldSelector", ""))


def _list(h: Any, coll: str, ns: str, q: dict[str, str]) -> None:
    st = h.state
    with st.cond:
        items = [copy.deepcopy(o) for (c, n, _), o in sorted(st.objects.items())
                 if c == coll and (not ns or n == ns) and _selected(o, q)]
        rv = str(st.rv)
    start = int(q.get("continue") or 0)
    limit = int(q.get("limit") or 0)
    page = items[start:start + limit] if limit else items[start:]
    more = limit and start + limit < len(items)
    h._send(200, {"kind": "List", "apiVersion": "v1", "items": page,
                  "metadata": {"resourceVersion": rv, **({"continue": str(start + limit)} if more else {})}})


def _watch(h: Any, coll: str, ns: str, q: dict[str, str]) -> None:
    st = h.state
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()

    def chunk(obj: dict[str, Any]) -> None:
        data = json.dumps(obj).encode() + b"\n"
        h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        h.wfile.flush()

    since = int(q.get("resourceVersion") or 0)
    timeout = min(float(q.get("timeoutSeconds") or 1800), st.max_watch_seconds)
    end = time.monotonic() + timeout
    try:
        with st.cond:
            if since and since < st.oldest_rv - 1:
                chunk({"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                                   "code": 410, "reason": "Expired",
                                                   "message": f"too old resource version: {since}"}})
                since = -1
            if since == 0:  # no resourceVersion: start with the current state as ADDED
                for (c, n, _), o in sorted(st.objects.items()):
                    if c == coll and (not ns or n == ns) and _selected(o, q):
                        chunk({"type": "ADDED", "object": o})
                since = st.rv
            while since >= 0:
                for rv, kind, c, obj in list(st.events):
                    if rv > since and c == coll and (not ns or obj["metadata"].get("namespace", "") == ns):
                        since = rv
                        if _selected(obj, q):
                            out = copy.deepcopy(obj)
                            out["metadata"].pop("_coll", None)
                            chunk({"type": kind, "object": out})
                left = end - time.monotonic()
                if left <= 0:
                    break
                st.cond.wait(min(left, 0.05))
        h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        pass
    h.close_connection = True
