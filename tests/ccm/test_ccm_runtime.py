# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import http.server
import threading

import pytest
from ccm_builders import vm
from dvp_ccm.cloud import Cloud
from dvp_ccm.events import EventRecorder
from dvp_ccm.probe import http_prober
from dvp_ccm.runner import Controller, Result
from dvp_common.dvp import labels as L
from dvp_common.dvp.ownership import NotOurs
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import EVENT
from dvp_common.runtime import WorkQueue
from informed_api import NS, UUID, dvp_api, dvp_connection, guest_api


def test_runner_backs_off_on_errors_and_retry_and_requeues_after():
    queue = WorkQueue(base_delay=1.0, max_delay=8.0)
    outcomes = iter([RuntimeError("boom"), Result(retry=True), Result(requeue_after=30.0), Result()])

    def reconcile(key):
        out = next(outcomes)
        if isinstance(out, Exception):
            raise out
        return out

    c = Controller("t", reconcile, queue=queue)
    c.process_one("k")
    assert queue.failures("k") == 1
    c.process_one("k")
    assert queue.failures("k") == 2
    c.process_one("k")
    assert queue.failures("k") == 0  # success forgets the backoff
    c.process_one("k")
    assert queue.failures("k") == 0


def test_event_recorder_creates_once_and_counts_repeats():
    kube = guest_api()
    rec = EventRecorder(kube.client, "host-1")
    node = {"kind": "Node", "apiVersion": "v1", "metadata": {"name": "w-0", "uid": "u1"}}
    rec.record(node, "Warning", "InvalidProviderID", 'Node "w-0": bad')
    rec.record(node, "Warning", "InvalidProviderID", 'Node "w-0": bad')
    events = kube.items(EVENT)
    assert len(events) == 1
    ev = events[0]
    assert (ev["metadata"]["namespace"], ev["reason"], ev["type"], ev["count"]) == ("default", "InvalidProviderID",
                                                                                  "Warning", 2)
    assert ev["involvedObject"] == {"kind": "Node", "apiVersion": "v1", "name": "w-0", "namespace": None,
                                    "uid": "u1", "resourceVersion": None}
    assert ev["source"] == {"component": "cloud-controller-manager", "host": "host-1"}


def test_vm_label_writes_refuse_foreign_vms_and_ownership_keys():
    kube = dvp_api()
    cloud = Cloud(dvp_connection(kube), kube.store(VIRTUAL_MACHINE))
    ours = kube.put(VIRTUAL_MACHINE, vm("a", UUID))
    theirs = kube.put(VIRTUAL_MACHINE, vm("b", "other"))
    with pytest.raises(NotOurs):
        cloud.set_vm_labels(theirs, {"dvp.deckhouse.io/x": "loadbalancer"})
    with pytest.raises(ValueError, match="are not ours"):
        cloud.set_vm_labels(ours, {L.CLUSTER_UUID: "other"})
    assert kube.writes() == []
    cloud.set_vm_labels(ours, {"dvp.deckhouse.io/x": "loadbalancer"})
    assert kube.calls[-1] == ("patch", "VirtualMachine", "a")
    assert kube.peek(VIRTUAL_MACHINE, "a", NS)["metadata"]["labels"]["dvp.deckhouse.io/x"] == "loadbalancer"
    assert cloud.vm("b") is None and cloud.vm("a") is not None


def test_http_prober_against_a_real_server():
    codes = {"/healthz": 200}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(codes.get(self.path, 404))
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    probe = http_prober(timeout=1.0)
    try:
        assert probe("127.0.0.1", port)
        codes["/healthz"] = 503
        assert not probe("127.0.0.1", port)
    finally:
        server.shutdown()
        server.server_close()
    assert not probe("127.0.0.1", port)  # nobody listens
