# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The shared reconcile workers: outcomes, backoff, metrics, key formatting, graceful stop."""

import threading

from dvp_common.runtime import DONE, RETRY, Controller, ReconcileMetrics, Result, WorkQueue
from dvp_common.runtime.controller import key_text
from prometheus_client import CollectorRegistry


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def make(reconcile):
    registry = CollectorRegistry()
    ctl = Controller("t", reconcile, queue=WorkQueue(base_delay=1.0, clock=Clock()),
                     metrics=ReconcileMetrics("x", registry))
    return ctl, registry


def sample(registry, outcome):
    return registry.get_sample_value("x_reconcile_total", {"controller": "t", "outcome": outcome})


def test_outcomes_are_counted_and_retries_back_off():
    results = iter([RETRY, RETRY, DONE])
    ctl, registry = make(lambda key: next(results))
    ctl.process_one("k")
    ctl.process_one("k")
    assert ctl.queue.failures("k") == 2
    ctl.process_one("k")
    assert ctl.queue.failures("k") == 0
    assert (sample(registry, "retry"), sample(registry, "ok")) == (2.0, 1.0)


def test_an_exception_is_retried_and_logged_with_the_key(caplog):
    def boom(key):
        raise RuntimeError("nope")
    ctl, registry = make(boom)
    ctl.process_one(("ns", "name"))
    assert ctl.queue.failures(("ns", "name")) == 1
    assert sample(registry, "error") == 1.0
    assert "t ns/name: RuntimeError: nope (retry in" in caplog.text


def test_requeue_after_schedules_a_plain_recheck():
    ctl, _ = make(lambda key: Result(requeue_after=30.0))
    ctl.process_one("k")
    assert [round(due - 1000.0, 3) for due, _, _ in ctl.queue._delayed] == [30.0]
    assert ctl.queue.failures("k") == 0


def test_key_text():
    assert key_text(("ns", "a")) == "ns/a"
    assert key_text("node-1") == "node-1"


def test_workers_drain_the_queue_and_stop():
    seen, done = [], threading.Event()

    def reconcile(key):
        seen.append(key)
        if len(seen) == 3:
            done.set()
        return DONE
    ctl = Controller("t", reconcile, workers=2)
    ctl.start()
    for k in ("a", "b", "c"):
        ctl.enqueue(k)
    assert done.wait(10)
    ctl.stop(timeout=5)
    assert sorted(seen) == ["a", "b", "c"]
    assert all(not t.is_alive() for t in ctl._threads)
