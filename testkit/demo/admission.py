# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""AdmissionReviews sent to the validation webhook process as kube-apiserver sends them (POST, TLS).

The serving certificate the hook issued names the in-cluster Service, not 127.0.0.1, so the chain is checked
against the hook's CA while the host name is not (the webhook configurations are not registered in the guest
API for the same reason: it cannot resolve the Service name)."""

from __future__ import annotations

import http.client
import json
import ssl
import uuid
from typing import Any


def review(port: int, ca_path: str, path: str, obj: dict[str, Any], operation: str = "CREATE") -> dict[str, Any]:
    ctx = ssl.create_default_context(cafile=ca_path)
    ctx.check_hostname = False
    md = obj["metadata"]
    group, _, version = obj["apiVersion"].rpartition("/")
    body = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": str(uuid.uuid4()), "kind": {"group": group, "version": version, "kind": obj["kind"]},
        "resource": {"group": group, "version": version, "resource": obj["kind"].lower() + "s"},
        "name": md["name"], "namespace": md.get("namespace", ""), "operation": operation,
        "userInfo": {"username": "demo"}, "object": obj, "oldObject": None, "dryRun": False}}
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
    try:
        conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        answer = json.loads(resp.read())
    finally:
        conn.close()
    return answer["response"]
